import type { LoadedScenario } from '../../../common/scenario/run-plan'
import type { ScenarioReport } from '../../../common/scenario/schema'
import { pause } from './run/run-context'
import { faultOfStep } from './run/fault'
import type { RunDeps } from './run/run'
import { Run, RunCancelledError } from './run/run'

export interface ScenarioDriverOptions {
  /** Aborting it cancels the run (no report). */
  signal?: AbortSignal
  /** On an attached cluster: the user allowed DR Studio to create the run's topic. */
  createTopic?: boolean
  /** Compute throttled live figures (the app's canvas draws them). */
  liveMetrics?: boolean
  /** Called with the run once it is open, before anything runs: subscribe to its events here. */
  onOpen?: (run: Run) => void
}

/**
 * The headless driver: runs one scenario against a running deployment. It opens a run, starts it
 * for the scenario's duration, feeds the timeline's steps to the run at their times, and finishes
 * it when the duration ends (or the abort block stops the workload). Resolves with the report;
 * rejects when the run could not be made (its row then says why) or was cancelled.
 */
export async function runScenario(
  deps: RunDeps,
  loaded: LoadedScenario,
  opts: ScenarioDriverOptions = {}
): Promise<ScenarioReport> {
  const run = Run.open(deps, {
    loaded,
    kind: 'scenario',
    ...(opts.createTopic !== undefined ? { createTopic: opts.createTopic } : {}),
    ...(opts.liveMetrics ? { liveMetrics: true } : {})
  })
  opts.onOpen?.(run)
  const cancel = (): void => void run.cancel('the run was cancelled')
  if (opts.signal?.aborted) cancel()
  opts.signal?.addEventListener('abort', cancel, { once: true })
  try {
    try {
      await run.start({ durationMs: loaded.scenario.workload.duration })
    } catch (e) {
      if (!(e instanceof RunCancelledError)) await run.fail(e as Error)
      throw e
    }
    await playTimeline(run, deps)
    return await run.finish()
  } finally {
    opts.signal?.removeEventListener('abort', cancel)
  }
}

/**
 * The timeline's steps at their times from the workload start, until the duration ends, the abort
 * block stops the workload or the run is cancelled; steps not due by then are not applied.
 */
async function playTimeline(run: Run, deps: Pick<RunDeps, 'clock'>): Promise<void> {
  const { timeline, workload } = run.plan.loaded.scenario
  const { clock } = deps
  const ended = new AbortController()
  const signal = AbortSignal.any([run.signal, ended.signal])
  const steps = timeline.map(async (step) => {
    await pause(run.t0 + step.at - clock.now(), signal)
    if (!signal.aborted) await run.applyFault(faultOfStep(step), 'timeline')
  })
  await Promise.race([
    pause(run.t0 + workload.duration - clock.now(), signal),
    run.workloadStopped,
    new Promise((r) => signal.addEventListener('abort', r, { once: true }))
  ])
  ended.abort()
  await Promise.allSettled(steps)
}
