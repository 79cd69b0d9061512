import type {
  BrokerSpec,
  ConsumerSpec,
  NameServerSpec,
  ProducerSpec,
  RoomSpec,
  Topology
} from '../../../common/topology'
import { idSchema, topologySchema, validateTopology } from '../../../common/topology'
import { splitHostPort } from './addresses'
import type { Discovery } from './discovery'
import type { Placement } from './placement'
import {
  ATTACHED_DEFAULT_RATE,
  DRSTUDIO_CONSUMER_GROUP,
  DRSTUDIO_PRODUCER_GROUP
} from '../../../common/scenario/workload-safety'

export interface BuildOptions {
  name?: string
  /** The user let DR Studio create the run topic on this cluster (`--create-topic`). */
  createTopic: boolean
  /** One producer and one consumer per room on this topic (`--clients`). */
  clientsTopic?: string
  /** Queue count written for a topic DR Studio may create. */
  newTopicQueues?: number
}

/** Hands out node ids that are valid and unique among rooms and nodes. */
class IdPool {
  private readonly used = new Set<string>()

  constructor(reserved: string[]) {
    for (const r of reserved) this.used.add(r)
  }

  take(wanted: string): string {
    let base = wanted.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 56)
    if (!/^[A-Za-z]/.test(base)) base = `n-${base}`.slice(0, 56)
    if (!idSchema.safeParse(base).success) base = 'node'
    let id = base
    for (let i = 2; this.used.has(id); i++) id = `${base}-${i}`
    this.used.add(id)
    return id
  }
}

function endpoint(address: string): { host: string; port: number } {
  const hp = splitHostPort(address)
  if (!hp) throw new Error(`discovered address ${address} is not host:port`)
  return hp
}

function topicQueues(discovery: Discovery): { name: string; queues: number }[] {
  return discovery.topics
    .filter((t) => t.exists)
    .map((t) => {
      const write = Math.max(0, ...t.queues.map((q) => q.writeQueueNums))
      const read = Math.max(0, ...t.queues.map((q) => q.readQueueNums))
      return { name: t.name, queues: Math.min(1024, Math.max(1, write || read)) }
    })
}

/** Every name server that answered, in the order they were given. */
export function answeredNameServers(discovery: Discovery): string[] {
  return discovery.nameServers.filter((n) => n.ok).map((n) => n.address)
}

function emptyRoom(id: string, name: string): RoomSpec {
  return {
    id,
    ...(name !== id ? { name } : {}),
    nameServers: [],
    brokers: [],
    managementNodes: [],
    proxies: [],
    producers: [],
    consumers: []
  }
}

function addClients(rooms: RoomSpec[], ids: IdPool, topic: string): void {
  for (const room of rooms) {
    const producer: ProducerSpec = {
      id: ids.take(`producer-${room.id}`),
      topic,
      group: DRSTUDIO_PRODUCER_GROUP,
      rate: ATTACHED_DEFAULT_RATE,
      messageSize: 256,
      lane: 'remoting'
    }
    const consumer: ConsumerSpec = {
      id: ids.take(`consumer-${room.id}`),
      topic,
      group: DRSTUDIO_CONSUMER_GROUP,
      lane: 'remoting'
    }
    room.producers.push(producer)
    room.consumers.push(consumer)
  }
}

/**
 * Writes the discovered cluster as a topology in which every node is attached (has host and
 * port), name servers are a static list, and nothing runs unless asked (`clientsTopic`).
 */
export function buildTopology(
  discovery: Discovery,
  placement: Placement,
  opts: BuildOptions
): Topology {
  if (placement.unplaced.length > 0) {
    throw new Error(`${placement.unplaced.length} node(s) have no room; place them before building`)
  }
  const ids = new IdPool(placement.rooms.map((r) => r.id))
  const rooms = placement.rooms.map((r) => emptyRoom(r.id, r.name))
  const room = (id: string): RoomSpec => rooms.find((r) => r.id === id)!
  for (const set of discovery.brokerSets) {
    for (const node of set.nodes) {
      const placed = placement.brokers[node.address]
      if (!placed) continue
      const broker: BrokerSpec = {
        id: ids.take(node.brokerId === 0 ? set.brokerName : `${set.brokerName}-s${node.brokerId}`),
        cluster: set.cluster,
        brokerName: set.brokerName,
        role: node.brokerId === 0 ? 'master' : 'slave',
        brokerId: node.brokerId,
        ...endpoint(node.address)
      }
      room(placed.room).brokers.push(broker)
    }
  }
  // Brokers first: their ids come from brokerName, which means something to the operator.
  answeredNameServers(discovery).forEach((address, i) => {
    const placed = placement.nameServers[address]
    if (!placed) return
    const ns: NameServerSpec = { id: ids.take(`ns-${i + 1}`), ...endpoint(address) }
    room(placed.room).nameServers.push(ns)
  })
  const topics = topicQueues(discovery)
  const named = opts.clientsTopic
  if (named && opts.createTopic && !topics.some((t) => t.name === named)) {
    topics.push({ name: named, queues: opts.newTopicQueues ?? 4 })
  }
  if (named) addClients(rooms, ids, named)
  const answered = answeredNameServers(discovery)
  const clusters = discovery.clusters.map((c) => c.name)
  const brokerCount = discovery.brokerSets.reduce((n, s) => n + s.nodes.length, 0)
  const topology = topologySchema.parse({
    kind: 'drstudio/topology',
    version: 1,
    name: opts.name ?? `discovered-${clusters.join('-') || 'cluster'}`,
    description:
      `Read from name servers ${answered.join(';')} at ${discovery.at}: ` +
      `${brokerCount} broker(s) of cluster ${clusters.join(', ') || '(none)'} in ${rooms.length} room(s), rooms by ${placement.mode}. ` +
      'Every node is attached: DR Studio does not start or stop them.',
    settings: { namesrvDiscovery: 'static' },
    topics,
    rooms,
    source: {
      kind: 'discovered',
      namesrv: answered.join(';'),
      ...(discovery.addressServer ? { addressServer: discovery.addressServer.url } : {}),
      at: discovery.at,
      rooms: placement.mode,
      createTopic: opts.createTopic
    }
  })
  const valid = validateTopology(topology)
  if (!valid.ok) {
    throw new Error(
      `the discovered topology is not valid (please report this): ${valid.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`
    )
  }
  return valid.topology
}
