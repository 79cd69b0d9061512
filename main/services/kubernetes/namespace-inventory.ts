import type { KubeApi, KubeObject } from './kube-api'
import { KubeApiError, RUN_LABEL } from './kube-api'

/**
 * The namespaced kinds checked before a run deletes the namespace it created: deleting a namespace
 * deletes everything in it, so it goes only when none of these holds anything but the run's.
 * A fixed list, not API discovery: kinds of other custom resources are not checked.
 */
const INVENTORY_KINDS = [
  { apiVersion: 'v1', kind: 'ConfigMap' },
  { apiVersion: 'v1', kind: 'Secret' },
  { apiVersion: 'v1', kind: 'Service' },
  { apiVersion: 'v1', kind: 'ServiceAccount' },
  { apiVersion: 'v1', kind: 'PersistentVolumeClaim' },
  { apiVersion: 'v1', kind: 'Pod' },
  { apiVersion: 'apps/v1', kind: 'Deployment' },
  { apiVersion: 'apps/v1', kind: 'StatefulSet' },
  { apiVersion: 'apps/v1', kind: 'DaemonSet' },
  { apiVersion: 'batch/v1', kind: 'Job' },
  { apiVersion: 'batch/v1', kind: 'CronJob' },
  { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' },
  { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding' },
  { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' },
  { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' },
  { apiVersion: 'chaos-mesh.org/v1alpha1', kind: 'NetworkChaos' },
  { apiVersion: 'chaos-mesh.org/v1alpha1', kind: 'PodChaos' },
  { apiVersion: 'chaos-mesh.org/v1alpha1', kind: 'Workflow' },
  { apiVersion: 'chaos-mesh.org/v1alpha1', kind: 'Schedule' }
]

/** What Kubernetes puts in every namespace by itself (before 1.24 a token Secret too). */
const BUILT_IN = new Set(['ConfigMap/kube-root-ca.crt', 'ServiceAccount/default'])
const isBuiltIn = (name: string) => BUILT_IN.has(name) || name.startsWith('Secret/default-token-')

/** A kind's objects; none when the cluster does not serve the kind (Chaos Mesh not installed). */
export async function listIfServed(
  api: KubeApi,
  kind: { apiVersion: string; kind: string },
  namespace: string,
  selector: string
): Promise<KubeObject[]> {
  try {
    return await api.list(kind, namespace, selector)
  } catch (e) {
    if (e instanceof KubeApiError && e.status === 404) return []
    throw e
  }
}

/** `Kind/name` of every object in the namespace that is not the run's, nor built in, nor going. */
export async function othersIn(api: KubeApi, namespace: string, runId: string): Promise<string[]> {
  const all = (
    await Promise.all(INVENTORY_KINDS.map((k) => listIfServed(api, k, namespace, '')))
  ).flat()
  return all
    .filter((o) => o.metadata.labels?.[RUN_LABEL] !== runId && !o.metadata.deletionTimestamp)
    .map((o) => `${o.kind}/${o.metadata.name}`)
    .filter((name) => !isBuiltIn(name))
}
