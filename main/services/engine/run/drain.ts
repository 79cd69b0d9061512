import type { RunContext } from './run-context'
import { pause } from './run-context'

export interface DrainResult {
  /** Acknowledged messages still unconsumed when the drain ended (0 = drained). */
  left: number
  /** When the last acknowledged message had been consumed; null when the drain timed out. */
  drainedAt: number | null
  /** Deliveries in the grace period after the drain (late redeliveries, all duplicates). */
  lateDeliveries: number
  graceMs: number
  tEnd: number
}

/**
 * Waits until every acknowledged message is consumed, then keeps consumers running for a grace
 * period so redeliveries that arrive late are counted too: duplicates taken the moment the drain
 * condition held are only a lower bound. Nodes are restored before it (Run.finish), so a backlog
 * stuck on a killed broker drains once that broker is back.
 */
export async function drain(
  ctx: RunContext,
  opts: { timeoutMs: number; graceMs: number }
): Promise<DrainResult> {
  const { clock, ledger, reader, signal } = ctx
  const { runId } = ctx.plan
  await restartConsumersIfNoneAlive(ctx)
  ctx.progress('drain', 'waiting until every acknowledged message is consumed')
  const started = clock.now()
  const deadline = started + opts.timeoutMs
  let left = Infinity
  while (!signal.aborted) {
    ledger.flush()
    left = reader.unconsumedCount(runId)
    if (left === 0 || clock.now() > deadline) break
    await pause(200, signal)
  }
  if (left > 0) {
    ctx.notes.push(`drain timed out after ${opts.timeoutMs} ms with ${left} messages unconsumed`)
    return { left, drainedAt: null, lateDeliveries: 0, graceMs: opts.graceMs, tEnd: clock.now() }
  }
  const drainedAt = clock.now()
  if (opts.graceMs > 0) {
    ctx.progress('drain', `drained; counting late redeliveries for ${opts.graceMs} ms`)
    await pause(opts.graceMs, signal)
  }
  ledger.flush()
  return {
    left,
    drainedAt,
    lateDeliveries: reader.deliveriesSince(runId, drainedAt),
    graceMs: opts.graceMs,
    tEnd: clock.now()
  }
}

/** A run whose consumers all crashed cannot drain: start them again, and say so. */
async function restartConsumersIfNoneAlive(ctx: RunContext): Promise<void> {
  const consumers = ctx.plan.clients.filter((p) => p.role === 'consumer')
  if (consumers.length === 0 || consumers.some((c) => ctx.fleet.isAlive(c.id))) return
  ctx.notes.push('no consumer was alive after the workload; restarted them to drain')
  const budget = Math.max(15_000, ctx.plan.loaded.scenario.workload.settleTimeout)
  for (const c of consumers) {
    await ctx.fleet
      .restart(c.id, budget)
      .catch((e: Error) => ctx.notes.push(`${c.id}: ${e.message}`))
  }
}
