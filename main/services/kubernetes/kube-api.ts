import { MANAGED_BY } from '../export/kubernetes/names'

/**
 * The Kubernetes API as a Kubernetes run uses it: create, get, list by label and delete. The
 * engine talks to it through this port only; tests use the API-server stand-in.
 */

/** The parts of an object DR Studio writes and reads back. */
export interface KubeObject {
  apiVersion: string
  kind: string
  metadata: {
    name: string
    namespace?: string
    labels?: Record<string, string>
    annotations?: Record<string, string>
    generation?: number
    deletionTimestamp?: string
    ownerReferences?: { kind: string; name: string }[]
  }
  spec?: Record<string, unknown>
  status?: Record<string, unknown>
}

/** Which object: kind and name, and its namespace unless the kind is cluster-wide. */
export interface KubeRef {
  apiVersion: string
  kind: string
  name: string
  namespace?: string
}

export interface KubeApi {
  /**
   * Creates the object (field manager `drstudio`); one that exists already is a KubeApiError 409,
   * never adopted, so nothing someone else made between a check and the write becomes ours.
   */
  create(object: KubeObject): Promise<KubeObject>
  /** The object, or null when it does not exist. */
  get(ref: KubeRef): Promise<KubeObject | null>
  /** Every object of a kind in a namespace (or cluster-wide with null) matching the selector. */
  list(
    kind: Pick<KubeRef, 'apiVersion' | 'kind'>,
    namespace: string | null,
    labelSelector: string
  ): Promise<KubeObject[]>
  /**
   * Deletes the object and, in the background, what it owns; a missing object is not an error.
   * `gracePeriodSeconds` 0 ends a pod's containers without their shutdown (a node fault's kill).
   */
  remove(ref: KubeRef, options?: { gracePeriodSeconds?: number }): Promise<void>
  /** Sets a workload's replica count through its `scale` subresource (a merge patch). */
  scale(ref: KubeRef, replicas: number): Promise<void>
}

/** What every service of a Kubernetes run is given: the API, who it is, a clock, polling. */
export interface KubeRunPorts {
  api: KubeApi
  /** This engine's identity (run-labels.ts engineIdentity), written on everything it creates. */
  engine: string
  now(): number
  sleep(ms: number, signal?: AbortSignal): Promise<void>
  /** How often state is polled (each service has its default). */
  pollMs?: number
}

export const FIELD_MANAGER = 'drstudio'
export const MANAGED_BY_LABEL = Object.keys(MANAGED_BY)[0]!
export const RUN_LABEL = 'drstudio.io/run'
/** `<host>/<pid>` of the engine that created a run's objects, so a later start can sweep them. */
export const ENGINE_ANNOTATION = 'drstudio.io/engine'

/** An answer of the API server that was not a success, with its Status message. */
export class KubeApiError extends Error {
  constructor(
    readonly status: number,
    message: string
  ) {
    super(message)
    this.name = 'KubeApiError'
  }
}

/** The kinds a run creates or reads, with their REST plural; cluster-wide kinds have no namespace. */
const KINDS: Record<string, { plural: string; clusterWide?: true }> = {
  Namespace: { plural: 'namespaces', clusterWide: true },
  ConfigMap: { plural: 'configmaps' },
  Service: { plural: 'services' },
  Pod: { plural: 'pods' },
  PersistentVolumeClaim: { plural: 'persistentvolumeclaims' },
  Secret: { plural: 'secrets' },
  ServiceAccount: { plural: 'serviceaccounts' },
  StatefulSet: { plural: 'statefulsets' },
  Deployment: { plural: 'deployments' },
  ReplicaSet: { plural: 'replicasets' },
  DaemonSet: { plural: 'daemonsets' },
  Job: { plural: 'jobs' },
  CronJob: { plural: 'cronjobs' },
  Ingress: { plural: 'ingresses' },
  NetworkPolicy: { plural: 'networkpolicies' },
  Role: { plural: 'roles' },
  RoleBinding: { plural: 'rolebindings' },
  PodDisruptionBudget: { plural: 'poddisruptionbudgets' },
  HorizontalPodAutoscaler: { plural: 'horizontalpodautoscalers' },
  NetworkChaos: { plural: 'networkchaos' },
  PodChaos: { plural: 'podchaos' },
  Workflow: { plural: 'workflows' },
  Schedule: { plural: 'schedules' }
}

function isClusterWide(kind: string): boolean {
  return KINDS[kind]?.clusterWide === true
}

/**
 * The REST path of an object (with a name) or of its collection (without): `/api/v1/...` for the
 * core group, `/apis/<group>/<version>/...` for the others.
 */
export function resourcePath(
  ref: Pick<KubeRef, 'apiVersion' | 'kind'> & { namespace?: string | null; name?: string }
): string {
  const known = KINDS[ref.kind]
  if (!known) {
    throw new Error(
      `DR Studio does not drive Kubernetes kind ${ref.kind}; it knows ${Object.keys(KINDS).join(', ')}`
    )
  }
  const root = ref.apiVersion.includes('/') ? `/apis/${ref.apiVersion}` : `/api/${ref.apiVersion}`
  const scope =
    known.clusterWide || !ref.namespace ? '' : `/namespaces/${encodeURIComponent(ref.namespace)}`
  const name = ref.name ? `/${encodeURIComponent(ref.name)}` : ''
  return `${root}${scope}/${known.plural}${name}`
}

/** `Kind/name` (and ` in namespace N`), as errors and progress name an object. */
export function describeRef(ref: KubeRef): string {
  return `${ref.kind}/${ref.name}${ref.namespace && !isClusterWide(ref.kind) ? ` in namespace ${ref.namespace}` : ''}`
}

export function refOf(o: KubeObject): KubeRef {
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    name: o.metadata.name,
    ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {})
  }
}
