import { z } from 'zod'
import type { FieldProblem } from './fields'
import { checkHost, idProblem, nameText, rocketmqNameProblem } from './fields'
import { CLIENT_LANES, MESSAGE_KINDS } from './lanes'
import { kubernetesSettingsSchema } from './kubernetes-settings'

/** Adds a custom issue carrying its fix, which validate.ts turns into the problem's hint. */
function issue(ctx: z.RefinementCtx, p: FieldProblem): void {
  ctx.addIssue({ code: 'custom', message: p.message, params: { hint: p.hint } })
}

/** Node and room ids appear in logs, file names and CLI output, so keep them shell- and path-safe. */
export const idSchema = z.string().superRefine((v, ctx) => {
  const p = idProblem(v)
  if (p) issue(ctx, p)
})

/** A RocketMQ topic or group name (letters, digits, %, |, - and _), which RocketMQ enforces. */
function rocketmqName(kind: 'topic' | 'group') {
  return z.string().superRefine((v, ctx) => {
    const p = rocketmqNameProblem(kind, v)
    if (p) issue(ctx, p)
  })
}

/** A name that keys brokers (cluster, brokerName): trimmed and NFC, so look-alikes are one name. */
function keyName(label: string) {
  return z.string().transform((v, ctx) => {
    const r = nameText(label, v)
    if (r.ok) return r.value
    issue(ctx, r)
    return z.NEVER
  })
}

const portSchema = z.number().int().min(1).max(65535)

/** A host name or IPv4 address; trimmed (and one trailing dot dropped) on purpose, see checkHost. */
export const hostSchema = z.string().transform((v, ctx) => {
  const r = checkHost(v)
  if (r.ok) return r.host
  issue(ctx, r)
  return z.NEVER
})

/** Explicit placement; when both are absent the sandbox allocates a loopback port. */
const endpointFields = {
  host: hostSchema.optional(),
  port: portSchema.optional()
}

// Strict objects: an unknown key is almost always a typo ("prot", "probeIntervalMS") that would
// otherwise be dropped without a word and replaced by a default.
/** The fault actions an operator command can stand in for, in the order menus list them. */
export const OPERATOR_ACTIONS = ['kill', 'pause', 'resume', 'restart', 'stop', 'start'] as const
export type OperatorAction = (typeof OPERATOR_ACTIONS)[number]

const actionCommandSchema = z.string().trim().min(1).max(4000)

/**
 * Operator commands that fault an attached node (DR Studio cannot signal a process it did not
 * start), e.g. `ssh {host} sudo systemctl kill -s KILL rmq-broker`. Placeholders: {host} {port}
 * {id} {room}; `{{` and `}}` are literal braces.
 */
export const nodeActionsSchema = z.strictObject({
  kill: actionCommandSchema.optional(),
  pause: actionCommandSchema.optional(),
  resume: actionCommandSchema.optional(),
  restart: actionCommandSchema.optional(),
  stop: actionCommandSchema.optional(),
  start: actionCommandSchema.optional()
})

/** Commands shared by every attached node of a kind in one room; a node's own `actions` win. */
export const roomActionsSchema = z.strictObject({
  nameserver: nodeActionsSchema.optional(),
  broker: nodeActionsSchema.optional(),
  management: nodeActionsSchema.optional(),
  proxy: nodeActionsSchema.optional(),
  controller: nodeActionsSchema.optional()
})

const actionsField = { actions: nodeActionsSchema.optional() }

/**
 * A controller embedded in a name server (`enableControllerInNamesrv=true`): same process, its own
 * port, which is both its DLedger peer port and the address brokers' `controllerAddr` lists.
 */
export const embeddedControllerSchema = z.strictObject({ port: portSchema.optional() })

export const nameServerSchema = z.strictObject({
  id: idSchema,
  ...endpointFields,
  controller: embeddedControllerSchema.optional(),
  ...actionsField
})

/** A standalone controller (ControllerStartup); `port` is its DLedger peer and broker-facing port. */
export const controllerSchema = z.strictObject({ id: idSchema, ...endpointFields, ...actionsField })

