import type { TopologyNode } from '../topology/model'
import { controllerModeSchema } from '../topology/schema'
import type { ControllerMode } from '../topology/schema'
import type { BrokerGroup, Check, Context, Draft } from './context'
import { uniq } from './context'

// Controller mode across rooms: where operators lose messages (apache/rocketmq#7017, #6662, #7689,
// #10427). The quorum must survive a room, a group's writes must still be acknowledgeable after a
// room is gone, and the settings that trade acknowledged data for availability are called out.

type ControllerModeRuleId =
  | 'controller-quorum-majority-one-room'
  | 'controller-quorum-too-small'
  | 'in-sync-replicas-after-room-loss'
  | 'unclean-election-enabled'
  | 'replication-asynchronous'

/** Standalone controllers and name servers that embed one, in document order. */
export function quorumNodes(ctx: Context): TopologyNode[] {
  return ctx.nodes.filter(
    (n) => n.kind === 'controller' || (n.kind === 'nameserver' && n.spec.controller !== undefined)
  )
}

function replicaGroups(ctx: Context): BrokerGroup[] {
  return ctx.groups.filter((g) => g.members.some((b) => b.spec.role === 'replica'))
}

function modeOf(ctx: Context): ControllerMode {
  return ctx.topology.controllerMode ?? controllerModeSchema.parse({})
}

const MODE_PATH = '$.controllerMode'

/** Acknowledgements a master of this mode needs before it acknowledges a write, master included. */
export function acksNeeded(mode: ControllerMode, inSync: number): number {
  if (mode.allAckInSyncStateSet) return mode.minInSyncReplicas
  const wanted = mode.enableAutoInSyncReplicas
    ? Math.max(mode.minInSyncReplicas, Math.min(mode.inSyncReplicas, inSync))
    : mode.inSyncReplicas
  return Math.max(wanted, mode.minInSyncReplicas)
}

export const CONTROLLER_MODE_CHECKS: { [K in ControllerModeRuleId]: Check } = {
  'controller-quorum-majority-one-room': (ctx) => {
    const quorum = quorumNodes(ctx)
    if (quorum.length < 2 || ctx.topology.rooms.length < 2) return []
    const majority = Math.floor(quorum.length / 2) + 1
    const out: Draft[] = []
    for (const room of uniq(quorum.map((n) => n.room))) {
      const here = quorum.filter((n) => n.room === room)
      if (here.length < majority) continue
      out.push({
        message: `room "${room}" holds ${here.length} of the ${quorum.length} controllers, a majority: while it is down (or cut off) no master can be elected anywhere, and while it is cut off it decides alone`,
        hint: 'spread the controllers over the rooms so that no room holds a majority, e.g. one per room in three rooms',
        nodeIds: here.map((n) => n.id),
        path: here[0]!.path
      })
    }
    return out
  },

  'controller-quorum-too-small': (ctx) => {
    const quorum = quorumNodes(ctx)
    if (replicaGroups(ctx).length === 0 || quorum.length >= 3 || quorum.length === 0) return []
    return [
      {
        message: `the controller quorum has ${quorum.length} member(s); losing ${quorum.length === 1 ? 'it' : 'one'} stops every master switch`,
        hint: 'run at least three controllers (standalone, or "controller": {} on a name server), one per room',
        nodeIds: quorum.map((n) => n.id),
        path: quorum[0]!.path
      }
    ]
  },

  'in-sync-replicas-after-room-loss': (ctx) => {
    const mode = modeOf(ctx)
    const out: Draft[] = []
    for (const g of replicaGroups(ctx)) {
      const rooms = uniq(g.members.map((b) => b.room))
      if (rooms.length < 2) continue
      // The room whose loss hurts most: the one holding the most replicas of the group.
      const worst = rooms
        .map((r) => ({ room: r, left: g.members.filter((b) => b.room !== r).length }))
        .sort((a, b) => a.left - b.left)[0]!
      const need = acksNeeded(mode, worst.left)
      if (worst.left >= need) continue
      out.push({
        message: `${g.key} keeps ${worst.left} replica(s) when room "${worst.room}" is lost, but its master needs ${need} in sync to acknowledge a write: every send to it fails until the room is back`,
        hint: mode.allAckInSyncStateSet
          ? `lower minInSyncReplicas to ${worst.left} or less, or add replicas of ${g.key} in other rooms`
          : `lower inSyncReplicas (and minInSyncReplicas) to ${worst.left} or less, set enableAutoInSyncReplicas, or add replicas in other rooms`,
        nodeIds: g.members.map((b) => b.id),
        path: `${MODE_PATH}.${mode.allAckInSyncStateSet ? 'minInSyncReplicas' : 'inSyncReplicas'}`
      })
    }
    return out
  },

  'unclean-election-enabled': (ctx) => {
    if (!modeOf(ctx).enableElectUncleanMaster || replicaGroups(ctx).length === 0) return []
    return [
      {
        message:
          'enableElectUncleanMaster is true: when no in-sync replica is alive the controllers elect one that is behind, and the acknowledged messages it lacks are gone',
        hint: 'set controllerMode.enableElectUncleanMaster to false (the default) unless availability matters more than acknowledged data',
        nodeIds: quorumNodes(ctx).map((n) => n.id),
        path: `${MODE_PATH}.enableElectUncleanMaster`
      }
    ]
  },

  'replication-asynchronous': (ctx) => {
    const mode = modeOf(ctx)
    if (mode.allAckInSyncStateSet || mode.inSyncReplicas > 1) return []
    const groups = replicaGroups(ctx)
    if (groups.length === 0) return []
    return [
      {
        message:
          'controller-mode masters acknowledge a write before any replica has it (allAckInSyncStateSet false, inSyncReplicas 1): what was not yet replicated when a master dies is lost with it',
        hint: 'set controllerMode.allAckInSyncStateSet to true, or inSyncReplicas to 2 or more',
        nodeIds: groups.flatMap((g) => g.members.map((b) => b.id)),
        path: `${MODE_PATH}.allAckInSyncStateSet`
      }
    ]
  }
}
