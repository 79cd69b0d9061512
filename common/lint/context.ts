import type { NodeOfKind, TopologyNode } from '../topology/model'
import { listNodes } from '../topology/model'
import type { Topology } from '../topology/schema'
import type { LintFinding } from './rules'

// What every lint check reads: the topology resolved once into nodes, brokers, clients and
// broker groups, plus the small helpers several checks share.

export type BrokerNode = NodeOfKind<'broker'>
export type ClientNode = NodeOfKind<'producer'> | NodeOfKind<'consumer'>

/** A master and the slaves sharing its cluster and brokerName. */
export interface BrokerGroup {
  key: string
  members: BrokerNode[]
  master: BrokerNode | undefined
}

export interface Context {
  topology: Topology
  nodes: TopologyNode[]
  brokers: BrokerNode[]
  clients: ClientNode[]
  groups: BrokerGroup[]
  roomPath: Map<string, string>
  /** Rooms holding a master broker or a controller-mode replica (which may be elected), in document order. */
  masterRooms: string[]
}

/** A finding before its rule is attached; `severity` overrides the rule's for this one finding. */
export type Draft = Omit<LintFinding, 'ruleId' | 'severity'> & {
  severity?: LintFinding['severity']
}
export type Check = (ctx: Context) => Draft[]

export const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|::1|0\.0\.0\.0)$/i

export function normalHost(host: string): string {
  return LOOPBACK.test(host) ? 'loopback' : host.toLowerCase()
}

export function uniq<T>(items: Iterable<T>): T[] {
  return [...new Set(items)]
}

/** A master, or a controller-mode replica: a broker that serves writes when it is (elected) master. */
export function canServe(b: BrokerNode): boolean {
  return b.spec.role === 'master' || b.spec.role === 'replica'
}

export function mastersIn(ctx: Context, room: string): BrokerNode[] {
  return ctx.brokers.filter((b) => b.room === room && canServe(b))
}

/** Resolves the topology once for all checks. */
export function lintContext(topology: Topology): Context {
  const nodes = listNodes(topology)
  const brokers = nodes.filter((n): n is BrokerNode => n.kind === 'broker')
  const clients = nodes.filter(
    (n): n is ClientNode => n.kind === 'producer' || n.kind === 'consumer'
  )
  const byKey = new Map<string, BrokerGroup>()
  for (const b of brokers) {
    const key = `${b.spec.cluster}/${b.spec.brokerName}`
    const g = byKey.get(key) ?? { key, members: [], master: undefined }
    g.members.push(b)
    if (b.spec.role === 'master' && !g.master) g.master = b
    byKey.set(key, g)
  }
  return {
    topology,
    nodes,
    brokers,
    clients,
    groups: [...byKey.values()],
    roomPath: new Map(topology.rooms.map((r, i) => [r.id, `$.rooms[${i}]`])),
    masterRooms: uniq(brokers.filter(canServe).map((b) => b.room))
  }
}
