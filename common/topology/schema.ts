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

export const nameServerSchema = z.object({ id: idSchema, ...endpointFields })

export const brokerSchema = z.object({
  id: idSchema,
  cluster: z.string().min(1).default('DefaultCluster'),
  brokerName: z.string().min(1),
  role: z.enum(['master', 'slave']),
  /** 0 for a master, >0 for a slave (RocketMQ refuses anything else). */
  brokerId: z.number().int().min(0),
  /** Where the operator wants the store; exported as a placeholder when absent. */
  storePath: z.string().optional(),
  ...endpointFields
})

export const managementNodeSchema = z.object({
  id: idSchema,
  ...endpointFields
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
  zoneMode: z.boolean().default(true)
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
  consumers: z.array(consumerSchema).default([])
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
  zoneMode: z.boolean().default(false)
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
export const linkOverrideSchema = z.object({
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
export const networkSettingsSchema = z.object({
  mode: z.enum(['auto', 'namespaces', 'loopback']).default('auto'),
  links: z.record(z.string(), linkOverrideSchema).default({})
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
  /** Absent = `{ mode: 'auto' }` with instant links; optional so existing files stay byte-identical. */
  network: networkSettingsSchema.optional(),
  /** Canvas positions keyed by node or room id; not part of the deployment. */
  layout: layoutSchema.optional()
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
  'producer',
  'consumer'
] as const
export type NodeKind = (typeof NODE_KINDS)[number]

/** Room array key for each node kind. */
export const ROOM_KEY: Record<NodeKind, keyof Omit<RoomSpec, 'id' | 'name'>> = {
  nameserver: 'nameServers',
  broker: 'brokers',
  management: 'managementNodes',
  proxy: 'proxies',
  producer: 'producers',
  consumer: 'consumers'
}
