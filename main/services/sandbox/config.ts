import { join } from 'node:path'
import { brokerRoleOf } from '../../../common/topology/model'
import type { BrokerSpec } from '../../../common/topology/schema'
import type { ReplicaConfigInput } from './controller-config'
import { replicaProperties } from './controller-config'
import type { PropValue } from './prop-value'

export type { PropValue } from './prop-value'

/** How a broker (or proxy) learns the name servers. */
export type Discovery =
  | {
      mode: 'management'
      /** host:port of the room's management node */
      address: string
      /** Every room's name servers as that node listed them just before launch (launch-discovery). */
      atLaunch?: string[]
    }
  | { mode: 'static'; namesrvAddr: string[] }

/** Address-server subgroup: with a `host:port` domain RocketMQ builds `http://host:port/rocketmq/nsaddr`. */
export const ADDRESS_SERVER_SUBGROUP = 'nsaddr'

/**
 * Renders a Java properties file. RocketMQ silently ignores unknown keys, so every key here was
 * checked against rocketmq-all-5.3.3 (BrokerConfig, MessageStoreConfig, NettyServerConfig, NamesrvConfig).
 */
export function renderProperties(
  entries: Record<string, PropValue>,
  header: string[] = []
): string {
  const lines = header.map((h) => `# ${h}`)
  for (const [key, value] of Object.entries(entries)) {
    lines.push(`${key}=${escapeProperty(String(value))}`)
  }
  return lines.join('\n') + '\n'
}

/** Escapes what java.util.Properties treats specially; Windows paths need their backslashes kept. */
export function escapeProperty(value: string): string {
  return value
    .replace(/\\/g, '\\\\')
    .replace(/\n/g, '\\n')
    .replace(/^\s/, (m) => `\\${m}`)
}

export interface NamesrvConfigInput {
  /** Address it binds: loopback, or the node's own address in its room's network. */
  host?: string
  port: number
  nodeDir: string
  /** Scan for silent brokers every second instead of every 5 s (pairs with the broker heartbeat). */
  fastBrokerExpiry: boolean
}

/** namesrv.properties: its own address and port, kv store in its run dir. */
export function namesrvProperties(input: NamesrvConfigInput): Record<string, PropValue> {
  return {
    listenPort: input.port,
    bindAddress: input.host ?? '127.0.0.1',
    kvConfigPath: join(input.nodeDir, 'namesrv', 'kvConfig.json'),
    scanNotActiveBrokerInterval: input.fastBrokerExpiry ? 1000 : 5000
  }
}

export interface BrokerConfigInput {
  /** Address it binds and advertises (brokerIP1): loopback, or its own in its room's network. */
  host?: string
  cluster: string
  brokerName: string
  brokerId: number
  role: 'master' | 'slave' | 'replica'
  /** A master's replication (SYNC_MASTER or ASYNC_MASTER); absent = async. */
  replication?: BrokerSpec['replication']
  /** Controller mode (role `replica`): the quorum and how writes are acknowledged. */
  replica?: ReplicaConfigInput
  port: number
  nodeDir: string
  discovery: Discovery
  fastBrokerExpiry: boolean
  /** The topology has proxies: their gRPC consumers POP, which brokers refuse without the timer wheel. */
  popConsumption?: boolean
  /** The topology asks for the timer wheel (settings.timerWheel: delayed messages). */
  timerWheel?: boolean
}

/**
 * Transactions' check-back in sandbox brokers: every half message older than
 * TRANSACTION_CHECK_AFTER_MS (transactionTimeOut, RocketMQ's default: it must stay above the 3 s
 * in which the broker batches its records of ended transactions, or a committed message could be
 * checked and committed again) is checked back every TRANSACTION_CHECK_INTERVAL_MS (30 s by
 * default in RocketMQ 5, 60 s in 4.x; far beyond a scenario's drain).
 */
export const TRANSACTION_CHECK_INTERVAL_MS = 2000
export const TRANSACTION_CHECK_AFTER_MS = 6000

