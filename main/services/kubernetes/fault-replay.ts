import type { SelectorContext } from '../export/chaos-mesh/chaos-objects'
import { windowLabel } from '../export/chaos-mesh/chaos-objects'
import type { TimelinePlan } from '../export/chaos-mesh/timeline-windows'
import type { ChaosFaults, ChaosTiming } from './chaos-faults'
import { liveChaosName, liveChaosObject } from './chaos-faults'

/** One replayed fault: when it was due, and when it took effect and healed (engine clock, ms from t0). */
export interface ReplayedFault {
  label: string
  object: string
  dueMs: number
  /** Due heal; null for a one-shot pod-kill (healed as soon as it took effect). */
  healDueMs: number | null
  injected?: ChaosTiming
  healed?: ChaosTiming
  error?: string
}

export interface FaultReplayDeps {
  faults: ChaosFaults
  now(): number
  /** Resolves after `ms`, or at once when the signal aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>
}

/**
 * Plays a scenario's fault timeline on a cluster as Chaos Mesh objects, each at its time from
 * t0: applied at its start, deleted at its end (a pod-kill right after it took effect). Faults
 * run side by side; a stop (the signal) heals every fault in effect before returning. Every
 * fault's outcome is returned, failed ones with their error.
 */
export async function replayFaults(input: {
  deps: FaultReplayDeps
  runId: string
  ctx: SelectorContext
  plan: TimelinePlan
  /** Per fault, to take effect and to heal. */
  timeoutMs: number
  signal?: AbortSignal
  onFault?(fault: ReplayedFault, phase: 'injected' | 'healed' | 'failed'): void
}): Promise<ReplayedFault[]> {
  const { deps, plan } = input
  const t0 = deps.now()
  const at = (ms: number) => Math.max(0, t0 + ms - deps.now())
  const relative = (t: ChaosTiming): ChaosTiming => ({
    ...t,
    requestedAt: t.requestedAt - t0,
    observedAt: t.observedAt - t0
  })
  const results = plan.windows.map((w, i) => {
    const name = liveChaosName(input.runId, i, w)
    return {
      window: w,
      object: liveChaosObject(input.ctx, w, name),
      fault: {
        label: windowLabel(w),
        object: name,
        dueMs: w.startMs,
        healDueMs: w.kind === 'pod-kill' ? null : w.endMs
      } as ReplayedFault
    }
  })
  await Promise.all(
    results.map(async ({ window, object, fault }) => {
      await deps.sleep(at(window.startMs), input.signal)
      if (input.signal?.aborted) return
      try {
        fault.injected = relative(
          await input.deps.faults.inject({
            runId: input.runId,
            object,
            timeoutMs: input.timeoutMs,
            ...(input.signal ? { signal: input.signal } : {})
          })
        )
        input.onFault?.(fault, 'injected')
        if (window.kind !== 'pod-kill') await deps.sleep(at(window.endMs), input.signal)
        fault.healed = relative(
          await input.deps.faults.heal({ object, timeoutMs: input.timeoutMs })
        )
        input.onFault?.(fault, 'healed')
      } catch (e) {
        fault.error = (e as Error).message
        input.onFault?.(fault, 'failed')
      }
    })
  )
  return results.map((r) => r.fault)
}
