import type { SelectorContext } from '../export/chaos-mesh/chaos-objects'
import { windowLabel } from '../export/chaos-mesh/chaos-objects'
import type { ChaosWindow, TimelinePlan } from '../export/chaos-mesh/timeline-windows'
import type { ChaosFaults, ChaosTiming } from './chaos-faults'
import { liveChaosName, liveChaosObject } from './chaos-faults'
import type { KubeObject } from './kube-api'

/** A fault window of the timeline with the object that plays it. */
export interface PlannedFault {
  window: ChaosWindow
  object: KubeObject
  label: string
}

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

/** Every window as its object; throws before anything runs if Chaos Mesh would refuse one. */
export function planFaults(
  ctx: SelectorContext,
  plan: TimelinePlan,
  runId: string
): PlannedFault[] {
  return plan.windows.map((window, i) => ({
    window,
    object: liveChaosObject(ctx, window, liveChaosName(runId, i, window), runId),
    label: windowLabel(window)
  }))
}

/**
 * What a window acts on: a pair, an isolated endpoint, or a pod. Windows of one key play one
 * after another: the next is created only once the previous has healed, since two Chaos Mesh
 * objects on the same pods overwrite each other (chaos-mesh#3631).
 */
function keyOf(w: ChaosWindow): string {
  if (w.kind !== 'network') return `pod:${[...w.nodes].sort().join(',')}`
  const c = w.chaos
  return c.action === 'isolate' ? `isolate:${c.target}` : `pair:${[c.from, c.to].sort().join(',')}`
}

/**
 * Plays a scenario's faults on a cluster as Chaos Mesh objects, each at its time from t0 (or
 * once the previous fault on the same pods has healed): created at its start, deleted at its end
 * (a pod-kill right after it took effect). A stop (the signal) heals every fault in effect and
 * plays no more. Every fault's outcome is returned; one never started has neither timing nor error.
 */
export async function replayFaults(input: {
  deps: FaultReplayDeps
  runId: string
  faults: PlannedFault[]
  /** Per fault, to take effect and to heal. */
  timeoutMs: number
  signal?: AbortSignal
  onFault?(fault: ReplayedFault, phase: 'injected' | 'healed' | 'failed'): void
}): Promise<ReplayedFault[]> {
  const { deps } = input
  const t0 = deps.now()
  const until = (ms: number) => Math.max(0, t0 + ms - deps.now())
  const relative = (t: ChaosTiming): ChaosTiming => ({
    ...t,
    requestedAt: t.requestedAt - t0,
    observedAt: t.observedAt - t0
  })
  const previous = new Map<string, Promise<void>>()
  const results = input.faults.map(({ window, object, label }) => {
    const fault: ReplayedFault = {
      label,
      object: object.metadata.name,
      dueMs: window.startMs,
      healDueMs: window.kind === 'pod-kill' ? null : window.endMs
    }
    const key = keyOf(window)
    const after = previous.get(key) ?? Promise.resolve()
    const played = (async () => {
      await after
      await deps.sleep(until(window.startMs), input.signal)
      if (input.signal?.aborted) return
      try {
        fault.injected = relative(
          await deps.faults.inject({
            runId: input.runId,
            object,
            timeoutMs: input.timeoutMs,
            ...(input.signal ? { signal: input.signal } : {})
          })
        )
        input.onFault?.(fault, 'injected')
        if (window.kind !== 'pod-kill') await deps.sleep(until(window.endMs), input.signal)
        fault.healed = relative(await deps.faults.heal({ object, timeoutMs: input.timeoutMs }))
        input.onFault?.(fault, 'healed')
      } catch (e) {
        fault.error = (e as Error).message
        input.onFault?.(fault, 'failed')
      }
    })()
    previous.set(key, played)
    return { fault, played }
  })
  await Promise.all(results.map((r) => r.played))
  return results.map((r) => r.fault)
}