/**
 * broker.conf for a small, fast-booting broker.
 *
 * Liveness choice: with `fastBrokerExpiry` the broker runs `enableSlaveActingMaster=true`, which is the
 * only 5.3.3 switch that makes it heartbeat every `brokerHeartbeatInterval` (1 s) and send
 * `heartbeatTimeoutMillis=brokerNotActiveTimeoutMillis` (10 s) when registering; name servers then drop
 * a paused (SIGSTOP) broker after ~10-11 s instead of 120 s. Side effects, acceptable for failover
 * tests: with the master gone the name server wipes the write permission of the group's queues
 * (a slave is read-only anyway), and a slave may act as master for timer/transaction checks.
 * A killed broker is dropped at once either way (the name server sees the TCP close).
 */
export function brokerProperties(input: BrokerConfigInput): Record<string, PropValue> {
  const store = join(input.nodeDir, 'store')
  const props: Record<string, PropValue> = {
    brokerClusterName: input.cluster,
    brokerName: input.brokerName,
    brokerId: input.role === 'master' ? 0 : input.brokerId,
    brokerRole: brokerRoleOf(input),
    flushDiskType: 'ASYNC_FLUSH',
    listenPort: input.port,
    haListenPort: input.port + 1,
    bindAddress: input.host ?? '127.0.0.1',
    brokerIP1: input.host ?? '127.0.0.1',
    brokerIP2: input.host ?? '127.0.0.1',
    storePathRootDir: store,
    storePathCommitLog: join(store, 'commitlog'),
    // 16 MiB commit log files (default 1 GiB) and tiny consume queue/index files keep disk and boot small.
    mappedFileSizeCommitLog: 16 * 1024 * 1024,
    mappedFileSizeConsumeQueue: 60000,
    maxHashSlotNum: 4000,
    maxIndexNum: 1000,
    // The 5.x timer wheel allocates ~37 MiB of direct memory plus a timer log; delay levels work
    // without it, POP (the proxies' gRPC consumption) and TIMER_DELIVER_MS messages do not.
    timerWheelEnable: (input.popConsumption ?? false) || (input.timerWheel ?? false),
    // Brokers behind proxies take MIXED topics: a gRPC lane's delayed messages (type DELAY) share
    // their topic with its plain warm-up and probe sends, and the proxy checks types per topic.
    ...(input.popConsumption ? { enableMixedMessageType: true } : {}),
    mappedFileSizeTimerLog: 16 * 1024 * 1024,
    // POP's revive threads (8 by default) are joined one after another at shutdown and each may be
    // mid-scan for up to ~4 s, so a graceful stop took 15-30 s; one thread serves a sandbox's load.
    reviveQueueNum: 1,
    transientStorePoolEnable: false,
    warmMapedFileEnable: false,
    deleteWhen: '04',
    fileReservedTime: 1,
    diskMaxUsedSpaceRatio: 95,
    // Topics are created explicitly (topicsOf), so a typo in a client cannot invent one.
    autoCreateTopicEnable: false,
    autoCreateSubscriptionGroup: true,
    defaultTopicQueueNums: 4,
    // Shortest periodic re-registration RocketMQ allows (clamped to [10 s, 60 s]).
    registerNameServerPeriod: 10000,
    waitTimeMillsInSendQueue: 1000,
    osPageCacheBusyTimeOutMills: 3000,
    transactionCheckInterval: TRANSACTION_CHECK_INTERVAL_MS,
    transactionTimeOut: TRANSACTION_CHECK_AFTER_MS
  }
  if (input.discovery.mode === 'management' && input.discovery.atLaunch) {
    // Learned from the management node at launch: the broker registers with all of them at boot.
    props.namesrvAddr = input.discovery.atLaunch.join(';')
  } else if (input.discovery.mode === 'management') {
    // BrokerStartup copies these to rocketmq.namesrv.domain(.subgroup); with "host:port" the URL is
    // http://host:port/rocketmq/nsaddr. It is fetched 10 s after boot, then every fetchNamesrvAddrInterval.
    props.fetchNamesrvAddrByAddressServer = true
    props.rmqAddressServerDomain = input.discovery.address
    props.rmqAddressServerSubGroup = ADDRESS_SERVER_SUBGROUP
    props.fetchNamesrvAddrInterval = 5000
  } else {
    props.namesrvAddr = input.discovery.namesrvAddr.join(';')
  }
  if (input.role === 'replica') {
    // Controller mode has its own liveness (controller heartbeats) and master switch; acting-master
    // semantics would let a slave take writes meant for the elected master.
    return { ...props, ...replicaProperties(input.replica ?? { peers: [] }) }
  }
  if (input.role === 'master' && input.replication === 'sync') {
    return { ...props, ...syncMasterProperties() }
  }
  if (input.fastBrokerExpiry) {
    props.enableSlaveActingMaster = true
    props.brokerHeartbeatInterval = 1000
    props.brokerNotActiveTimeoutMillis = 10000
  }
  return props
}

