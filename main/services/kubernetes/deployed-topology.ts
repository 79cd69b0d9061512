import { randomBytes } from 'node:crypto'
import { setMaxListeners } from 'node:events'
import { readFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { DNS_LABEL } from '../../../common/topology/kubernetes-settings'
import type { Topology } from '../../../common/topology/schema'
import { pause } from '../clients/room-aware/ports'
import { kubernetesObjectFiles } from '../export/kubernetes/render-kubernetes'
import { ClusterDeployment, type DeployProgress } from './cluster-deployment'
import type { KubeApi, KubeObject } from './kube-api'
import { KubeApiError } from './kube-api'
import { CHAOS_API } from './chaos-faults'
import { KubeHttp } from './kube-http'
import { kubeconfigPath, resolveContext, type KubeContext } from './kubeconfig'
import { engineAliveOn, engineIdentity } from './run-labels'
import { isPidAlive } from '../pid-alive'

export type Out = { write(s: string): unknown }

export interface KubernetesTargetOptions {
  kubeconfig?: string
  context?: string
  namespace?: string
}

/** Ctrl-C (or SIGTERM) as a promise, and what a further one does while the run is removed. */
export interface StopSignal {
  stopped: Promise<void>
  /** Removes the handlers once the command is done. */
  dispose(): void
}

/** The topology with `--namespace` in place of its own, so every in-cluster address follows. */
export function withNamespace(topology: Topology, namespace: string | undefined): Topology {
  if (namespace === undefined) return topology
  if (!DNS_LABEL.test(namespace)) {
    throw new Error(
      `--namespace ${namespace}: not a Kubernetes namespace name (lower case letters, digits and -, at most 63, starting and ending alphanumeric)`
    )
  }
  const settings = topology.settings
  return {
    ...topology,
    settings: { ...settings, kubernetes: { ...settings.kubernetes, namespace } }
  }
}

export function openContext(options: KubernetesTargetOptions): KubeContext {
  const file = kubeconfigPath(options.kubeconfig)
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (e) {
    throw new Error(
      `${file}: cannot read the kubeconfig (${(e as Error).message}); point --kubeconfig or KUBECONFIG at one`
    )
  }
  return resolveContext(text, file, options.context)
}

/** This process as the engine a run's objects name. */
export const thisEngine = (): string => engineIdentity(hostname(), process.pid)

export function clusterDeployment(context: KubeContext): ClusterDeployment {
  const engine = thisEngine()
  return new ClusterDeployment({
    api: new KubeHttp(context.endpoint),
    engine,
    isEngineAlive: engineAliveOn(engine.slice(0, engine.lastIndexOf('/')), isPidAlive),
    now: () => Date.now(),
    sleep: pause
  })
}

export function printer(out: Out): (p: DeployProgress) => void {
  return (p) => out.write(`  ${p.phase.padEnd(8)} ${p.message}\n`)
}

/** A label-safe run id: time and a random tail. */
export function newRunId(): string {
  return `r${Date.now().toString(36)}${randomBytes(3).toString('hex')}`
}

/** What a body running on a deployed topology gets. */
export interface DeployedRun {
  runId: string
  namespace: string
  context: KubeContext
  /** Aborted at the stop signal. */
  signal: AbortSignal
  stopped: Promise<void>
}

/** Exit code of a command stopped before its work was done (128 + SIGINT). */
export const INTERRUPTED = 130

/** What a command can settle before anything is created. */
export interface RunSetup {
  /** The run id to use (a command that names objects after it beforehand); default a new one. */
  runId?: string
  /** Checks against the cluster before the sweep and the deploy; throwing stops the command. */
  preflight?(api: KubeApi, context: KubeContext): Promise<void>
}

/**
 * Sweeps runs of dead engines from the namespace, creates the topology's objects labelled with a
 * new run, waits until every pod is ready (with progress), runs `body`, then deletes exactly what
 * the run created, whatever happened. Exit code: the body's; 130 when stopped before the body
 * ended; 1 when a step failed or anything outlived the teardown.
 */
export async function onDeployedTopology(
  topology: Topology,
  options: KubernetesTargetOptions & { readyTimeoutS?: number },
  out: Out,
  stop: StopSignal,
  body: (run: DeployedRun) => Promise<number>,
  setup: RunSetup = {}
): Promise<number> {
  try {
    const { namespace } = kubernetesObjectFiles(topology)
    const context = openContext(options)
    const runId = setup.runId ?? newRunId()
    out.write(
      `context ${context.name} (${context.endpoint.server}), namespace ${namespace}, run ${runId}\n`
    )
    await setup.preflight?.(new KubeHttp(context.endpoint), context)
    const deployment = clusterDeployment(context)
    const { swept } = await deployment.sweep({
      namespace,
      timeoutMs: 60_000,
      onProgress: printer(out)
    })
    if (swept.length) out.write(`swept runs of engines that are gone: ${swept.join(', ')}\n`)
    return await deployAndRun({ topology, options, out, stop, body, context, deployment, runId })
  } finally {
    stop.dispose()
  }
}

async function deployAndRun(input: {
  topology: Topology
  options: { readyTimeoutS?: number }
  out: Out
  stop: StopSignal
  body: (run: DeployedRun) => Promise<number>
  context: KubeContext
  deployment: ClusterDeployment
  runId: string
}): Promise<number> {
  const { out, deployment, runId, context } = input
  const { namespace, files } = kubernetesObjectFiles(input.topology)
  const onProgress = printer(out)
  const abort = new AbortController()
  // Every fault of a play waits on this signal at once.
  setMaxListeners(0, abort.signal)
  void input.stop.stopped.then(() => abort.abort(new Error('interrupted')))
  let code = 0
  try {
    const { created, readyMs } = await deployment.deploy({
      runId,
      namespace,
      objects: files.flatMap((f) => f.objects as KubeObject[]),
      readyTimeoutMs: (input.options.readyTimeoutS ?? 600) * 1000,
      signal: abort.signal,
      onProgress
    })
    out.write(
      `\n${created} objects created, every pod ready in ${(readyMs / 1000).toFixed(1)} s. Ctrl-C deletes run ${runId}.\n`
    )
    code = await input.body({
      runId,
      namespace,
      context,
      signal: abort.signal,
      stopped: input.stop.stopped
    })
  } catch (e) {
    code = abort.signal.aborted ? INTERRUPTED : 1
    if (!abort.signal.aborted) out.write(`drstudio: ${(e as Error).message}\n`)
  } finally {
    out.write(`removing run ${runId}…\n`)
    try {
      const { left } = await deployment.teardown({
        runId,
        namespace,
        timeoutMs: 120_000,
        onProgress
      })
      if (left.length) {
        out.write(
          `drstudio: still on the cluster after teardown: ${left.join(', ')}; \`drstudio kubernetes sweep\` retries\n`
        )
        code = 1
      }
    } catch (e) {
      out.write(
        `drstudio: removing run ${runId} failed (${(e as Error).message}); its objects carry drstudio.io/run=${runId}, and \`drstudio kubernetes sweep\` removes them\n`
      )
      code = 1
    }
  }
  return code
}

/** Refuses a cluster without Chaos Mesh before anything is created. */
export async function chaosMeshServed(api: KubeApi, context: KubeContext): Promise<void> {
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