export const brokerSchema = z.strictObject({
  id: idSchema,
  cluster: keyName('cluster').default('DefaultCluster'),
  brokerName: keyName('brokerName'),
  /** `replica`: controller mode, no fixed master; the controllers elect one of the group's replicas. */
  role: z.enum(['master', 'slave', 'replica']),
  /** 0 for a master, >0 for a slave (RocketMQ refuses anything else), -1 for a replica. */
  brokerId: z.number().int().min(-1),
  /**
   * Replicas only: brokerElectionPriority. The controllers elect the in-sync replica with the
   * highest epoch and most data; among equals, the lower priority wins.
   */
  electionPriority: z.number().int().min(1).optional(),
  /**
   * Masters only: `sync` (SYNC_MASTER) acknowledges a write once its slave has it, and answers
   * SLAVE_NOT_AVAILABLE (stored on the master alone) while no slave is connected; absent = `async`.
   */
  replication: z.enum(['async', 'sync']).optional(),
  /** Where the operator wants the store; exported as a placeholder when absent. */
  storePath: z.string().optional(),
  ...endpointFields,
  ...actionsField
})

export const managementNodeSchema = z.strictObject({
  id: idSchema,
  ...endpointFields,
  ...actionsField
})

export const proxySchema = z.strictObject({
  id: idSchema,
  host: hostSchema.optional(),
  /** gRPC port (the remoting port is grpcPort+1 in the sandbox). */
  port: portSchema.optional(),
  remotingPort: portSchema.optional(),
  /**
   * Zone-pin the proxy to its room (ROCKETMQ_ZONE=<room>, ROCKETMQ_ZONE_MODE=true): name servers then
   * hand it only its room's brokers. false = a plain cluster-mode proxy that sees every broker.
   */
  zoneMode: z.boolean().default(true),
  ...actionsField
})

export const selectionPolicySchema = z.enum(['random', 'round-robin', 'least-latency'])

/**
 * What an ordered producer of our client does while its key's queue is unavailable: `wait` never
 * sends the key elsewhere (order kept, those sends fail); `reroute` sends it to the next queue by
 * the room-first rule (sends go on, the key's order breaks by design).
 */
export const orderPolicySchema = z.enum(['wait', 'reroute'])
export type OrderPolicy = z.infer<typeof orderPolicySchema>

/** A client lane; the lanes and their traits are in lanes.ts. */
export const clientLaneSchema = z.enum(CLIENT_LANES)

export const producerSchema = z.strictObject({
  id: idSchema,
  topic: rocketmqName('topic'),
  group: rocketmqName('group'),
  /** Messages per second. */
  rate: z.number().positive().max(100000).default(10),
  messageSize: z
    .number()
    .int()
    .positive()
    .max(4 * 1024 * 1024)
    .default(256),
  lane: clientLaneSchema.default('remoting'),
  /** Rooms to try, in order, when the own room has nothing available. */
  fallbackRooms: z.array(idSchema).optional()
})

export const consumerSchema = z.strictObject({
  id: idSchema,
  topic: rocketmqName('topic'),
  group: rocketmqName('group'),
  lane: clientLaneSchema.default('remoting'),
  fallbackRooms: z.array(idSchema).optional()
})

export const roomSchema = z.strictObject({
  id: idSchema,
  name: z.string().optional(),
  nameServers: z.array(nameServerSchema).default([]),
  brokers: z.array(brokerSchema).default([]),
  managementNodes: z.array(managementNodeSchema).default([]),
  proxies: z.array(proxySchema).default([]),
  /** Absent rather than empty by default, so topologies without controllers save unchanged. */
  controllers: z.array(controllerSchema).optional(),
  producers: z.array(producerSchema).default([]),
  consumers: z.array(consumerSchema).default([]),
  actions: roomActionsSchema.optional()
})

export const topicSchema = z.strictObject({
  name: rocketmqName('topic'),
  queues: z.number().int().min(1).max(1024).default(4)
})

