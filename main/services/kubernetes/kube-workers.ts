import { join } from 'node:path'
import { workerName as deploymentOf } from '../export/kubernetes/worker-objects'
import { LANE_LABEL, NODE_LABEL } from '../export/kubernetes/names'
import type { WorkerFactory } from '../workers/client-fleet'
import { workerName } from '../workers/client-fleet'
import { WorkerConnection } from '../workers/worker-connection'
import type { KubeApi, KubeObject } from './kube-api'
import { RUN_LABEL } from './kube-api'
import { attachWorker, exitCodeFromPodStatus } from './kube-attach'
import type { KubeEndpoint } from './kube-http'

/** The worker container's name in every room-worker Deployment (export worker-objects.ts). */
export const WORKER_CONTAINER = 'worker'

const running = (pod: KubeObject): boolean =>
  !pod.metadata.deletionTimestamp &&
  (pod.status as { phase?: string } | undefined)?.phase === 'Running'

/**
 * Each room-worker Deployment's running pod, by Deployment name, read once the deployment is
 * ready: the pods a run's workers are reached in.
 */
export async function workerPods(
  api: KubeApi,
  namespace: string,
  runId: string
): Promise<Map<string, string>> {
  const pods = await api.list(
    { apiVersion: 'v1', kind: 'Pod' },
    namespace,
    `${RUN_LABEL}=${runId},${LANE_LABEL}`
  )
  const out = new Map<string, string>()
  for (const pod of pods.filter(running)) {
    const deployment = pod.metadata.labels?.[NODE_LABEL]
    if (deployment && !out.has(deployment)) out.set(deployment, pod.metadata.name)
  }
  return out
}

/**
 * Room workers in their pods, reached over the API server's attach stream (kube-attach.ts): one per
 * room and lane, as the export deploys them. A lane variant (a sweep's second setting) has no
 * Deployment of its own and is refused with the reason.
 */
export function kubeWorkers(opts: {
  endpoint: KubeEndpoint
  api: KubeApi
  namespace: string
  /** workerPods(): Deployment name → pod. */
  pods: ReadonlyMap<string, string>
  logDir: string
}): WorkerFactory {
  return (key) => {
    const name = workerName(key)
    if (key.variant) {
      throw new Error(
        `${name}: lane variants run in a worker of their own, which a Kubernetes run does not deploy; run one setting per run on Kubernetes`
      )
    }
    const deployment = deploymentOf(key.room, key.lane)
    const pod = opts.pods.get(deployment)
    if (!pod) {
      throw new Error(
        `${name}: Deployment ${deployment} has no running pod in namespace ${opts.namespace}; is the lane in the topology the run deployed?`
      )
    }
    const ref = { apiVersion: 'v1', kind: 'Pod', name: pod, namespace: opts.namespace }
    const channel = attachWorker(opts.endpoint, {
      namespace: opts.namespace,
      pod,
      container: WORKER_CONTAINER,
      exitCode: exitCodeFromPodStatus(() => opts.api.get(ref), WORKER_CONTAINER)
    })
    return new WorkerConnection({
      name,
      channel,
      logFile: join(opts.logDir, 'workers', `${name}.log`)
    })
  }
}
