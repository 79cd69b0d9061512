import { allocateNearby, queueKey } from '../../clients/room-aware/allocate-nearby'
import { roomOfClientId } from '../../clients/room-aware/client-id'
import type { ClientState } from '../../worker-wire/protocol'
import type { RunContext } from './run-context'
import { pause } from './run-context'
import { WARMUP_TAG } from './setup'
import { DEFAULT_REQUEST_TIMEOUT_MS, LANE_TRAITS } from '../../../../common/topology/lanes'

/** What settling means for a consumer: its group, its room, and how its lane allocates. */
export interface SettleMember {
  group: string
  /**
   * `nearby`: our allocateNearby rule, exactly; `once`: every readable queue held by one member;
   * `rooms`: that, and a room's queues held in that room while the group has a member there.
   */
  rule: 'nearby' | 'once' | 'rooms'
  room?: string
}

/**
 * True when, in every consumer group, the queue-owning consumers hold what their lane's allocation
 * gives them with every member alive. Our remoting consumers must hold exactly what the nearby rule
 * gives them; the Java lanes allocate with the stock strategies, so there every readable queue of
 * the group must be held by exactly one member, and by a member of the queue's room where the lane
 * allocates by room (AllocateMachineRoomNearby): a member that started first holds the other room's
 * queues until its next rebalance sees the rest, which is not settled. POP consumers (gRPC lanes)
 * own no queues: started is settled. Groups are judged apart: each lane of a side-by-side run has
 * its own group and topic.
 */
export function consumersSettled(
  states: readonly ClientState[],
  memberOf: (id: string) => SettleMember = () => ({ group: '', rule: 'nearby' })
): boolean {
  const owners = states.filter((s) => s.assignment !== undefined && s.cid)
  const groups = new Map<string, ClientState[]>()
  for (const s of owners) {
    const g = memberOf(s.id).group
    groups.set(g, [...(groups.get(g) ?? []), s])
  }
  return [...groups.values()].every((members) => {
    const rule = memberOf(members[0]!.id).rule
    if (rule === 'nearby') return nearbySettled(members)
    return heldOnce(members) && (rule === 'once' || heldInRoom(members, memberOf))
  })
}

/** Every queue of a room the group has a member in is held by a member of that room. */
function heldInRoom(
  members: readonly ClientState[],
  memberOf: (id: string) => SettleMember
): boolean {
  const rooms = new Set(members.map((m) => memberOf(m.id).room))
  return members.every((m) =>
    m.assignment!.every(
      (q) => q.room === null || !rooms.has(q.room) || q.room === memberOf(m.id).room
    )
  )
}

function nearbySettled(members: readonly ClientState[]): boolean {
  const cids = members.map((s) => s.cid!)
  return members.every((s) => {
    const expected = allocateNearby({
      currentCid: s.cid!,
      cidAll: cids,
      queues: s.readableQueues ?? [],
      roomOf: roomOfClientId
    }).assigned.map(queueKey)
    const have = new Set(s.assignment!.map(queueKey))
    return expected.length === have.size && expected.every((k) => have.has(k))
  })
}

function heldOnce(members: readonly ClientState[]): boolean {
  const readable = new Set(members.flatMap((s) => (s.readableQueues ?? []).map(queueKey)))
  const held = members.flatMap((s) => s.assignment!.map(queueKey))
  return (
    held.length === readable.size &&
    new Set(held).size === held.length &&
    held.every((k) => readable.has(k))
  )
}

/** The settle rule of a lane's queue allocation (POP consumers hold nothing: never judged). */
const RULE_OF = { nearby: 'nearby', rooms: 'rooms', any: 'once', pop: 'once' } as const

/** Waits for consumers to settle on their rooms' queues; false when the budget ran out. */
export async function settleConsumers(ctx: RunContext): Promise<boolean> {
  const consumers = ctx.plan.clients.filter((p) => p.role === 'consumer')
  if (consumers.length === 0) return true
  const ids = consumers.map((p) => p.id)
  const members = new Map(
    consumers.map((p): [string, SettleMember] => [
      p.id,
      {
        group: ctx.plan.names.groupOf(p.group),
        rule: RULE_OF[LANE_TRAITS[p.lane].queueAllocation],
        room: p.room
      }
    ])
  )
  const memberOf = (id: string): SettleMember => members.get(id) ?? { group: id, rule: 'once' }
  const deadline = ctx.clock.now() + ctx.plan.loaded.scenario.workload.settleTimeout
  while (!ctx.signal.aborted) {
    if (consumersSettled(await ctx.fleet.states(ids), memberOf)) return true
    if (ctx.clock.now() > deadline) return false
    await pause(100, ctx.signal)
  }
  return false
}

/**
 * Unrecorded sends until each producer's broker answers fast and steadily (its last 40 sends clean,
 * at most 4 of them over a quarter of the request timeout), so JIT warm-up is not a "fault".
 */
export async function warmUpProducers(ctx: RunContext): Promise<boolean> {
  const ids = ctx.plan.clients.filter((p) => p.role === 'producer').map((p) => p.id)
  if (ids.length === 0) return true
  const { scenario } = ctx.plan.loaded
  const warmed = await ctx.fleet.warmup(ids, {
    timeoutMs: scenario.workload.warmupTimeout,
    fastMs: Math.max(20, (scenario.client.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT_MS) / 4),
    streak: 40,
    tag: WARMUP_TAG
  })
  return ids.every((id) => warmed[id])
}
