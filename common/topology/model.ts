import type {
  BrokerSpec,
  ConsumerSpec,
  ControllerSpec,
  ManagementNodeSpec,
  NameServerSpec,
  NodeKind,
  ProducerSpec,
  ProxySpec,
  Topology
} from './schema'
import { NODE_KINDS, ROOM_KEY } from './schema'

interface SpecByKind {
  nameserver: NameServerSpec
  broker: BrokerSpec
  management: ManagementNodeSpec
  proxy: ProxySpec
  controller: ControllerSpec
  producer: ProducerSpec
  consumer: ConsumerSpec
}

/** A node with its room and JSON path, so callers never walk the nested document by hand. */
export type TopologyNode = {
  [K in NodeKind]: { kind: K; id: string; room: string; path: string; spec: SpecByKind[K] }
}[NodeKind]

export type NodeOfKind<K extends NodeKind> = Extract<TopologyNode, { kind: K }>

/** Flattens rooms into one list of nodes, in document order. */
export function listNodes(topology: Topology): TopologyNode[] {
  const nodes: TopologyNode[] = []
  topology.rooms.forEach((room, r) => {
    for (const kind of NODE_KINDS) {
      const key = ROOM_KEY[kind]
      const specs = (room[key] ?? []) as SpecByKind[typeof kind][]
      specs.forEach((spec, i) => {
        nodes.push({
          kind,
          id: spec.id,
          room: room.id,
          path: `$.rooms[${r}].${key}[${i}]`,
          spec
        } as TopologyNode)
      })
    }
  })
  return nodes
}

/** Nodes of one kind, typed. */
export function nodesOfKind<K extends NodeKind>(topology: Topology, kind: K): NodeOfKind<K>[] {
  return listNodes(topology).filter((n): n is NodeOfKind<K> => n.kind === kind)
}

/** Finds a node by id. */
export function findNode(topology: Topology, id: string): TopologyNode | undefined {
  return listNodes(topology).find((n) => n.id === id)
}

/** Topics the topology uses: declared ones plus those named by clients, with queue counts. */
export function topicsOf(topology: Topology): { name: string; queues: number }[] {
  const out = new Map<string, number>()
  for (const t of topology.topics) out.set(t.name, t.queues)
  for (const n of listNodes(topology)) {
    if ((n.kind === 'producer' || n.kind === 'consumer') && !out.has(n.spec.topic)) {
      out.set(n.spec.topic, 4)
    }
  }
  return [...out].map(([name, queues]) => ({ name, queues }))
}

/** True when a node names its own endpoint, which means DR Studio attaches to it instead of starting it. */
export function isAttached(node: TopologyNode): boolean {
  if (node.kind === 'producer' || node.kind === 'consumer') return false
  return node.spec.host !== undefined && node.spec.port !== undefined
}

/** Ports a server node occupies; a broker also binds listenPort-2 (fast channel) and listenPort+1 (HA). */
export function occupiedPorts(node: TopologyNode): number[] {
  switch (node.kind) {
    case 'broker':
      return node.spec.port === undefined
        ? []
        : [node.spec.port - 2, node.spec.port, node.spec.port + 1]
    case 'proxy': {
      const ports: number[] = []
      if (node.spec.port !== undefined) ports.push(node.spec.port)
      if (node.spec.remotingPort !== undefined) ports.push(node.spec.remotingPort)
      return ports
    }
    case 'nameserver': {
      const ports = node.spec.port === undefined ? [] : [node.spec.port]
      const embedded = node.spec.controller?.port
      return embedded === undefined ? ports : [...ports, embedded]
    }
    case 'controller':
    case 'management':
      return node.spec.port === undefined ? [] : [node.spec.port]
    case 'producer':
    case 'consumer':
      return []
  }
}

/** Host a node's explicit ports live on; sandbox-allocated nodes are on loopback. */
export function hostOf(node: TopologyNode): string {
  if (node.kind === 'producer' || node.kind === 'consumer') return '127.0.0.1'
  return node.spec.host ?? '127.0.0.1'
}

/** True when the topology's brokers are an operator's (attached), not the sandbox's. */
export function isAttachedCluster(topology: Topology): boolean {
  return listNodes(topology).some((n) => n.kind === 'broker' && isAttached(n))
}

/**
 * Whether the topology's brokers run the timer wheel: asked for (`settings.timerWheel`, a delayed
 * scenario sets it), or its own live runs send delayed messages.
 */
export function needsTimerWheel(topology: Pick<Topology, 'settings'>): boolean {
  return topology.settings.timerWheel || topology.settings.messages === 'delayed'
}

/** RocketMQ's brokerRole of a broker (a controller-mode replica starts as SLAVE; its master is elected). */
export function brokerRoleOf(
  broker: Pick<BrokerSpec, 'role' | 'replication'>
): 'SYNC_MASTER' | 'ASYNC_MASTER' | 'SLAVE' {
  if (broker.role !== 'master') return 'SLAVE'
  return broker.replication === 'sync' ? 'SYNC_MASTER' : 'ASYNC_MASTER'
}

/**
 * The room a broker group serves from: its master's. A slave in another room registers with its
 * master's zone too (the name server keeps one zone per group, the last registration's), and
 * clients place the group by it. A controller-mode replica is in its own room (the master moves).
 */
export function brokerGroupRoom(topology: Topology, broker: NodeOfKind<'broker'>): string {
  if (broker.spec.role === 'replica') return broker.room
  const master = nodesOfKind(topology, 'broker').find(
    (b) =>
      b.spec.role === 'master' &&
      b.spec.cluster === broker.spec.cluster &&
      b.spec.brokerName === broker.spec.brokerName
  )
  return master?.room ?? broker.room
}

/** Every broker group's room by brokerName (see brokerGroupRoom). */
export function brokerGroupRooms(topology: Topology): Record<string, string> {
  const out: Record<string, string> = {}
  for (const b of nodesOfKind(topology, 'broker'))
    out[b.spec.brokerName] ??= brokerGroupRoom(topology, b)
  return out
}
