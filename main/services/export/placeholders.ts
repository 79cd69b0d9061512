import type { NodeOfKind, TopologyNode } from '../../../common/topology/model'
import { listNodes } from '../../../common/topology/model'
import type { Topology } from '../../../common/topology/schema'

export type ServerNode = Exclude<TopologyNode, { kind: 'producer' | 'consumer' }>
export type BrokerNode = NodeOfKind<'broker'>
export type ProxyNode = NodeOfKind<'proxy'>

/** Ports RocketMQ (and our address server) listen on by default; suggested in the README, used for staging. */
export const DEFAULT_PORTS = {
  nameserver: 9876,
  broker: 10911,
  management: 8080,
  proxy: 8081,
  proxyRemoting: 8080,
  /** The samples' DLedger port (distribution/conf/controller); brokers reach a controller there. */
  controller: 9878
} as const

/** Where the staging containers keep broker stores (the image runs as user rocketmq). */
export const STAGING_STORE_ROOT = '/home/rocketmq/store'
export const STAGING_CONTROLLER_STORE = '/home/rocketmq/controller-store'

/** The explicit port of a name server's embedded controller, as text. */
function embeddedPort(n: ServerNode): string | undefined {
  const port = n.kind === 'nameserver' ? n.spec.controller?.port : undefined
  return port === undefined ? undefined : String(port)
}

type Field = 'host' | 'port' | 'remoting-port' | 'store-root' | 'controller-port'

/** A value the topology leaves open, written as `<token>` so nothing half-filled starts quietly. */
export interface Placeholder {
  token: string
  nodeId: string
  room: string
  kind: ServerNode['kind']
  field: Field
  description: string
}

/** Resolves node addresses either to the topology's values (or placeholders) or to staging values. */
export interface Endpoints {
  readonly staging: boolean
  host(node: ServerNode): string
  port(node: ServerNode): string
  address(node: ServerNode): string
  remotingPort(node: ProxyNode): string
  storeRoot(node: BrokerNode): string
  /** Port of the controller a name server embeds. */
  controllerPort(node: ServerNode): string
  /** DLedger store of a controller (standalone or embedded). */
  controllerStore(node: ServerNode): string
}

const KIND_LABEL: Record<ServerNode['kind'], string> = {
  nameserver: 'name server',
  broker: 'broker',
  management: 'management node',
  proxy: 'proxy',
  controller: 'controller'
}

function token(node: ServerNode, field: Field): string {
  return `<${node.room}-${node.id}-${field}>`
}

/** Order nodes are started in, so listings read top-down like the start procedure. */
export const START_ORDER: readonly TopologyNode['kind'][] = [
  'management',
  'nameserver',
  'controller',
  'broker',
  'proxy',
  'producer',
  'consumer'
]

/** Nodes sorted by room (document order), then start order, then document order. */
export function nodesByRoom(topology: Topology): TopologyNode[] {
  const rooms = topology.rooms.map((r) => r.id)
  return listNodes(topology)
    .map((n, i) => ({ n, i }))
    .sort(
      (a, b) =>
        rooms.indexOf(a.n.room) - rooms.indexOf(b.n.room) ||
        START_ORDER.indexOf(a.n.kind) - START_ORDER.indexOf(b.n.kind) ||
        a.i - b.i
    )
    .map(({ n }) => n)
}

/** Server nodes in start order (every room's management nodes first), then document order. */
export function serverNodes(topology: Topology): ServerNode[] {
  return listNodes(topology)
    .filter((n): n is ServerNode => n.kind !== 'producer' && n.kind !== 'consumer')
    .map((n, i) => ({ n, i }))
    .sort((a, b) => START_ORDER.indexOf(a.n.kind) - START_ORDER.indexOf(b.n.kind) || a.i - b.i)
    .map(({ n }) => n)
}

function defaultPort(node: ServerNode): number {
  return DEFAULT_PORTS[node.kind]
}