export const topologySettingsSchema = z.strictObject({
  /** How brokers learn name servers: through their room's management node (claim 6) or a static list. */
  namesrvDiscovery: z.enum(['management', 'static']).default('management'),
  probeIntervalMs: z.number().int().min(100).max(600000).default(1000),
  probeTimeoutMs: z.number().int().min(50).max(60000).default(500),
  routeRefreshMs: z.number().int().min(100).max(600000).default(1000),
  selectionPolicy: selectionPolicySchema.default('round-robin'),
  /** RocketMQ server-side zone filter; it has no fallback, so lint warns about it. */
  zoneMode: z.boolean().default(false),
  /** Upper bound on one operator action command (ssh …); the default is 60 s. */
  actionTimeoutMs: z.number().int().min(1000).max(600000).optional(),
  /**
   * Sandbox brokers run RocketMQ's timer wheel (delayed messages; ~37 MiB each). Off by default to
   * keep topologies small; a delayed workload turns it on, and proxies (POP) always need it.
   */
  timerWheel: z.boolean().default(false),
  /**
   * What the topology's producers send in a live run (Start): plain, delayed or ordered messages.
   * A scenario's `workload.messages` decides for its own runs.
   */
  messages: z.enum(MESSAGE_KINDS).default('normal'),
  /** Live runs of ordered messages: the policy of our client and java-dr (see orderPolicySchema). */
  orderPolicy: orderPolicySchema.default('wait'),
  /**
   * What one GiB crossing rooms costs (your currency; cloud providers bill transfer between zones
   * or regions per GB): every report's traffic section turns its cross-room bytes into a cost per
   * hour. Absent: no cost is shown.
   */
  pricePerGb: z.number().nonnegative().max(1_000_000).optional(),
  /** `drstudio export --target kubernetes`: namespace, zone label and values, images, resources. */
  kubernetes: kubernetesSettingsSchema.optional()
})

/**
 * Controller mode (RocketMQ 5 automatic master switch) for every `replica` broker group: how a
 * master acknowledges writes and how the controllers elect. Keys are the 5.3.3 names
 * (MessageStoreConfig, ControllerConfig, BrokerConfig).
 */
export const controllerModeSchema = z.strictObject({
  /** The DLedger group of the controller quorum (controllerDLegerGroup). */
  group: keyName('controller group').default('drstudio'),
  /** true: a write is acknowledged once every replica of the SyncStateSet has it (synchronous). */
  allAckInSyncStateSet: z.boolean().default(true),
  /** Acknowledgements (master included) a write waits for when allAckInSyncStateSet is false. */
  inSyncReplicas: z.number().int().min(1).max(16).default(1),
  /** Below this many in-sync replicas the master refuses writes (IN_SYNC_REPLICAS_NOT_ENOUGH). */
  minInSyncReplicas: z.number().int().min(1).max(16).default(1),
  /** Lower inSyncReplicas to what is in sync (never below minInSyncReplicas). */
  enableAutoInSyncReplicas: z.boolean().default(false),
  /** Let the controllers elect a replica outside the SyncStateSet (it may lack acknowledged data). */
  enableElectUncleanMaster: z.boolean().default(false),
  /** controllerHeartBeatTimeoutMills: how long a silent (hung) broker stays "alive" to the controllers. */
  heartbeatTimeoutMs: z.number().int().min(1000).max(600_000).default(10_000)
})

/** Where a topology came from when DR Studio read it off a running cluster (`drstudio discover`). */
export const topologySourceSchema = z.strictObject({
  kind: z.literal('discovered'),
  /** The name servers asked, `;`-separated as RocketMQ writes them. */
  namesrv: z.string(),
  addressServer: z.string().optional(),
  /** ISO time of the discovery. */
  at: z.string(),
  /** How brokers were put in rooms. */
  rooms: z.enum(['zone', 'map', 'regex']),
  /** The user allowed DR Studio to create the run topic on this cluster (off unless asked). */
  createTopic: z.boolean().default(false)
})

const linkFields = {
  latencyMs: z.number().min(0).max(60_000),
  jitterMs: z.number().min(0).max(60_000),
  lossPct: z.number().min(0).max(100),
  /** null = as fast as the machine goes. */
  bandwidthMbit: z.number().positive().max(100_000).nullable()
}

