import type { IResourceRequirements } from 'kubernetes-models/v1/ResourceRequirements'
import type {
  KubernetesPodKind,
  KubernetesResources
} from '../../../../common/topology/kubernetes-settings'
import type { Topology } from '../../../../common/topology/schema'

/**
 * Small defaults, enough for a lab cluster of three nodes: the JVMs' heaps (JAVA_OPT_EXT) fit
 * inside the memory limits with room for direct memory and metaspace.
 */
export const DEFAULT_RESOURCES: Record<KubernetesPodKind, Required<KubernetesResources>> = {
  nameserver: { requests: { cpu: '100m', memory: '512Mi' }, limits: { memory: '1Gi' } },
  broker: { requests: { cpu: '250m', memory: '1Gi' }, limits: { memory: '2Gi' } },
  controller: { requests: { cpu: '100m', memory: '512Mi' }, limits: { memory: '1Gi' } },
  proxy: { requests: { cpu: '100m', memory: '512Mi' }, limits: { memory: '1Gi' } },
  management: { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '256Mi' } },
  worker: { requests: { cpu: '100m', memory: '256Mi' }, limits: { memory: '512Mi' } }
}

/** Heap flags per JVM kind, the same sizes as the staging compose file. */
export const JAVA_OPTS: Record<'nameserver' | 'broker' | 'controller' | 'proxy', string> = {
  nameserver: '-Xms256m -Xmx256m',
  broker: '-Xms512m -Xmx512m -XX:MaxDirectMemorySize=512m',
  controller: '-Xms256m -Xmx256m',
  proxy: '-Xms256m -Xmx256m'
}

/** Persistent volume sizes: a broker's commit log, a controller's DLedger log. */
export const STORE_SIZE = { broker: '10Gi', controller: '1Gi' } as const

/** The defaults with `settings.kubernetes.resources[kind]` laid over them field by field. */
export function resourcesFor(topology: Topology, kind: KubernetesPodKind): IResourceRequirements {
  const base = DEFAULT_RESOURCES[kind]
  const given = topology.settings.kubernetes?.resources?.[kind]
  return {
    requests: { ...base.requests, ...given?.requests },
    limits: { ...base.limits, ...given?.limits }
  }
}

export const ROCKETMQ_IMAGE_DEFAULT = 'apache/rocketmq:5.3.3'
/** No public image exists: docs/kubernetes.md shows how to build one from a checkout. */
export const DRSTUDIO_IMAGE_DEFAULT = 'drstudio:local'

export interface KubernetesImages {
  rocketmq: string
  drstudio: string
}

export function imagesOf(topology: Topology): KubernetesImages {
  const k = topology.settings.kubernetes
  return {
    rocketmq: k?.rocketmqImage ?? ROCKETMQ_IMAGE_DEFAULT,
    drstudio: k?.drstudioImage ?? DRSTUDIO_IMAGE_DEFAULT
  }
}
