import { loadTopology } from '../services/documents/documents'
import { kubernetesObjectFiles } from '../services/export/kubernetes/render-kubernetes'
import { CHAOS_API } from '../services/kubernetes/chaos-faults'
import type { KubeApi } from '../services/kubernetes/kube-api'
import { KubeApiError } from '../services/kubernetes/kube-api'
import type { KubeContext } from '../services/kubernetes/kubeconfig'
import type { KubernetesTargetOptions, Out, StopSignal } from './kubernetes-target'
import {
  clusterDeployment,
  onDeployedTopology,
  openContext,
  printer,
  processStopSignal,
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