/** One link's shape, applied both ways between two rooms when the lab comes up. */
export const linkSpecSchema = z.object({
  latencyMs: linkFields.latencyMs.default(0),
  jitterMs: linkFields.jitterMs.default(0),
  lossPct: linkFields.lossPct.default(0),
  bandwidthMbit: linkFields.bandwidthMbit.default(null)
})

/** A link entry as written: absent fields come from `links.default`. */
export const linkOverrideSchema = z.strictObject({
  latencyMs: linkFields.latencyMs.optional(),
  jitterMs: linkFields.jitterMs.optional(),
  lossPct: linkFields.lossPct.optional(),
  bandwidthMbit: linkFields.bandwidthMbit.optional()
})

/**
 * Rooms as separate networks. `auto` uses namespaces where the OS and privileges allow and falls
 * back to loopback (network faults then disabled) with a one-line reason. Link keys are
 * `room1~room2` (order-insensitive) and override `default` field by field.
 */
export const networkSettingsSchema = z.strictObject({
  mode: z.enum(['auto', 'namespaces', 'loopback']).default('auto'),
  links: z.record(z.string(), linkOverrideSchema).default({})
})

export const layoutSchema = z.record(z.string(), z.object({ x: z.number(), y: z.number() }))

/** The topology format version this build reads and writes. */
export const TOPOLOGY_VERSION = 1

export const topologySchema = z.strictObject({
  /** Editors' JSON Schema hint; kept, never used. */
  $schema: z.string().optional(),
  kind: z.literal('drstudio/topology'),
  version: z.literal(TOPOLOGY_VERSION),
  name: z.string().min(1),
  description: z.string().optional(),
  settings: topologySettingsSchema.default(topologySettingsSchema.parse({})),
  topics: z.array(topicSchema).default([]),
  rooms: z.array(roomSchema),
  /** Settings of the controller-mode broker groups (role `replica`); absent = the defaults. */
  controllerMode: controllerModeSchema.optional(),
  /** Absent = `{ mode: 'auto' }` with instant links; optional so existing files stay byte-identical. */
  network: networkSettingsSchema.optional(),
  /** Canvas positions keyed by node or room id; not part of the deployment. */
  layout: layoutSchema.optional(),
  source: topologySourceSchema.optional()
})

export type NameServerSpec = z.infer<typeof nameServerSchema>
export type ControllerSpec = z.infer<typeof controllerSchema>
export type ControllerMode = z.infer<typeof controllerModeSchema>
export type BrokerSpec = z.infer<typeof brokerSchema>
export type ManagementNodeSpec = z.infer<typeof managementNodeSchema>
export type ProxySpec = z.infer<typeof proxySchema>
export type ProducerSpec = z.infer<typeof producerSchema>
export type ConsumerSpec = z.infer<typeof consumerSchema>
export type RoomSpec = z.infer<typeof roomSchema>
export type TopicSpec = z.infer<typeof topicSchema>
export type TopologySettings = z.infer<typeof topologySettingsSchema>
export type Topology = z.infer<typeof topologySchema>
export type SelectionPolicy = z.infer<typeof selectionPolicySchema>
export type NodeActions = z.infer<typeof nodeActionsSchema>
export type RoomActions = z.infer<typeof roomActionsSchema>
export type TopologySource = z.infer<typeof topologySourceSchema>
export type LinkSpec = z.infer<typeof linkSpecSchema>
export type LinkOverride = z.infer<typeof linkOverrideSchema>
export type NetworkSettings = z.infer<typeof networkSettingsSchema>
export type NetworkMode = NetworkSettings['mode']

/** Every kind of node a room can hold, in the order rooms list them. */
export const NODE_KINDS = [
  'nameserver',
  'broker',
  'management',
  'proxy',
  'controller',
  'producer',
  'consumer'
] as const
export type NodeKind = (typeof NODE_KINDS)[number]

/** Room array key for each node kind. */
export const ROOM_KEY: Record<NodeKind, keyof Omit<RoomSpec, 'id' | 'name' | 'actions'>> = {
  nameserver: 'nameServers',
  broker: 'brokers',
  management: 'managementNodes',
  proxy: 'proxies',
  controller: 'controllers',
  producer: 'producers',
  consumer: 'consumers'
}
