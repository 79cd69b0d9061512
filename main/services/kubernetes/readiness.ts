import { NODE_LABEL } from '../export/kubernetes/names'
import type { KubeObject } from './kube-api'

/** Where a deployment stands: the workloads whose pods are all ready, and why the others are not. */
export interface Readiness {
  ready: string[]
  waiting: { name: string; reason: string }[]
}

interface WorkloadSpec {
  replicas?: number
  selector?: { matchLabels?: Record<string, string> }
}
interface WorkloadStatus {
  readyReplicas?: number
  observedGeneration?: number
}
interface PodStatus {
  phase?: string
  conditions?: { type: string; status: string; reason?: string; message?: string }[]
  initContainerStatuses?: PodStatus['containerStatuses']
  containerStatuses?: {
    name: string
    ready?: boolean
    restartCount?: number
    state?: {
      waiting?: { reason?: string; message?: string }
      running?: unknown
      terminated?: unknown
    }
    lastState?: { terminated?: { reason?: string; exitCode?: number } }
  }[]
}

/** Why one pod is not ready, in the words `kubectl describe` would use. */
export function podReason(pod: KubeObject): string {
  const status = (pod.status ?? {}) as PodStatus
  const name = pod.metadata.name
  if (pod.metadata.deletionTimestamp) return `pod ${name} terminating`
  const scheduled = status.conditions?.find((c) => c.type === 'PodScheduled')
  if (scheduled?.status === 'False') {
    return `pod ${name} not scheduled: ${scheduled.message ?? scheduled.reason ?? 'no reason given'}`
  }
  // An init step that has not finished holds the pod before any container starts.
  const init = (status.initContainerStatuses ?? []).find((c) => !c.state?.terminated)
  for (const c of [...(init ? [init] : []), ...(status.containerStatuses ?? [])]) {
    const waiting = c.state?.waiting
    if (waiting?.reason) {
      const last = c.lastState?.terminated
      const crashed = last
        ? `, last exit ${last.reason ?? ''} ${last.exitCode ?? ''}`.trimEnd()
        : ''
      return `pod ${name} container ${c.name}: ${waiting.reason}${waiting.message ? ` (${waiting.message})` : ''}${c.restartCount ? `, ${c.restartCount} restarts` : ''}${crashed}`
    }
    if (c.state?.running && !c.ready)
      return `pod ${name} container ${c.name}: running, not ready yet`
  }
  return `pod ${name} ${status.phase ?? 'Pending'}`
}

/**
 * Which StatefulSets and Deployments have every replica ready at their current generation, and
 * for each other one what its pods are waiting on. Pods belong to a workload by `drstudio.io/node`.
 */
export function readinessOf(workloads: KubeObject[], pods: KubeObject[]): Readiness {
  const ready: string[] = []
  const waiting: Readiness['waiting'] = []
  for (const w of workloads) {
    const spec = (w.spec ?? {}) as WorkloadSpec
    const status = (w.status ?? {}) as WorkloadStatus
    const want = spec.replicas ?? 1
    const current =
      w.metadata.generation === undefined ||
      (status.observedGeneration ?? 0) >= w.metadata.generation
    if (current && (status.readyReplicas ?? 0) >= want) {
      ready.push(w.metadata.name)
      continue
    }
    const node = spec.selector?.matchLabels?.[NODE_LABEL]
    const own = pods.filter((p) => node !== undefined && p.metadata.labels?.[NODE_LABEL] === node)
    const reason = own.length
      ? own.map(podReason).join('; ')
      : `no pod yet (${status.readyReplicas ?? 0}/${want} ready)`
    waiting.push({ name: `${w.kind}/${w.metadata.name}`, reason })
  }
  return { ready, waiting }
}
