import { join } from 'node:path'
import type { Topology } from '../../../common/topology/schema'
import { hostOf, isAttached, listNodes } from '../../../common/topology/model'
import type { NodeProcessDeps, ServerNode } from './node-process'
import { NodeProcess } from './node-process'
import type { PortProbe, PortRequest, PortedKind } from './ports'
import { allocatePorts } from './ports'
import type { NetworkStatus, SandboxNetwork } from './sandbox-network'

/** In a room's own network every node has its own address, so RocketMQ's default ports. */
const NAMESPACE_PORTS: Record<PortedKind, { port: number; remotingPort?: number }> = {
  nameserver: { port: 9876 },
  broker: { port: 10911 },
  management: { port: 8080 },
  proxy: { port: 8081, remotingPort: 8080 },
  // The samples' DLedger port (distribution/conf/controller): also where brokers reach a controller.
  controller: { port: 9878 }
}
const NAMESPACE_EMBEDDED_CONTROLLER_PORT = 9878

/** The kinds the sandbox runs as processes (clients run as workers). */
export const SERVER_KINDS: readonly PortedKind[] = [
  'nameserver',
  'management',
  'controller',
  'broker',
  'proxy'
]

/** The topology's nodes that the sandbox runs or attaches to. */
export function serverNodes(topology: Topology): ServerNode[] {
  return listNodes(topology).filter((n): n is ServerNode =>
    SERVER_KINDS.includes(n.kind as PortedKind)
  )
}

/** What placing nodes needs from the sandbox. */
export interface PlacementDeps {
  net: Pick<SandboxNetwork, 'up' | 'placement'>
  workerIds?: (rooms: string[]) => { id: string; room: string }[]
  portProbe: PortProbe
  portRange: [number, number] | undefined
  processDeps: () => NodeProcessDeps
  progress: (nodeId: string, message: string) => void
  emitNetwork: (status: NetworkStatus) => void
  /** Replaces the sandbox's nodes (before ports are allocated, as status() shows them). */
  setNodes: (nodes: Map<string, NodeProcess>) => void
}

/**
 * Gives every node its address and ports: the room's network lab (own address, RocketMQ's default
 * ports) when rooms are namespaces, else loopback with free ports. Attached nodes keep theirs.
 */
export async function placeNodes(
  deps: PlacementDeps,
  topology: Topology,
  nodes: ServerNode[],
  runDir: string
): Promise<void> {
  const ours = nodes.filter((n) => !isAttached(n))
  const rooms = topology.rooms.map((r) => r.id)
  const workers = deps.workerIds?.(rooms) ?? []
  const status = await deps.net.up(
    topology,
    [...ours.map((n) => ({ id: n.id, room: n.room })), ...workers],
    ours.length < nodes.length
  )
  if (status.notice) deps.progress('', status.notice)
  deps.progress(
    '',
    status.mode === 'namespaces'
      ? 'rooms are separate networks (one namespace per room and node)'
      : `rooms share loopback${status.faultsDisabled ? `; ${status.faultsDisabled}` : ''}`
  )
  deps.emitNetwork(status)
  const placed = new Map<string, NodeProcess>()
  deps.setNodes(placed)
  for (const node of nodes) placed.set(node.id, nodeRuntime(deps, node, runDir))
  if (status.mode === 'loopback') {
    await allocateLoopbackPorts(placed, deps.portProbe, deps.portRange)
  }
}

function nodeRuntime(deps: PlacementDeps, node: ServerNode, runDir: string): NodeProcess {
  const dir = join(runDir, node.id)
  const attached = isAttached(node)
  const placed = attached ? null : deps.net.placement(node.id)
  const explicit = {
    port: node.spec.port ?? 0,
    ...(node.kind === 'proxy' && node.spec.remotingPort !== undefined
      ? { remotingPort: node.spec.remotingPort }
      : {})
  }
  const ports = placed ? { ...NAMESPACE_PORTS[node.kind], ...pick(explicit) } : explicit
  const rt = new NodeProcess(
    node,
    dir,
    join(dir, 'out.log'),
    { attached, host: attached ? hostOf(node) : (placed?.host ?? '127.0.0.1'), ...ports },
    deps.processDeps()
  )
  if (placed) rt.prefix = placed.prefix
  if (node.kind === 'nameserver' && node.spec.controller) {
    const own = node.spec.controller.port
    rt.controllerPort = own ?? (placed ? NAMESPACE_EMBEDDED_CONTROLLER_PORT : undefined)
  }
  return rt
}

async function allocateLoopbackPorts(
  nodes: ReadonlyMap<string, NodeProcess>,
  probe: PortProbe,
  range: [number, number] | undefined
): Promise<void> {
  const ours = [...nodes.values()].filter((rt) => !rt.attached)
  const requests: PortRequest[] = ours.map((rt) => ({
    nodeId: rt.id,
    kind: rt.kind,
    path: rt.node.path,
    port: rt.node.spec.port,
    remotingPort: rt.node.kind === 'proxy' ? rt.node.spec.remotingPort : undefined,
    ...(rt.node.kind === 'nameserver' && rt.node.spec.controller
      ? { controllerPort: rt.node.spec.controller.port ?? (true as const) }
      : {})
  }))
  const reserved = [...nodes.values()]
    .filter((rt) => rt.attached && isLoopback(rt.host))
    .flatMap((rt) => [
      rt.port,
      ...(rt.remotingPort ? [rt.remotingPort] : []),
      ...(rt.controllerPort ? [rt.controllerPort] : [])
    ])
  const ports = await allocatePorts(requests, probe, { range, reserved })
  for (const rt of ours) {
    const a = ports.get(rt.id)!
    rt.port = a.port
    if (a.remotingPort !== undefined) rt.remotingPort = a.remotingPort
    if (a.controllerPort !== undefined) rt.controllerPort = a.controllerPort
  }
}

/** Only the explicit fields that are set (a node's own port wins over the namespace default). */
function pick(p: { port: number; remotingPort?: number }): {
  port?: number
  remotingPort?: number
} {
  return {
    ...(p.port > 0 ? { port: p.port } : {}),
    ...(p.remotingPort !== undefined ? { remotingPort: p.remotingPort } : {})
  }
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.')
}
