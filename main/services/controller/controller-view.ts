import type { LedgerEventData } from '../../../common/scenario/events'
import type { ReplicasInfo } from '../remoting/types'

/** A node of the deployment as the watcher names things: topology id and room. */
export interface NodeRef {
  nodeId: string
  room: string
}

/** One controller-mode group as the leader controller reports it, in topology node ids. */
export interface GroupView {
  master: string | null
  masterAddress: string | null
  epoch: number
  syncStateSetEpoch: number
  inSync: string[]
  notInSync: string[]
}

/** What the watcher knows of the quorum and the groups at one poll. */
export interface ControllerView {
  /** Node id of the leader controller; null when no controller names one. */
  leader: string | null
  leaderSelfId: string | null
  leaderAddress: string | null
  groups: Record<string, GroupView>
  /** Per group: replicas acting as master by their own account (sorted node ids). */
  selfMasters: Record<string, string[]>
}

export const EMPTY_VIEW: ControllerView = {
  leader: null,
  leaderSelfId: null,
  leaderAddress: null,
  groups: {},
  selfMasters: {}
}

/** A ledger event the diff asks for; `room` is where it happened (null = deployment-wide). */
export type ViewEvent = {
  [
    K in
      'controller-leader-changed' | 'master-elected' | 'sync-state-set-changed' | 'masters-observed'
  ]: { kind: K; room: string | null; data: LedgerEventData[K] }
}['controller-leader-changed' | 'master-elected' | 'sync-state-set-changed' | 'masters-observed']

/** Resolves a broker or controller address to its node; unknown addresses keep the address as id. */
export type Resolve = (address: string) => NodeRef | undefined

const idOf = (resolve: Resolve, address: string): string => resolve(address)?.nodeId ?? address

/** The leader's sync-state data in node ids, sorted so equal sets compare equal. */
export function groupViewOf(info: ReplicasInfo, resolve: Resolve): GroupView {
  const ids = (list: ReplicasInfo['inSyncReplicas']): string[] =>
    list.map((r) => idOf(resolve, r.brokerAddress)).sort()
  return {
    master: info.masterAddress ? idOf(resolve, info.masterAddress) : null,
    masterAddress: info.masterAddress,
    epoch: info.masterEpoch,
    syncStateSetEpoch: info.syncStateSetEpoch,
    inSync: ids(info.inSyncReplicas),
    notInSync: ids(info.notInSyncReplicas)
  }
}

const same = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i])

/**
 * The events between two polls. A group the new poll could not read (no leader reachable) keeps
 * its last view rather than reading as "no master"; `merge` does that before the diff.
 */
export function diffViews(
  prev: ControllerView,
  next: ControllerView,
  roomOf: (nodeId: string | null) => string | null
): ViewEvent[] {
  const out: ViewEvent[] = []
  if (prev.leader !== next.leader) {
    out.push({
      kind: 'controller-leader-changed',
      room: roomOf(next.leader),
      data: {
        from: prev.leader,
        to: next.leader,
        selfId: next.leaderSelfId,
        address: next.leaderAddress
      }
    })
  }
  for (const [group, g] of Object.entries(next.groups)) {
    const p = prev.groups[group]
    if (!p || p.master !== g.master || p.epoch !== g.epoch) {
      out.push({
        kind: 'master-elected',
        room: roomOf(g.master),
        data: {
          group,
          from: p?.master ?? null,
          fromRoom: roomOf(p?.master ?? null),
          to: g.master,
          toRoom: roomOf(g.master),
          epoch: g.epoch,
          toAddress: g.masterAddress
        }
      })
    }
    if (!p || !same(p.inSync, g.inSync) || !same(p.notInSync, g.notInSync)) {
      out.push({
        kind: 'sync-state-set-changed',
        room: roomOf(g.master),
        data: {
          group,
          epoch: g.epoch,
          syncStateSetEpoch: g.syncStateSetEpoch,
          master: g.master,
          inSync: g.inSync,
          notInSync: g.notInSync
        }
      })
    }
  }
  for (const [group, masters] of Object.entries(next.selfMasters)) {
    const p = prev.selfMasters[group]
    if (p && same(p, masters)) continue
    if (!p && masters.length === 0) continue
    out.push({
      kind: 'masters-observed',
      room: null,
      data: { group, masters, controllerMaster: next.groups[group]?.master ?? null }
    })
  }
  return out
}

/** The next view: what this poll read, and the last known state of whatever it could not. */
export function merge(
  prev: ControllerView,
  read: {
    leader?: { nodeId: string; selfId: string; address: string } | null
    groups?: Record<string, GroupView>
    selfMasters?: Record<string, string[]>
  }
): ControllerView {
  const leader = read.leader === undefined ? undefined : read.leader
  return {
    leader: leader === undefined ? prev.leader : (leader?.nodeId ?? null),
    leaderSelfId: leader === undefined ? prev.leaderSelfId : (leader?.selfId ?? null),
    leaderAddress: leader === undefined ? prev.leaderAddress : (leader?.address ?? null),
    groups: { ...prev.groups, ...(read.groups ?? {}) },
    selfMasters: { ...prev.selfMasters, ...(read.selfMasters ?? {}) }
  }
}