/**
 * How long a synchronous master waits for its slave before it answers FLUSH_SLAVE_TIMEOUT (the
 * message stays stored). RocketMQ's 3 s equals the Java client's send timeout, so the client would
 * time out first and never see the status the broker answers.
 */
export const SYNC_SLAVE_TIMEOUT_MS = 1000

/**
 * A 5.x SYNC_MASTER waits for a slave only when inSyncReplicas counts one (master included: 2);
 * with the default 1 it acknowledges at once, like an asynchronous master. It runs without
 * acting-master semantics (and so without the heartbeat-based expiry): with them a master whose
 * slave is gone refuses writes at once (IN_SYNC_REPLICAS_NOT_ENOUGH) instead of RocketMQ's default
 * wait and FLUSH_SLAVE_TIMEOUT, which 4.x answered as SLAVE_NOT_AVAILABLE (apache/rocketmq#3885).
 */
export function syncMasterProperties(): Record<string, PropValue> {
  return { inSyncReplicas: 2, slaveTimeout: SYNC_SLAVE_TIMEOUT_MS }
}

/** The JSON file main/services/management/standalone.ts reads. */
export interface ManagementNodeConfig {
  id: string
  room: string
  host: string
  port: number
  probeIntervalMs: number
  probeTimeoutMs: number
  nameServers: { id: string; room: string; address: string }[]
  /** Every room's proxies; address = host:gRPC port. */
  proxies?: {
    id: string
    room: string
    address: string
    remotingAddress?: string
    zoneMode?: boolean
  }[]
  /** Controller-mode replicas of every room (their rooms, for clients placing a group's master). */
  brokers?: { id: string; room: string; address: string }[]
}

export interface ProxyConfigInput {
  host?: string
  cluster: string
  proxyName: string
  grpcPort: number
  remotingPort: number
  discovery: Discovery
}

/** rmq-proxy.json for a cluster-mode proxy (several local-mode proxies on one host route wrongly). */
export function proxyConfig(input: ProxyConfigInput): Record<string, PropValue> {
  const config: Record<string, PropValue> = {
    rocketMQClusterName: input.cluster,
    proxyName: input.proxyName,
    proxyMode: 'CLUSTER',
    grpcServerPort: input.grpcPort,
    remotingListenPort: input.remotingPort,
    remotingAccessAddr: input.host ?? '127.0.0.1',
    localServeAddr: input.host ?? '127.0.0.1',
    // A broker hands a transaction's check-back only to a proxy that heartbeated its group (the
    // topic, for gRPC producers) and proxies do so every 20 s by default: the first 20 s of a run's
    // check-backs found no channel and spent the half message's checks (transactionCheckMax).
    transactionHeartbeatPeriodSecond: 1,
    // Shutdown waits for the newest transaction record to expire (30 s), then for gRPC streams
    // (30 s): past the sandbox's stop grace, so a transactional run's proxies were killed.
    transactionDataMaxWaitClearMillis: 1000,
    grpcShutdownTimeSeconds: 3
  }
  if (input.discovery.mode === 'management') {
    config.namesrvDomain = input.discovery.address
    config.namesrvDomainSubgroup = ADDRESS_SERVER_SUBGROUP
  } else {
    config.namesrvAddr = input.discovery.namesrvAddr.join(';')
  }
  return config
}
