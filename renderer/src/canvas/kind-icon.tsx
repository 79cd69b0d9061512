import type { LucideIcon } from 'lucide-react'
import {
  ArrowDownToLine,
  ArrowUpFromLine,
  Compass,
  Database,
  ServerCog,
  Shuffle
} from 'lucide-react'
import type { NodeKind } from '../../../common/topology'

/** One icon per node kind, shared by the canvas, palette and menus. */
export const KIND_ICON: Record<NodeKind, LucideIcon> = {
  nameserver: Compass,
  broker: Database,
  management: ServerCog,
  proxy: Shuffle,
  producer: ArrowUpFromLine,
  consumer: ArrowDownToLine
}

export function KindIcon({ kind, size = 16 }: { kind: NodeKind; size?: number }) {
  const Icon = KIND_ICON[kind]
  return <Icon size={size} aria-hidden="true" className={`kind-icon kind-${kind}`} />
}
