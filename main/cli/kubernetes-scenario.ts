import { join } from 'node:path'
import type { LoadedScenario } from '../../common/scenario/run-plan'
import type { ScenarioReport } from '../../common/scenario/schema'
import { isNetworkStep } from '../../common/scenario/schema'
import { systemClock } from '../services/clients/room-aware/ports'
import { runScenario } from '../services/engine/scenario-driver'
import { defaultDataDir } from '../services/ledger/data-dir'
import { openDatabase, Recorder } from '../services/ledger/recorder'
import type { RunMetrics } from '../services/metrics/run-metrics'
import { configuredBase } from '../services/export/chaos-mesh/timeline-windows'
import { openKubeRun } from '../services/kubernetes/kube-run'
import { chaosMeshServed } from './kubernetes-commands'
import type { KubernetesTargetOptions, Out } from './kubernetes-target'
import {
  INTERRUPTED,
  newRunId,
  onDeployedTopology,
  processStopSignal,
  thisEngine,
  withNamespace
} from './kubernetes-target'

/** Whether the run creates Chaos Mesh objects: a network step, or a configured room link. */
function usesChaosMesh(loaded: LoadedScenario): boolean {
  return (
    loaded.scenario.timeline.some((step) => isNetworkStep(step)) ||
    configuredBase(loaded.topology).size > 0
  )
}

/** `scenario run --on kubernetes`: where and how long. */
export interface KubernetesScenarioOptions extends KubernetesTargetOptions {
  readyTimeoutS?: number
  faultTimeoutS?: number
  dataDir?: string
  metrics?: RunMetrics
}

/** A Kubernetes run's outcome: the report, or why there is none, and the command's exit code. */
export type KubernetesScenarioOutcome =
  { kind: 'ran'; report: ScenarioReport } | { kind: 'not-run'; error: string; code: number }

/**
 * One scenario on a Kubernetes cluster: its topology deployed and labelled with a new run, the
 * scenario run there with the same phases, gates, ledger and report as on this machine (room
 * workers over attach, node faults through exec and the scale subresource, network faults as Chaos
 * Mesh objects), and the run deleted afterwards whatever happened.
 */
export async function runScenarioOnKubernetes(
  loaded: LoadedScenario,
  options: KubernetesScenarioOptions,
  log: Out
): Promise<KubernetesScenarioOutcome> {
  const topology = withNamespace(loaded.topology, options.namespace)
  const scenario = { ...loaded, topology }
  const dataDir = options.dataDir ?? defaultDataDir()
  const recorder = new Recorder(openDatabase(join(dataDir, 'drstudio.db')))
  let report: ScenarioReport | undefined
  let failure: string | undefined
  const cannot = (why: string) =>
    `scenario ${loaded.scenario.name} could not run on Kubernetes${why ? `: ${why}` : ' (see above)'}`
  try {
    const code = await onDeployedTopology(
      topology,
      options,
      log,
      processStopSignal(log),
      async (run) => {
        const kube = await openKubeRun({
          endpoint: run.context.endpoint,
          namespace: run.namespace,
          runId: run.runId,
          topology,
          engine: thisEngine(),
          recorder,
          clock: systemClock,
          logDir: join(dataDir, 'kubernetes', run.runId),
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
              onOpen: (r) =>
                r.on('progress', (p) => log.write(`  ${p.phase.padEnd(8)} ${p.message}\n`))
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
  } finally {
    recorder.close()
  }
}
