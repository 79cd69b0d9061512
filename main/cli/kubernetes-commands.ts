import { loadTopology } from '../services/documents/documents'
import { kubernetesObjectFiles } from '../services/export/kubernetes/render-kubernetes'
import type {
  KubernetesTargetOptions,
  Out,
  StopSignal
} from '../services/kubernetes/deployed-topology'
import {
  clusterDeployment,
  onDeployedTopology,
  openContext,
  printer,
  withNamespace
} from '../services/kubernetes/deployed-topology'
import { processStopSignal } from './stop-signal'

export type { KubernetesTargetOptions } from '../services/kubernetes/deployed-topology'

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
