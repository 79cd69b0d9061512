import type { SkippedSends, WorkloadProducer } from '../../workers/protocol'
import type { RunContext } from './run-context'
import { pause } from './run-context'
import { WORKLOAD_TAG } from './setup'
import { applyStep } from './timeline'

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
  const producers = ctx.plans.filter((p) => p.role === 'producer')
  return producers.map((p, i) => ({
    id: p.id,
    rate: p.rate,
    messageSize: p.messageSize,
    offsetMs: (i * 1000) / p.rate / producers.length
  }))
}

/**
 * The workload: the open-loop schedule in every worker from t0, the timeline's steps at their
 * times, until `duration` passes or `until` resolves (an interactive session's Stop). In-flight
 * sends get the send timeout to finish before the schedule's counts are collected.
 */
export async function runWorkload(
  ctx: RunContext,
  opts: { duration: number | null; until?: Promise<unknown>; onStart?: (t0: number) => void }
): Promise<WorkloadResult> {
  const { clock, signal, fleet, loaded } = ctx
  // A short lead, so every worker has the start before its first slot is due.
  const t0 = clock.now() + 50
  const end = opts.duration === null ? null : t0 + opts.duration
  const schedule = scheduleOf(ctx)
  await fleet.startWorkload({
    t0,
    end,
    producers: schedule,
    maxInflight: MAX_INFLIGHT,
    tag: WORKLOAD_TAG
  })
  opts.onStart?.(t0)
  const steps = loaded.scenario.timeline.map(async (step) => {
    await pause(t0 + step.at - clock.now(), signal)
    if (signal.aborted) return
    await applyStep(ctx, step, t0)
  })
  const waits: Promise<unknown>[] = []
  if (end !== null) waits.push(pause(end - clock.now(), signal))
  if (opts.until) waits.push(opts.until)
  waits.push(new Promise((r) => signal.addEventListener('abort', r, { once: true })))
  await Promise.race(waits)
  await Promise.allSettled(steps)
  const tEnd = clock.now()
  const counts = await fleet.stopWorkload(loaded.scenario.client.sendTimeout + 2000)
  // A worker that died took its counts along: its producers' plan is known from rate and time.
  for (const p of schedule) {
    counts.scheduled[p.id] ??= expectedSlots(p.rate, p.offsetMs, (end ?? tEnd) - t0)
  }
  return { t0, tEnd, ...counts }
}