/** Every placeholder the production files of this topology contain, in document order. */
export function listPlaceholderSpecs(topology: Topology): Placeholder[] {
  const out: Placeholder[] = []
  for (const node of serverNodes(topology)) {
    const what = `${KIND_LABEL[node.kind]} ${node.id} (room ${node.room})`
    const add = (field: Field, description: string) =>
      out.push({
        token: token(node, field),
        nodeId: node.id,
        room: node.room,
        kind: node.kind,
        field,
        description
      })
    if (node.spec.host === undefined) {
      const from = node.kind === 'management' ? "its room's brokers and clients" : 'every room'
      add('host', `host name or IP of ${what}, reachable from ${from} (not a loopback address)`)
    }
    if (node.spec.port === undefined) {
      const extra =
        node.kind === 'broker'
          ? '; it also binds port-2 and port+1'
          : node.kind === 'proxy'
            ? ' (gRPC)'
            : ''
      const usual =
        node.kind === 'management'
          ? `usually ${DEFAULT_PORTS.management}, the port RocketMQ assumes for an address server`
          : `RocketMQ default ${defaultPort(node)}`
      add('port', `listen port of ${what}; ${usual}${extra}`)
    }
    if (node.kind === 'proxy' && node.spec.remotingPort === undefined) {
      add('remoting-port', `remoting port of ${what}; default ${DEFAULT_PORTS.proxyRemoting}`)
    }
    const embeds = node.kind === 'nameserver' && node.spec.controller !== undefined
    if (embeds && node.spec.controller?.port === undefined) {
      add(
        'controller-port',
        `port of the controller embedded in ${what}; default ${DEFAULT_PORTS.controller}`
      )
    }
    if (node.kind === 'controller' || embeds) {
      add(
        'store-root',
        `DLedger store directory of the controller of ${what}, on a persistent disk`
      )
    }
    if (node.kind === 'broker' && node.spec.storePath === undefined) {
      add(
        'store-root',
        `store directory of ${what} on a dedicated disk; commit log goes under <root>/commitlog`
      )
    }
  }
  return out
}

/** The production view: the topology's own hosts, ports and store paths, placeholders for the rest. */
export function productionEndpoints(): Endpoints {
  const host = (n: ServerNode) => n.spec.host ?? token(n, 'host')
  const port = (n: ServerNode) =>
    n.spec.port === undefined ? token(n, 'port') : String(n.spec.port)
  return {
    staging: false,
    host,
    port,
    address: (n) => `${host(n)}:${port(n)}`,
    remotingPort: (n) =>
      n.spec.remotingPort === undefined ? token(n, 'remoting-port') : String(n.spec.remotingPort),
    storeRoot: (n) => n.spec.storePath ?? token(n, 'store-root'),
    controllerPort: (n) => embeddedPort(n) ?? token(n, 'controller-port'),
    controllerStore: (n) => token(n, 'store-root')
  }
}

/** The docker-compose view: one container per node, named after the node, default ports unless set. */
export function stagingEndpoints(): Endpoints {
  const port = (n: ServerNode) => String(n.spec.port ?? defaultPort(n))
  return {
    staging: true,
    host: (n) => n.id,
    port,
    address: (n) => `${n.id}:${port(n)}`,
    remotingPort: (n) => String(n.spec.remotingPort ?? DEFAULT_PORTS.proxyRemoting),
    storeRoot: () => STAGING_STORE_ROOT,
    controllerPort: (n) => embeddedPort(n) ?? String(DEFAULT_PORTS.controller),
    controllerStore: () => STAGING_CONTROLLER_STORE
  }
}

const PLACEHOLDER = /<([A-Za-z0-9][A-Za-z0-9_.-]*)>/g

/** Placeholder tokens (with brackets) still present in a file, in order of first appearance. */
export function findPlaceholders(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[0]))]
}

/**
 * Writes values into a generated file. Keys may be given with or without brackets. In JSON files a
 * placeholder that is a whole string value becomes a number when the value is numeric (ports).
 */
export function fillPlaceholders(
  text: string,
  values: Readonly<Record<string, string>>,
  opts: { json?: boolean } = {}
): string {
  const lookup = new Map<string, string>()
  for (const [k, v] of Object.entries(values)) lookup.set(k.replace(/^<|>$/g, ''), v)
  let out = text
  if (opts.json) {
    out = out.replace(/"<([A-Za-z0-9][A-Za-z0-9_.-]*)>"/g, (whole, name: string) => {
      const v = lookup.get(name)
      if (v === undefined) return whole
      return /^\d+$/.test(v) ? v : JSON.stringify(v)
    })
  }
  return out.replace(PLACEHOLDER, (whole, name: string) => lookup.get(name) ?? whole)
}
