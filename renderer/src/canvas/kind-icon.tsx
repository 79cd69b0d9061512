import type { LucideIcon } from 'lucide-react'
import {
  ArrowDownToLine,
  ArrowUpFromLine,
  Compass,
  Crown,
  Database,
  ServerCog,
  Shuffle
} from 'lucide-react'
import { memo } from 'react'
import type { NodeKind } from '../../../common/topology'

/** One icon per node kind, shared by the canvas, palette and menus. */
export const KIND_ICON: Record<NodeKind, LucideIcon> = {
  nameserver: Compass,
  broker: Database,
  management: ServerCog,
  proxy: Shuffle,
  controller: Crown,
  producer: ArrowUpFromLine,
  consumer: ArrowDownToLine
}

function KindIconView({ kind, size = 16 }: { kind: NodeKind; size?: number }) {
  const Icon = KIND_ICON[kind]
  return <Icon size={size} aria-hidden="true" className={`kind-icon kind-${kind}`} />
}

/** Memoized: a node re-renders on every run-state event, its icon never changes with it. */
export const KindIcon = memo(KindIconView)
