import { allocateNearby, queueKey } from '../../clients/room-aware/allocate-nearby'
import { roomOfClientId } from '../../clients/room-aware/client-id'
import type { ClientState } from '../../workers/protocol'
import type { RunContext } from './run-context'
import { pause } from './run-context'
import { WARMUP_TAG } from './setup'

/**
 * True when every queue-owning consumer owns exactly what the nearby rule gives it with every
 * consumer alive. POP consumers (gRPC lanes) own no queues: started is settled.
 */
export function consumersSettled(states: readonly ClientState[]): boolean {
  const owners = states.filter((s) => s.assignment !== undefined && s.cid)
  const cids = owners.map((s) => s.cid!)
  return owners.every((s) => {
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

/** Waits for consumers to settle on their rooms' queues; false when the budget ran out. */
export async function settleConsumers(ctx: RunContext): Promise<boolean> {
  const ids = ctx.plans.filter((p) => p.role === 'consumer').map((p) => p.id)
  if (ids.length === 0) return true
  const deadline = ctx.clock.now() + ctx.loaded.scenario.workload.settleTimeout
  while (!ctx.signal.aborted) {
    if (consumersSettled(await ctx.fleet.states(ids))) return true
    if (ctx.clock.now() > deadline) return false
    await pause(100, ctx.signal)
  }
  return false
}

/**
 * Unrecorded sends until each producer's broker answers fast and steadily (40 sends in a row under
 * a quarter of the request timeout, nothing isolated), so JIT warm-up is not a "fault".
 */
export async function warmUpProducers(ctx: RunContext): Promise<boolean> {
  const ids = ctx.plans.filter((p) => p.role === 'producer').map((p) => p.id)
  if (ids.length === 0) return true
  const { scenario } = ctx.loaded
  const warmed = await ctx.fleet.warmup(ids, {
    timeoutMs: scenario.workload.warmupTimeout,
    fastMs: Math.max(20, scenario.client.requestTimeout / 4),
    streak: 40,
    tag: WARMUP_TAG
  })
  return ids.every((id) => warmed[id])
}
