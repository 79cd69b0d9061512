import { memo } from 'react'
import type { LiveRole } from '../stores/controller-store'
import { liveRoleOf, useControllerStore } from '../stores/controller-store'
import './controller-badge.css'

/** What the badge says and how it reads to a screen reader; one string so the store selector is stable. */
export function describeRole(nodeId: string, role: LiveRole | null): string {
  if (!role) return ''
  switch (role.kind) {
    case 'master':
      return `master|${role.epoch}|${role.changedAt}|${nodeId} is master of ${role.group}, epoch ${role.epoch}${role.previous ? ` (took over from ${role.previous})` : ''}`
    case 'replica':
      return `${role.acting ? 'split' : role.inSync ? 'insync' : 'behind'}|0|0|${nodeId} is a replica of ${role.group}, ${role.inSync ? 'in' : 'not in'} its SyncStateSet${role.acting ? ', and still acts as master' : ''}`
    case 'leader':
      return `leader|0|0|${nodeId} hosts the leader controller`
  }
}

const TEXT: Record<string, (epoch: string) => string> = {
  master: (e) => `master · e${e}`,
  insync: () => 'in sync',
  behind: () => 'behind',
  split: () => 'acts as master',
  leader: () => 'leader'
}

/**
 * The controller-mode role of a replica (master with its epoch, in or out of the SyncStateSet) or
 * of a controller (leader), live from the ledger; it pulses once when a master takes over.
 */
function ControllerBadgeView({ nodeId }: { nodeId: string }) {
  const described = useControllerStore((s) => describeRole(nodeId, liveRoleOf(s, nodeId)))
  if (!described) return null
  const [kind, epoch, changedAt, label] = described.split('|') as [string, string, string, string]
  // Keyed by the change, so the take-over animation runs once per switch, not on every render.
  return (
    <span
      key={changedAt}
      role="status"
      aria-label={label}
      title={label}
      className={`ctl-badge ctl-${kind}${changedAt !== '0' && kind === 'master' ? ' ctl-took-over' : ''}`}
    >
      {TEXT[kind]!(epoch)}
    </span>
  )
}

export const ControllerBadge = memo(ControllerBadgeView)
