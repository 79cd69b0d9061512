import { delayOf, orderKeysOf, transactionSharesOf } from '../../../../common/scenario/schema'
import type { SkippedSends, WorkloadProducer } from '../../worker-wire/protocol'
import type { RunContext } from './run-context'
import { WORKLOAD_TAG } from './setup'

/** Outstanding sends per producer above which scheduled sends are skipped (and counted). */
export const MAX_INFLIGHT = 5000

export interface WorkloadResult {
  t0: number
  tEnd: number
  /** Per producer: scheduled slots the workers saw, and sends they skipped, by reason. */
  scheduled: Record<string, number>
  skipped: Record<string, SkippedSends>
}

/** Scheduled slots of a producer between t0 and the end of the workload (the open-loop plan). */
export function expectedSlots(rate: number, offsetMs: number, durationMs: number): number {
  if (durationMs <= offsetMs) return 0
  return Math.ceil(((durationMs - offsetMs) * rate) / 1000)
}

/** Each producer's part of the schedule, phase-shifted so producers do not fire in lockstep. */
export function scheduleOf(ctx: RunContext): WorkloadProducer[] {
  const producers = ctx.plan.clients.filter((p) => p.role === 'producer')
  const { workload } = ctx.plan.loaded.scenario
  const delayMs = delayOf(workload)
  const orderKeys = orderKeysOf(workload)
  const transaction = transactionSharesOf(workload)
  return producers.map((p, i) => ({
    id: p.id,
    rate: p.rate,
    messageSize: p.messageSize,
    offsetMs: (i * 1000) / p.rate / producers.length,
    ...(delayMs > 0 ? { delayMs } : {}),
    ...(orderKeys > 0 ? { orderKeys } : {}),
    ...(transaction ? { transaction } : {})
  }))
}

/** A workload under way: when it began, when it ends (null: when the run finishes), its plan. */
export interface StartedWorkload {
  t0: number
  end: number | null
  schedule: WorkloadProducer[]
}

/**
 * Starts the open-loop schedule in every worker from t0 (a short lead away, so every worker has the
 * start before its first slot is due); it runs for `durationMs`, or until stopped when null.
 */
export async function startWorkload(
  ctx: RunContext,
  durationMs: number | null
): Promise<StartedWorkload> {
  const t0 = ctx.clock.now() + 50
  const end = durationMs === null ? null : t0 + durationMs
  const schedule = scheduleOf(ctx)
  await ctx.fleet.startWorkload({
    t0,
    end,
    producers: schedule,
    maxInflight: MAX_INFLIGHT,
    tag: WORKLOAD_TAG
  })
  return { t0, end, schedule }
}

/**
 * Stops the schedule and collects what every producer was asked to send and skipped. In-flight
 * sends get the send timeout to finish first.
 */
export async function stopWorkload(
  ctx: RunContext,
  started: StartedWorkload
): Promise<WorkloadResult> {
  const tEnd = ctx.clock.now()
  const counts = await ctx.fleet.stopWorkload(ctx.plan.loaded.scenario.client.sendTimeout + 2000)
  const end = started.end === null ? tEnd : Math.min(started.end, tEnd)
  // A worker that died took its counts along: its producers' plan is known from rate and time.
  for (const p of started.schedule) {
    counts.scheduled[p.id] ??= expectedSlots(p.rate, p.offsetMs, end - started.t0)
  }
  return { t0: started.t0, tEnd, ...counts }
}
