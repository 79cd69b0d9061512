import { z } from 'zod'

/** Node and room ids appear in logs, file names and CLI output, so keep them shell- and path-safe. */
export const idSchema = z
  .string()
  .regex(
    /^[A-Za-z][A-Za-z0-9_-]{0,62}$/,
    'ids start with a letter and use letters, digits, - and _'
  )

const portSchema = z.number().int().min(1).max(65535)

/** Explicit placement; when both are absent the sandbox allocates a loopback port. */
const endpointFields = {
  host: z.string().min(1).optional(),
  port: portSchema.optional()
}

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
  proxy: nodeActionsSchema.optional()
})

const actionsField = { actions: nodeActionsSchema.optional() }

export const nameServerSchema = z.object({ id: idSchema, ...endpointFields, ...actionsField })

export const brokerSchema = z.object({
  id: idSchema,
  cluster: z.string().min(1).default('DefaultCluster'),
  brokerName: z.string().min(1),
  role: z.enum(['master', 'slave']),
  /** 0 for a master, >0 for a slave (RocketMQ refuses anything else). */
  brokerId: z.number().int().min(0),
  /** Where the operator wants the store; exported as a placeholder when absent. */
  storePath: z.string().optional(),
  ...endpointFields,
  ...actionsField
})

export const managementNodeSchema = z.object({
  id: idSchema,
  ...endpointFields,
  ...actionsField
})

export const proxySchema = z.object({
  id: idSchema,
  host: z.string().min(1).optional(),
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

export const producerSchema = z.object({
  id: idSchema,
  topic: z.string().min(1),
  group: z.string().min(1),
  /** Messages per second. */
  rate: z.number().positive().max(100000).default(10),
  messageSize: z
    .number()
    .int()
    .positive()
    .max(4 * 1024 * 1024)
    .default(256),
  lane: z.enum(['remoting', 'grpc', 'baseline']).default('remoting'),
  /** Rooms to try, in order, when the own room has nothing available. */
  fallbackRooms: z.array(idSchema).optional()
})

export const consumerSchema = z.object({
  id: idSchema,
  topic: z.string().min(1),
  group: z.string().min(1),
  lane: z.enum(['remoting', 'grpc', 'baseline']).default('remoting'),
  fallbackRooms: z.array(idSchema).optional()
})

export const roomSchema = z.object({
  id: idSchema,
  name: z.string().optional(),
  nameServers: z.array(nameServerSchema).default([]),
  brokers: z.array(brokerSchema).default([]),
  managementNodes: z.array(managementNodeSchema).default([]),
  proxies: z.array(proxySchema).default([]),
  producers: z.array(producerSchema).default([]),
  consumers: z.array(consumerSchema).default([]),
  actions: roomActionsSchema.optional()
})

export const topicSchema = z.object({
  name: z.string().min(1),
  queues: z.number().int().min(1).max(1024).default(4)
})

export const topologySettingsSchema = z.object({
  /** How brokers learn name servers: through their room's management node (claim 6) or a static list. */
  namesrvDiscovery: z.enum(['management', 'static']).default('management'),
  probeIntervalMs: z.number().int().min(100).max(600000).default(1000),
  probeTimeoutMs: z.number().int().min(50).max(60000).default(500),
  routeRefreshMs: z.number().int().min(100).max(600000).default(1000),
  selectionPolicy: selectionPolicySchema.default('round-robin'),
  /** RocketMQ server-side zone filter; it has no fallback, so lint warns about it. */
  zoneMode: z.boolean().default(false),
  /** Upper bound on one operator action command (ssh …); the default is 60 s. */
  actionTimeoutMs: z.number().int().min(1000).max(600000).optional()
})

/** Where a topology came from when DR Studio read it off a running cluster (`drstudio discover`). */
export const topologySourceSchema = z.object({
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

export const layoutSchema = z.record(z.string(), z.object({ x: z.number(), y: z.number() }))

export const topologySchema = z.object({
  kind: z.literal('drstudio/topology'),
  version: z.literal(1),
  name: z.string().min(1),
  description: z.string().optional(),
  settings: topologySettingsSchema.default(topologySettingsSchema.parse({})),
  topics: z.array(topicSchema).default([]),
  rooms: z.array(roomSchema),
  /** Canvas positions keyed by node or room id; not part of the deployment. */
  layout: layoutSchema.optional(),
  source: topologySourceSchema.optional()
})

export type NameServerSpec = z.infer<typeof nameServerSchema>
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

/** Every kind of node a room can hold, in the order rooms list them. */
export const NODE_KINDS = [
  'nameserver',
  'broker',
  'management',
  'proxy',
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
  producer: 'producers',
  consumer: 'consumers'
}
