/** Request codes we send or receive (RocketMQ RequestCode.java); names match the Java constants. */
export const RequestCode = {
  SEND_MESSAGE: 10,
  PULL_MESSAGE: 11,
  QUERY_CONSUMER_OFFSET: 14,
  UPDATE_CONSUMER_OFFSET: 15,
  UPDATE_AND_CREATE_TOPIC: 17,
  UPDATE_BROKER_CONFIG: 25,
  GET_BROKER_RUNTIME_INFO: 28,
  GET_MAX_OFFSET: 30,
  HEART_BEAT: 34,
  UNREGISTER_CLIENT: 35,
  END_TRANSACTION: 37,
  GET_CONSUMER_LIST_BY_GROUP: 38,
  CHECK_TRANSACTION_STATE: 39,
  NOTIFY_CONSUMER_IDS_CHANGED: 40,
  LOCK_BATCH_MQ: 41,
  UNLOCK_BATCH_MQ: 42,
  GET_KV_CONFIG: 101,
  GET_ROUTEINFO_BY_TOPIC: 105,
  GET_BROKER_CLUSTER_INFO: 106,
  UPDATE_AND_CREATE_SUBSCRIPTIONGROUP: 200,
  GET_ALL_TOPIC_LIST_FROM_NAMESERVER: 206,
  SEND_MESSAGE_V2: 310,
  GET_BROKER_HA_STATUS: 907,
  CONTROLLER_GET_REPLICA_INFO: 1004,
  CONTROLLER_GET_METADATA_INFO: 1005,
  CONTROLLER_GET_SYNC_STATE_DATA: 1006
} as const

/** Response codes we branch on (RemotingSysResponseCode + ResponseCode.java). */
export const ResponseCode = {
  SUCCESS: 0,
  SYSTEM_ERROR: 1,
  SYSTEM_BUSY: 2,
  REQUEST_CODE_NOT_SUPPORTED: 3,
  FLUSH_DISK_TIMEOUT: 10,
  SLAVE_NOT_AVAILABLE: 11,
  FLUSH_SLAVE_TIMEOUT: 12,
  SERVICE_NOT_AVAILABLE: 14,
  TOPIC_NOT_EXIST: 17,
  PULL_NOT_FOUND: 19,
  PULL_RETRY_IMMEDIATELY: 20,
  PULL_OFFSET_MOVED: 21,
  QUERY_NOT_FOUND: 22,
  SUBSCRIPTION_NOT_EXIST: 24,
  SUBSCRIPTION_GROUP_NOT_EXIST: 26,
  GO_AWAY: 1500,
  /** A follower controller refuses reads and writes; ask the leader (GET_METADATA_INFO names it). */
  CONTROLLER_NOT_LEADER: 2007,
  CONTROLLER_BROKER_METADATA_NOT_EXIST: 2008
} as const

/** Header flag bits (RemotingCommand.RPC_TYPE / RPC_ONEWAY). */
export const RpcFlag = { RESPONSE: 1, ONEWAY: 2 } as const

/** PullSysFlag bits. */
export const PullSysFlag = {
  COMMIT_OFFSET: 1,
  SUSPEND: 2,
  SUBSCRIPTION: 4,
  CLASS_FILTER: 8,
  LITE_PULL: 16
} as const

/** MessageSysFlag bits. */
export const MessageSysFlag = {
  COMPRESSED: 0x1,
  MULTI_TAGS: 0x2,
  /** A transaction's half message (TRANSACTION_PREPARED_TYPE); END_TRANSACTION decides it. */
  TRANSACTION_PREPARED: 0x4,
  BORNHOST_V6: 0x10,
  STOREHOST_V6: 0x20
} as const

/** END_TRANSACTION's commitOrRollback (MessageSysFlag.TRANSACTION_*_TYPE). */
export const TransactionResolution = {
  /** Unknown yet: the broker checks back later. */
  NOT: 0,
  COMMIT: 0x8,
  ROLLBACK: 0xc
} as const

/** What we announce; 479 is MQVersion V5_3_3, which also gets standard-JSON routes. */
export const DEFAULT_LANGUAGE = 'JAVA'
export const DEFAULT_VERSION = 479

/** LanguageCode ordinals, used only by the binary (ROCKETMQ) header. */
export const LANGUAGE_CODES: readonly string[] = [
  'JAVA',
  'CPP',
  'DOTNET',
  'PYTHON',
  'DELPHI',
  'ERLANG',
  'RUBY',
  'OTHER',
  'HTTP',
  'GO',
  'PHP',
  'OMS',
  'RUST',
  'NODE_JS'
]
