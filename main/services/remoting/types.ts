import { z } from 'zod'

const nullableString = z
  .string()
  .nullish()
  .transform((v) => v ?? undefined)

/** BrokerData: one broker set (master id 0 + slaves) and the room (zone) it runs in. */
export const brokerDataSchema = z.object({
  cluster: z.string(),
  brokerName: z.string(),
  /** brokerId (as a decimal string; "0" is the master) → "ip:port". */
  brokerAddrs: z.record(z.string(), z.string()),
  /** The broker's ROCKETMQ_ZONE, i.e. its machine room; absent for brokers started without one. */
  zoneName: nullableString,
  enableActingMaster: z
    .boolean()
    .nullish()
    .transform((v) => v ?? false)
})

/** QueueData: how many queues a broker set serves for a topic, and with which permissions. */
export const queueDataSchema = z.object({
  brokerName: z.string(),
  readQueueNums: z.number().int(),
  writeQueueNums: z.number().int(),
  perm: z.number().int(),
  topicSysFlag: z
    .number()
    .int()
    .nullish()
    .transform((v) => v ?? 0)
})

/** TopicRouteData as returned by GET_ROUTEINFO_BY_TOPIC. */
export const topicRouteSchema = z.object({
  orderTopicConf: nullableString,
  queueDatas: z
    .array(queueDataSchema)
    .nullish()
    .transform((v) => v ?? []),
  brokerDatas: z
    .array(brokerDataSchema)
    .nullish()
    .transform((v) => v ?? []),
  filterServerTable: z
    .record(z.string(), z.array(z.string()))
    .nullish()
    .transform((v) => v ?? {})
})

/** ClusterInfo as returned by GET_BROKER_CLUSTER_INFO. */
export const clusterInfoSchema = z.object({
  brokerAddrTable: z
    .record(z.string(), brokerDataSchema)
    .nullish()
    .transform((v) => v ?? {}),
  clusterAddrTable: z
    .record(z.string(), z.array(z.string()))
    .nullish()
    .transform((v) => v ?? {})
})

/** GetConsumerListByGroupResponseBody. */
/** A queue as the broker's JSON bodies name it (MessageQueue). */
export const messageQueueSchema = z.object({
  topic: z.string(),
  brokerName: z.string(),
  queueId: z.number().int()
})
export type MessageQueueRef = z.infer<typeof messageQueueSchema>

/** LOCK_BATCH_MQ's answer: the queues this client holds the lock of now. */
export const lockBatchResponseSchema = z.object({
  lockOKMQSet: z
    .array(messageQueueSchema)
    .nullish()
    .transform((v) => v ?? [])
})

export const consumerListSchema = z.object({
  consumerIdList: z
    .array(z.string())
    .nullish()
    .transform((v) => v ?? [])
})

/** TopicList (GET_ALL_TOPIC_LIST_FROM_NAMESERVER): every topic the name server has a route for. */
export const topicListSchema = z.object({
  topicList: z
    .array(z.string())
    .nullish()
    .transform((v) => v ?? []),
  brokerAddr: nullableString
})

/** KVTable (GET_BROKER_RUNTIME_INFO and friends): string → string. */
/**
 * HARuntimeInfo (GET_BROKER_HA_STATUS): a master lists its slaves' connections; a slave (or a
 * controller-mode replica that is not master) names the master it copies from (its HA address,
 * brokerIP2:haListenPort) and how far its commit log reaches.
 */
export const haRuntimeInfoSchema = z.object({
  master: z.boolean(),
  masterCommitLogMaxOffset: z.number().optional(),
  inSyncSlaveNums: z.number().optional(),
  haClientRuntimeInfo: z
    .object({ masterAddr: z.string().nullish(), maxOffset: z.number() })
    .nullish()
})
export type HaRuntimeInfo = z.infer<typeof haRuntimeInfoSchema>

export const kvTableSchema = z.object({
  table: z
    .record(z.string(), z.string())
    .nullish()
    .transform((v) => v ?? {})
})

/** BrokerReplicasInfo.ReplicaIdentity: one replica of a controller-mode broker set. */
export const replicaIdentitySchema = z.object({
  brokerName: z.string(),
  /** The id the controller assigned (1, 2, …); not the 0/1 master-slave id of the route. */
  brokerId: z.number().int(),
  brokerAddress: z.string(),
  alive: z
    .boolean()
    .nullish()
    .transform((v) => v ?? false)
})

/** BrokerReplicasInfo.ReplicasInfo: a broker set's master, epochs and SyncStateSet. */
export const replicasInfoSchema = z.object({
  /** Absent while the set has no master (the last one died and nothing could be elected). */
  masterBrokerId: z
    .number()
    .int()
    .nullish()
    .transform((v) => v ?? null),
  masterAddress: z
    .string()
    .nullish()
    .transform((v) => v ?? null),
  masterEpoch: z.number().int(),
  syncStateSetEpoch: z.number().int(),
  inSyncReplicas: z
    .array(replicaIdentitySchema)
    .nullish()
    .transform((v) => v ?? []),
  notInSyncReplicas: z
    .array(replicaIdentitySchema)
    .nullish()
    .transform((v) => v ?? [])
})

/** BrokerReplicasInfo (CONTROLLER_GET_SYNC_STATE_DATA): brokerName → its replica info. */
export const brokerReplicasInfoSchema = z.object({
  replicasInfoTable: z
    .record(z.string(), replicasInfoSchema)
    .nullish()
    .transform((v) => v ?? {})
})

/** SyncStateSet (the body of CONTROLLER_GET_REPLICA_INFO): controller ids of the in-sync replicas. */
export const syncStateSetSchema = z.object({
  syncStateSet: z
    .array(z.number().int())
    .nullish()
    .transform((v) => v ?? []),
  syncStateSetEpoch: z.number().int()
})

export type ReplicaIdentity = z.infer<typeof replicaIdentitySchema>
export type ReplicasInfo = z.infer<typeof replicasInfoSchema>
export type BrokerData = z.infer<typeof brokerDataSchema>
export type QueueData = z.infer<typeof queueDataSchema>
export type TopicRoute = z.infer<typeof topicRouteSchema>
export type ClusterInfo = z.infer<typeof clusterInfoSchema>

/** PermName bits of a topic/queue. */
export const Perm = { READ: 4, WRITE: 2, INHERIT: 1 } as const

/** The master's address of a broker set, if it currently has one registered. */
export function masterAddress(broker: Pick<BrokerData, 'brokerAddrs'>): string | undefined {
  return broker.brokerAddrs['0']
}
