import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { hostname } from 'node:os'
import type { Topology } from '../../common/topology/schema'
import { loadTopology } from '../services/documents/documents'
import { kubernetesObjectFiles } from '../services/export/kubernetes/render-kubernetes'
import {
  ClusterDeployment,
  engineAliveOnHost,
  type DeployProgress
} from '../services/kubernetes/cluster-deployment'
import type { KubeObject } from '../services/kubernetes/kube-api'
import { KubeHttp } from '../services/kubernetes/kube-http'
import { kubeconfigPath, resolveContext, type KubeContext } from '../services/kubernetes/kubeconfig'
import { isPidAlive } from '../services/pid-alive'

type Out = { write(s: string): unknown }

export interface KubernetesTargetOptions {
  kubeconfig?: string
  context?: string
  namespace?: string
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/

/** The topology with `--namespace` in place of its own, so every in-cluster address follows. */
function withNamespace(topology: Topology, namespace: string | undefined): Topology {
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

function openContext(options: KubernetesTargetOptions): KubeContext {
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

function clusterDeployment(context: KubeContext): ClusterDeployment {
  const host = hostname()
  return new ClusterDeployment({
    api: new KubeHttp(context.endpoint),
    engine: `${host}/${process.pid}`,
    isEngineAlive: engineAliveOnHost(host, isPidAlive),
    now: () => Date.now(),
    sleep: (ms, signal) =>
      new Promise((resolve) => {
        const t = setTimeout(resolve, ms)
        signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true })
      })
  })
}

function printer(out: Out): (p: DeployProgress) => void {
  return (p) => out.write(`  ${p.phase.padEnd(8)} ${p.message}\n`)
}

/** A label-safe run id: time and a random tail. */
function newRunId(): string {
  return `r${Date.now().toString(36)}${randomBytes(3).toString('hex')}`
}

/**
 * `drstudio kubernetes up <topology>`: sweeps runs of dead engines from the namespace, applies the
 * topology's objects labelled with a new run, waits until every pod is ready (with progress), and
 * keeps them until Ctrl-C, then deletes exactly what it created. The workload and faults of
 * `scenario run --on kubernetes` are not driven yet.
 */
export async function runKubernetesUp(
  file: string,
  options: KubernetesTargetOptions & { readyTimeoutS?: number },
  out: Out = process.stdout,
  stopSignal: Promise<void> = interrupted()
): Promise<number> {
  const topology = withNamespace(loadTopology(file), options.namespace)
  const { namespace, files } = kubernetesObjectFiles(topology)
  const context = openContext(options)
  const deployment = clusterDeployment(context)
  const onProgress = printer(out)
  const runId = newRunId()
  const objects = files.flatMap((f) => f.objects as KubeObject[])
  out.write(
    `context ${context.name} (${context.endpoint.server}), namespace ${namespace}, run ${runId}\n`
  )
  const { swept } = await deployment.sweep({ namespace, timeoutMs: 60_000, onProgress })
  if (swept.length) out.write(`swept runs of engines that are gone: ${swept.join(', ')}\n`)
  const abort = new AbortController()
  void stopSignal.then(() => abort.abort(new Error('interrupted')))
  let code = 0
  try {
    const { applied, readyMs } = await deployment.deploy({
      runId,
      namespace,
      objects,
      readyTimeoutMs: (options.readyTimeoutS ?? 600) * 1000,
      signal: abort.signal,
      onProgress
    })
    out.write(
      `\n${applied} objects applied, every pod ready in ${(readyMs / 1000).toFixed(1)} s. Ctrl-C deletes run ${runId}.\n`
    )
    await stopSignal
  } catch (e) {
    if (!abort.signal.aborted) {
      out.write(`drstudio: ${(e as Error).message}\n`)
      code = 1
    }
  } finally {
    out.write('removing what this run created…\n')
    const { left } = await deployment.teardown({ runId, namespace, timeoutMs: 120_000, onProgress })
    if (left.length) {
      out.write(`drstudio: still on the cluster after teardown: ${left.join(', ')}\n`)
      code = 1
    }
  }
  return code
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

function interrupted(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve())
    process.once('SIGTERM', () => resolve())
  })
}
