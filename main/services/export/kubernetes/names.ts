import type { KubernetesPodKind } from '../../../../common/topology/kubernetes-settings'
import type { Topology } from '../../../../common/topology/schema'
import type { Endpoints, ServerNode } from '../placeholders'
import { DEFAULT_PORTS } from '../placeholders'

/** Export failure a user can act on (a name Kubernetes refuses, two ids that become one name). */
export class KubernetesExportError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'KubernetesExportError'
  }
}

export const ZONE_LABEL_DEFAULT = 'topology.kubernetes.io/zone'
export const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'drstudio' } as const
export const ROOM_LABEL = 'drstudio.io/room'
export const NODE_LABEL = 'drstudio.io/node'
export const KIND_LABEL = 'drstudio.io/kind'
export const LANE_LABEL = 'drstudio.io/lane'

/** Where the official image keeps broker and controller stores (it runs as user rocketmq). */
export const STORE_DIR = '/home/rocketmq/store'
export const CONTROLLER_STORE_DIR = '/home/rocketmq/controller-store'

/**
 * A DR Studio id as a Kubernetes object name and label value (DNS-1123 label): ids may hold
 * upper case and `_`, names may not.
 */
export function k8sName(id: string): string {
  return id
    .toLowerCase()
    .replace(/_/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '')
}

/** `settings.kubernetes.namespace`, else `drs-<topology name>`. */
export function namespaceOf(topology: Topology): string {
  const given = topology.settings.kubernetes?.namespace
  if (given) return given
  const slug = topology.name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
  return `drs-${slug || 'topology'}`.slice(0, 63).replace(/-+$/, '')
}

/** The node label key rooms are placed by. */
export function zoneLabelOf(topology: Topology): string {
  return topology.settings.kubernetes?.zoneLabel ?? ZONE_LABEL_DEFAULT
}

/** The zone label's value for a room: `settings.kubernetes.zones[room]`, else the room id. */
export function zoneOf(topology: Topology, room: string): string {
  return topology.settings.kubernetes?.zones?.[room] ?? room
}

/** The labels every object of one pod carries; the selector uses `drstudio.io/node` alone. */
export function podLabels(
  room: string,
  name: string,
  kind: KubernetesPodKind,
  extra: Record<string, string> = {}
): Record<string, string> {
  return {
    ...MANAGED_BY,
    [ROOM_LABEL]: k8sName(room),
    [NODE_LABEL]: name,
    [KIND_LABEL]: kind,
    ...extra
  }
}

/** A Service's in-cluster DNS name (the search path completes `.cluster.local`). */
export function serviceHost(name: string, namespace: string): string {
  return `${name}.${namespace}.svc`
}

/**
 * The in-cluster view: every node is reached through its Service's DNS name on the topology's
 * port or RocketMQ's default. Brokers register their pod IP instead (rewritten at start).
 */
export function kubernetesEndpoints(namespace: string): Endpoints {
  const port = (n: ServerNode) => String(n.spec.port ?? DEFAULT_PORTS[n.kind])
  const host = (n: ServerNode) => serviceHost(k8sName(n.id), namespace)
  return {
    // Like staging: every port is known (defaults filled), so broker.conf names haListenPort.
    staging: true,
    host,
    port,
    address: (n) => `${host(n)}:${port(n)}`,
    remotingPort: (n) => String(n.spec.remotingPort ?? DEFAULT_PORTS.proxyRemoting),
    storeRoot: () => STORE_DIR,
    controllerPort: (n) =>
      String((n.kind === 'nameserver' && n.spec.controller?.port) || DEFAULT_PORTS.controller),
    controllerStore: () => CONTROLLER_STORE_DIR
  }
}

/** Refuses two ids that become the same Kubernetes name, naming both and the fix. */
export function checkUniqueNames(owners: { id: string; name: string }[]): void {
  const seen = new Map<string, string>()
  for (const { id, name } of owners) {
    const first = seen.get(name)
    if (first !== undefined) {
      throw new KubernetesExportError(
        `"${first}" and "${id}" both become the Kubernetes name "${name}" (lower case, _ as -); rename one of them`
      )
    }
    seen.set(name, id)
  }
}
