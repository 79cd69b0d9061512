import { join } from 'node:path'
import type { LoadedScenario } from '../../../common/scenario/run-plan'
import type { ScenarioReport } from '../../../common/scenario/schema'
import { isNetworkStep } from '../../../common/scenario/schema'
import { systemClock } from '../clients/room-aware/ports'
import type { Run } from '../engine/run/run'
import { runScenario } from '../engine/scenario-driver'
import { configuredBase } from '../export/chaos-mesh/timeline-windows'
import type { Recorder } from '../ledger/recorder'
import type { RunMetrics } from '../metrics/run-metrics'
import type { KubernetesTargetOptions, Out, StopSignal } from './deployed-topology'
import {
  chaosMeshServed,
  INTERRUPTED,
  newRunId,
  onDeployedTopology,
  thisEngine,
  withNamespace
} from './deployed-topology'
import { openKubeRun } from './kube-run'

/** Whether the run creates Chaos Mesh objects: a network step, or a configured room link. */
function usesChaosMesh(loaded: LoadedScenario): boolean {
  return (
    loaded.scenario.timeline.some((step) => isNetworkStep(step)) ||
    configuredBase(loaded.topology).size > 0
  )
}

/** A scenario run on Kubernetes: where, how long, and what watches it. */
export interface KubernetesScenarioOptions extends KubernetesTargetOptions {
  readyTimeoutS?: number
  faultTimeoutS?: number
  /** The run's worker logs go under `<logRoot>/kubernetes/<run>/`. */
  logRoot: string
  recorder: Recorder
  metrics?: RunMetrics
  /** Compute throttled live figures (the app's canvas draws them). */
  liveMetrics?: boolean
  /** Called with the run once it is open: subscribe to its events here. */
  onOpen?: (run: Run) => void
}

/** A Kubernetes run's outcome: the report, or why there is none, and the exit code. */
export type KubernetesScenarioOutcome =
  { kind: 'ran'; report: ScenarioReport } | { kind: 'not-run'; error: string; code: number }

/**
 * One scenario on a Kubernetes cluster: its topology deployed and labelled with a new run, the
 * scenario run there with the same phases, gates, ledger and report as on this machine (room
 * workers over attach, node faults through exec and the scale subresource, network faults as Chaos
 * Mesh objects), and the run deleted afterwards whatever happened. `log` gets the deployment's and
 * the run's progress; `stop` ends it early (the run is cancelled, the deployment still removed).
 * The one path for the CLI's `scenario run --on kubernetes` and the app's Kubernetes target.
 */
export async function runScenarioOnKubernetes(
  loaded: LoadedScenario,
  options: KubernetesScenarioOptions,
  log: Out,
  stop: StopSignal
): Promise<KubernetesScenarioOutcome> {
  const topology = withNamespace(loaded.topology, options.namespace)
  const scenario = { ...loaded, topology }
  let report: ScenarioReport | undefined
  let failure: string | undefined
  const cannot = (why: string) =>
    `scenario ${loaded.scenario.name} could not run on Kubernetes${why ? `: ${why}` : ' (see above)'}`
  try {
    const code = await onDeployedTopology(
      topology,
      options,
      log,
      stop,
      async (run) => {
        const kube = await openKubeRun({
          endpoint: run.context.endpoint,
          namespace: run.namespace,
          runId: run.runId,
          topology,
          engine: thisEngine(),
          recorder: options.recorder,
          clock: systemClock,
          logDir: join(options.logRoot, 'kubernetes', run.runId),
          faultTimeoutMs: (options.faultTimeoutS ?? 60) * 1000
        })
        // When each Chaos Mesh object took effect or healed, by this machine's clock (also in
        // the ledger as chaos-object events).
        const unwatch = kube.cluster.watch({
          chaos: (e) =>
            log.write(
              `  chaos    ${e.label} ${e.phase} ${e.observedAt - e.requestedAt} ms after it was asked for (first seen then; it happened in the ${e.boundMs} ms before), ${e.object}\n`
            )
        })
        try {
          report = await runScenario(
            { ...kube.deps, ...(options.metrics ? { metrics: options.metrics } : {}) },
            scenario,
            {
              signal: run.signal,
              ...(options.liveMetrics ? { liveMetrics: true } : {}),
              ...(options.onOpen ? { onOpen: options.onOpen } : {})
            }
          )
          return 0
        } catch (e) {
          failure = (e as Error).message
          return run.signal.aborted ? INTERRUPTED : 1
        } finally {
          unwatch()
          await kube.close()
        }
      },
      // Network faults and configured room links are Chaos Mesh objects: refuse a cluster
      // without it before anything is created.
      {
        runId: newRunId(),
        ...(usesChaosMesh(scenario) ? { preflight: chaosMeshServed } : {})
      }
    )
    // The teardown's own errors are printed above; a run that reported keeps its verdict.
    if (report) return { kind: 'ran', report }
    return {
      kind: 'not-run',
      code,
      error:
        code === INTERRUPTED
          ? `scenario ${loaded.scenario.name} was stopped on Kubernetes`
          : cannot(failure ?? '')
    }
  } catch (e) {
    // The kubeconfig, the preflight or the sweep: nothing was created.
    return { kind: 'not-run', code: 2, error: cannot((e as Error).message) }
  }
}
