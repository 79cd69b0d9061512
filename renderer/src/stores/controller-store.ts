import { create } from 'zustand'

/** One controller-mode group as the canvas shows it: master, epoch and SyncStateSet (node ids). */
export interface GroupState {
  master: string | null
  /** The master before the last switch, for the role-change animation and its label. */
  previous: string | null
  epoch: number
  inSync: string[]
  notInSync: string[]
  /** Replicas acting as master by their own account; two or more is a split brain. */
  acting: string[]
  /** Date.now() of the last master change seen, so a badge can animate once per change. */
  changedAt: number
}

export interface ControllerState {
  /** Node id of the leader controller (or the name server embedding it); null = none. */
  leader: string | null
  groups: Record<string, GroupState>
  /** Wire `ledger:event` here; only the controller events are read. */
  applyLedgerEvents(batch: readonly unknown[]): void
  reset(): void
}

const EMPTY: GroupState = {
  master: null,
  previous: null,
  epoch: 0,
  inSync: [],
  notInSync: [],
  acting: [],
  changedAt: 0
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null)
const strs = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []

/** Applies one controller ledger event to the state; other events return it unchanged. */
export function applyControllerEvent(
  s: Pick<ControllerState, 'leader' | 'groups'>,
  raw: unknown,
  now: number
): Pick<ControllerState, 'leader' | 'groups'> {
  if (typeof raw !== 'object' || raw === null) return s
  const e = raw as { kind?: unknown; data?: Record<string, unknown> }
  const d = e.data ?? {}
  if (e.kind === 'controller-leader-changed') return { ...s, leader: str(d.to) }
  const group = str(d.group)
  if (!group) return s
  const g = s.groups[group] ?? EMPTY
  let next: GroupState
  switch (e.kind) {
    case 'master-elected': {
      const to = str(d.to)
      const moved = to !== g.master
      next = {
        ...g,
        master: to,
        previous: moved ? g.master : g.previous,
        epoch: typeof d.epoch === 'number' ? d.epoch : g.epoch,
        changedAt: moved && g.master !== null ? now : g.changedAt
      }
      break
    }
    case 'sync-state-set-changed':
      next = { ...g, inSync: strs(d.inSync), notInSync: strs(d.notInSync) }
      break
    case 'masters-observed':
      next = { ...g, acting: strs(d.masters) }
      break
    default:
      return s
  }
  return { ...s, groups: { ...s.groups, [group]: next } }
}

/** Live controller mode: who leads the quorum, and each group's master and SyncStateSet. */
export const useControllerStore = create<ControllerState>()((set, get) => ({
  leader: null,
  groups: {},
  applyLedgerEvents(batch) {
    const now = Date.now()
    let s: Pick<ControllerState, 'leader' | 'groups'> = get()
    for (const raw of batch) s = applyControllerEvent(s, raw, now)
    if (s.leader !== get().leader || s.groups !== get().groups) {
      set({ leader: s.leader, groups: s.groups })
    }
  },
  reset() {
    set({ leader: null, groups: {} })
  }
}))

/** The role a node plays in controller mode now, for its canvas badge; null when it has none. */
export type LiveRole =
  | { kind: 'master'; group: string; epoch: number; changedAt: number; previous: string | null }
  | { kind: 'replica'; group: string; inSync: boolean; acting: boolean }
  | { kind: 'leader' }

/** A replica's role in its group, or a controller's in the quorum. */
export function liveRoleOf(
  s: Pick<ControllerState, 'leader' | 'groups'>,
  nodeId: string
): LiveRole | null {
  for (const [group, g] of Object.entries(s.groups)) {
    if (g.master === nodeId) {
      return { kind: 'master', group, epoch: g.epoch, changedAt: g.changedAt, previous: g.previous }
    }
    if (g.inSync.includes(nodeId) || g.notInSync.includes(nodeId)) {
      return {
        kind: 'replica',
        group,
        inSync: g.inSync.includes(nodeId),
        acting: g.acting.includes(nodeId)
      }
    }
  }
  return s.leader === nodeId ? { kind: 'leader' } : null
}
