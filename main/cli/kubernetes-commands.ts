import { loadTopology } from '../services/documents/documents'
import { pause } from '../services/clients/room-aware/ports'
import { planTimeline } from '../services/export/chaos-mesh/timeline-windows'
import { kubernetesObjectFiles } from '../services/export/kubernetes/render-kubernetes'
import { CHAOS_API, ChaosFaults } from '../services/kubernetes/chaos-faults'
import type { KubeApi } from '../services/kubernetes/kube-api'
import { KubeApiError } from '../services/kubernetes/kube-api'
import type { KubeContext } from '../services/kubernetes/kubeconfig'
import { planFaults, replayFaults, type ReplayedFault } from '../services/kubernetes/fault-replay'
import { KubeHttp } from '../services/kubernetes/kube-http'
import { loadScenarioFile } from '../services/scenario/load-scenario'
import type { DeployedRun, KubernetesTargetOptions, Out, StopSignal } from './kubernetes-target'
import {
  clusterDeployment,
  INTERRUPTED,
  newRunId,
  onDeployedTopology,
  openContext,
  printer,
  processStopSignal,
  thisEngine,
  withNamespace
} from './kubernetes-target'

export type { KubernetesTargetOptions } from './kubernetes-target'

/**
 * `drstudio kubernetes up <topology>`: the topology on the cluster until Ctrl-C, then deletes
 * exactly what it created.
 */
export async function runKubernetesUp(
  file: string,
  options: KubernetesTargetOptions & { readyTimeoutS?: number },
  out: Out = process.stdout,
  stop?: StopSignal
): Promise<number> {
  const topology = withNamespace(loadTopology(file), options.namespace)
  const signal = stop ?? processStopSignal(out)
  return onDeployedTopology(topology, options, out, signal, async ({ stopped }) => {
    await stopped
    return 0
  })
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`

function faultLine(f: ReplayedFault, phase: 'injected' | 'healed' | 'failed'): string {
  if (phase === 'failed') return `${f.label} failed: ${f.error}`
  const t = phase === 'injected' ? f.injected! : f.healed!
  const due = phase === 'injected' ? f.dueMs : (f.healDueMs ?? f.dueMs)
  return `${f.label} ${phase} at ${seconds(t.observedAt)} (due ${seconds(due)}, within the ${t.boundMs.toFixed(0)} ms before)`
}

/**
 * `drstudio kubernetes play <scenario>`: deploys the scenario's topology, plays its fault
 * timeline as Chaos Mesh objects at their times, prints when each took effect and healed by this
 * machine's clock, and removes everything. No workload and no verdict yet: a game day's faults,
 * timed.
 */
export async function runKubernetesPlay(
  file: string,
  options: KubernetesTargetOptions & { readyTimeoutS?: number; faultTimeoutS?: number },
  out: Out = process.stdout,
  stop?: StopSignal
): Promise<number> {
  const loaded = loadScenarioFile(file)
  const topology = withNamespace(loaded.topology, options.namespace)
  const plan = planTimeline(loaded.scenario, topology)
  const { namespace } = kubernetesObjectFiles(topology)
  const runId = newRunId()
  const ctx = { namespace, rooms: new Set(topology.rooms.map((r) => r.id)) }
  // Every fault's object is built (and checked against the webhook's rules) before anything runs.
  const faults = planFaults(ctx, plan, runId)
  for (const n of plan.notes) {
    out.write(`  not played at ${seconds(n.atMs)}: ${n.step} (${n.instead})\n`)
  }
  const signal = stop ?? processStopSignal(out)
  const body = async (run: DeployedRun): Promise<number> => {
    const chaos = new ChaosFaults({
      api: new KubeHttp(run.context.endpoint),
      engine: thisEngine(),
      now: () => Date.now(),
      sleep: pause
    })
    out.write(`playing ${faults.length} fault(s) over ${seconds(plan.endMs)}\n`)
    const t0 = Date.now()
    const played = await replayFaults({
      deps: { faults: chaos, now: () => Date.now(), sleep: pause },
      runId,
      faults,
      timeoutMs: (options.faultTimeoutS ?? 60) * 1000,
      signal: run.signal,
      onFault: (f, phase) => out.write(`  fault    ${faultLine(f, phase)}\n`)
    })
    await pause(Math.max(0, t0 + plan.endMs - Date.now()), run.signal)
    for (const f of played.filter((p) => !p.injected && !p.error)) {
      out.write(`  fault    ${f.label} not played (stopped)\n`)
    }
    const healed = played.filter((f) => f.healed).length
    out.write(`${healed} of ${played.length} fault(s) took effect and healed\n`)
    if (run.signal.aborted) return INTERRUPTED
    return healed === played.length ? 0 : 1
  }
  return onDeployedTopology(topology, options, out, signal, body, {
    runId,
    preflight: faults.length ? chaosMeshServed : undefined
  })
}

/** Refuses a cluster without Chaos Mesh before anything is created. */
async function chaosMeshServed(api: KubeApi, context: KubeContext): Promise<void> {
  try {
    await api.list({ apiVersion: CHAOS_API, kind: 'NetworkChaos' }, null, '')
  } catch (e) {
    if (e instanceof KubeApiError && e.status === 404) {
      throw new Error(
        `context ${context.name} does not serve ${CHAOS_API} (Chaos Mesh is not installed): install Chaos Mesh 2.8 or later (docs/kubernetes.md, Prerequisites)`
      )
    }
    throw e
  }
}

/** `drstudio kubernetes sweep <topology>`: removes the namespace's runs whose engine died here. */
export async function runKubernetesSweep(
  file: string,
  options: KubernetesTargetOptions,
  out: Out = process.stdout
): Promise<number> {
  const topology = withNamespace(loadTopology(file), options.namespace)
  const { namespace } = kubernetesObjectFiles(topology)
  const deployment = clusterDeployment(openContext(options))
  const { swept, kept } = await deployment.sweep({
    namespace,
    timeoutMs: 120_000,
    onProgress: printer(out)
  })
  out.write(
    `${swept.length ? `removed runs ${swept.join(', ')}` : 'nothing to remove'}${kept.length ? `; left: ${kept.join(', ')}` : ''}\n`
  )
  return 0
}
