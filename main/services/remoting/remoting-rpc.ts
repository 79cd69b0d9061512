import { EventEmitter } from 'node:events'
import type { z } from 'zod'
import type { DecodedCommand } from './codec'
import { PullSysFlag, RequestCode, ResponseCode } from './codes'
import {
  RemotingConnection,
  type RemotingConnectionOptions,
  type RemotingRequest
} from './connection'
import { BadResponseError, RemoteError, type RemotingError } from './errors'
import { parseFastjson } from './fastjson'
import {
  buildHeartbeatBody,
  createUniqId,
  decodeMessages,
  encodeProperties,
  MessageProperty,
  parseTagExpression,
  type HeartbeatInput,
  type MessageExt
} from './message'
import {
  brokerReplicasInfoSchema,
  clusterInfoSchema,
  consumerListSchema,
  kvTableSchema,
  syncStateSetSchema,
  topicListSchema,
  topicRouteSchema,
  type ClusterInfo,
  type ReplicasInfo,
  type TopicRoute
} from './types'

/** Options of a RemotingRpc; `connectionFactory` is the port tests use to substitute sockets. */
export interface RemotingRpcOptions extends RemotingConnectionOptions {
  connectionFactory?: (address: string, options: RemotingConnectionOptions) => RemotingConnection
}

/** Events re-emitted from every pooled connection. */
export interface RemotingClientEvents {
  'consumer-ids-changed': [{ address: string; consumerGroup: string | undefined }]
  'connection-close': [{ address: string; error?: RemotingError }]
}

/** Per-call options. */
export interface CallOptions {
  timeoutMs?: number
}

type ExtValue = string | number | boolean | undefined | null

/** Drops absent values and stringifies the rest, as Java's makeCustomHeaderToNet does. */
export function toExtFields(fields: Record<string, ExtValue>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(fields)) if (v !== undefined && v !== null) out[k] = String(v)
  return out
}

/** Input of UPDATE_AND_CREATE_TOPIC; defaults give a 4+4 queue read-write topic. */
export interface CreateTopicInput {
  topic: string
  brokerName?: string
  readQueueNums?: number
  writeQueueNums?: number
  /** PermName bits; 6 = read + write. */
  perm?: number
  order?: boolean
  topicFilterType?: 'SINGLE_TAG' | 'MULTI_TAG'
  topicSysFlag?: number
  /** e.g. `+message.type=NORMAL`. */
  attributes?: string
}

/** Input of SEND_MESSAGE_V2: the caller has already chosen the broker (address + name) and queue. */
export interface SendMessageInput {
  brokerName: string
  producerGroup: string
  topic: string
  queueId: number
  body: Buffer | string
  tags?: string
  keys?: string | string[]
  /** User properties, sent alongside the system ones. */
  properties?: Record<string, string>
  /** WAIT property; the Java default is true. */
  waitStoreMsgOK?: boolean
  /** Client message id; generated when absent. */
  uniqKey?: string
  flag?: number
  sysFlag?: number
  bornTimestamp?: number
  defaultTopic?: string
  defaultTopicQueueNums?: number
  reconsumeTimes?: number
  maxReconsumeTimes?: number
}

/** SendStatus of the Java client; every value means the broker stored the message. */
export type SendStatus =
  'SEND_OK' | 'FLUSH_DISK_TIMEOUT' | 'FLUSH_SLAVE_TIMEOUT' | 'SLAVE_NOT_AVAILABLE'

/** Outcome of a stored send. */
export interface SendResult {
  status: SendStatus
  /** UNIQ_KEY: the id consumers see. */
  msgId: string
  /** Broker-side id (store host + commit-log offset). */
  offsetMsgId: string
  topic: string
  brokerName: string
  queueId: number
  queueOffset: number
  transactionId?: string
}

/** Input of PULL_MESSAGE; always sends the subscription, so no prior heartbeat is needed. */
export interface PullMessageInput {
  brokerName: string
  consumerGroup: string
  topic: string
  queueId: number
  queueOffset: number
  maxMsgNums?: number
  /** Tag expression, `*` by default. */
  expression?: string
  subVersion?: number
  /** When > 0 the broker also stores this as the group's committed offset (COMMIT_OFFSET flag). */
  commitOffset?: number
  /** Long-poll duration; 0 disables SUSPEND. Default 15000 (the Java push consumer's value). */
  suspendTimeoutMs?: number
  maxMsgBytes?: number
}

/** PullStatus of the Java client. */
export type PullStatus = 'FOUND' | 'NO_NEW_MSG' | 'NO_MATCHED_MSG' | 'OFFSET_ILLEGAL'

/** Outcome of a pull; messages are already re-filtered by tag like the Java client does. */
export interface PullResult {
  status: PullStatus
  nextBeginOffset: number
  minOffset: number
  maxOffset: number
  suggestWhichBrokerId: number
  messages: MessageExt[]
}

/** Identifies one queue of one broker set for a consumer group. */
export interface ConsumerQueueInput {
  brokerName: string
  consumerGroup: string
  topic: string
  queueId: number
}

/** CONTROLLER_GET_METADATA_INFO of one controller: the DLedger quorum as that controller sees it. */
export interface ControllerMetadata {
  group: string | null
  /** DLedger self id of the leader (`n0`…); null while the quorum has none. */
  leaderId: string | null
  /** The leader's controller address (its DLedger peer address, where brokers reach it). */
  leaderAddress: string | null
  isLeader: boolean
  peers: { id: string; address: string }[]
}

/** CONTROLLER_GET_REPLICA_INFO: one broker set's master and SyncStateSet (controller ids). */
export interface ReplicaInfo {
  masterBrokerId: number | null
  masterAddress: string | null
  masterEpoch: number
  syncStateSet: number[]
  syncStateSetEpoch: number
}

/** `n0:127.0.0.1:9878;n1:…;` (ControllerManager joins id and address with ':'). */
export function parseControllerPeers(text: string | undefined): { id: string; address: string }[] {
  return (text ?? '')
    .split(';')
    .map((p) => p.trim())
    .filter((p) => p.length > 0 && p.includes(':'))
    .map((p) => ({ id: p.slice(0, p.indexOf(':')), address: p.slice(p.indexOf(':') + 1) }))
}

const SEND_STATUS: Record<number, SendStatus> = {
  [ResponseCode.SUCCESS]: 'SEND_OK',
  [ResponseCode.FLUSH_DISK_TIMEOUT]: 'FLUSH_DISK_TIMEOUT',
  [ResponseCode.FLUSH_SLAVE_TIMEOUT]: 'FLUSH_SLAVE_TIMEOUT',
  [ResponseCode.SLAVE_NOT_AVAILABLE]: 'SLAVE_NOT_AVAILABLE'
}

const PULL_STATUS: Record<number, PullStatus> = {
  [ResponseCode.SUCCESS]: 'FOUND',
  [ResponseCode.PULL_NOT_FOUND]: 'NO_NEW_MSG',
  [ResponseCode.PULL_RETRY_IMMEDIATELY]: 'NO_MATCHED_MSG',
  [ResponseCode.PULL_OFFSET_MOVED]: 'OFFSET_ILLEGAL'
}

/**
 * RocketMQ remoting client: one pooled connection per address and typed helpers for the requests
 * DR Studio needs. The caller chooses every address; nothing here picks a namesrv or broker.
 */
export class RemotingRpc extends EventEmitter<RemotingClientEvents> {
  private readonly pool = new Map<string, RemotingConnection>()
  private readonly options: RemotingRpcOptions
  private closed = false

  constructor(options: RemotingRpcOptions = {}) {
    super()
    this.options = options
  }

  /** The pooled connection for an address, created on first use. */
  connection(address: string): RemotingConnection {
    let conn = this.pool.get(address)
    if (conn && !conn.isClosed) return conn
    const { connectionFactory, ...connOptions } = this.options
    conn = connectionFactory
      ? connectionFactory(address, connOptions)
      : new RemotingConnection(address, connOptions)
    conn.on('consumer-ids-changed', (e) => this.emit('consumer-ids-changed', e))
    conn.on('close', (e) => this.emit('connection-close', e))
    if (!this.closed) this.pool.set(address, conn)
    else conn.close()
    return conn
  }

  /** Raw request: resolves with any response code; rejects only on transport errors. */
  invoke(address: string, req: RemotingRequest, timeoutMs?: number): Promise<DecodedCommand> {
    return this.connection(address).request(req, timeoutMs)
  }

  /** Raw oneway request. */
  invokeOneway(address: string, req: RemotingRequest): Promise<void> {
    return this.connection(address).oneway(req)
  }

  /** Drops the pooled connection of one address (e.g. after the peer was killed). */
  closeConnection(address: string): void {
    this.pool.get(address)?.close()
    this.pool.delete(address)
  }

  /** Closes every connection; pending requests fail with connection-closed. */
  close(): void {
    this.closed = true
    for (const conn of this.pool.values()) conn.close()
    this.pool.clear()
  }

  /** GET_ROUTEINFO_BY_TOPIC (105); TOPIC_NOT_EXIST surfaces as RemoteError with responseCode 17. */
  async getRouteInfoByTopic(
    namesrvAddress: string,
    topic: string,
    options: CallOptions = {}
  ): Promise<TopicRoute> {
    const res = await this.call(
      namesrvAddress,
      {
        code: RequestCode.GET_ROUTEINFO_BY_TOPIC,
        extFields: toExtFields({ topic, acceptStandardJsonOnly: true })
      },
      options
    )
    return this.parseBody(namesrvAddress, res, topicRouteSchema, 'TopicRouteData')
  }

  /** GET_BROKER_CLUSTER_INFO (106); its body is always fastjson with bare numeric keys. */
  async getBrokerClusterInfo(
    namesrvAddress: string,
    options: CallOptions = {}
  ): Promise<ClusterInfo> {
    const res = await this.call(
      namesrvAddress,
      { code: RequestCode.GET_BROKER_CLUSTER_INFO },
      options
    )
    return this.parseBody(namesrvAddress, res, clusterInfoSchema, 'ClusterInfo')
  }

  /**
   * GET_ALL_TOPIC_LIST_FROM_NAMESERVER (206): topic names only, system topics included. A name
   * server with `enableAllTopicList=false` answers SYSTEM_ERROR "disable" (a RemoteError).
   */
  async getAllTopicListFromNameserver(
    namesrvAddress: string,
    options: CallOptions = {}
  ): Promise<string[]> {
    const res = await this.call(
      namesrvAddress,
      { code: RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER },
      options
    )
    return this.parseBody(namesrvAddress, res, topicListSchema, 'TopicList').topicList
  }

  /** GET_KV_CONFIG (101): a name server's KV entry; undefined when it has none (QUERY_NOT_FOUND). */
  async getKvConfig(
    namesrvAddress: string,
    input: { namespace: string; key: string },
    options: CallOptions = {}
  ): Promise<string | undefined> {
    const req: RemotingRequest = {
      code: RequestCode.GET_KV_CONFIG,
      extFields: toExtFields({ namespace: input.namespace, key: input.key })
    }
    const res = await this.invoke(namesrvAddress, req, options.timeoutMs)
    if (res.code === ResponseCode.QUERY_NOT_FOUND) return undefined
    this.expect(namesrvAddress, req, res, [ResponseCode.SUCCESS])
    return res.extFields.value
  }

  /** GET_BROKER_RUNTIME_INFO (28): the broker's own stats (`mqadmin brokerStatus`), read-only. */
  async getBrokerRuntimeInfo(
    brokerAddress: string,
    options: CallOptions = {}
  ): Promise<Record<string, string>> {
    const res = await this.call(
      brokerAddress,
      { code: RequestCode.GET_BROKER_RUNTIME_INFO },
      options
    )
    return this.parseBody(brokerAddress, res, kvTableSchema, 'KVTable').table
  }

  /** UPDATE_AND_CREATE_TOPIC (17) to one master broker, which then registers it with its namesrvs. */
  async updateAndCreateTopic(
    brokerAddress: string,
    input: CreateTopicInput,
    options: CallOptions = {}
  ): Promise<void> {
    await this.call(
      brokerAddress,
      {
        code: RequestCode.UPDATE_AND_CREATE_TOPIC,
        extFields: toExtFields({
          topic: input.topic,
          defaultTopic: 'TBW102',
          readQueueNums: input.readQueueNums ?? 4,
          writeQueueNums: input.writeQueueNums ?? 4,
          perm: input.perm ?? 6,
          topicFilterType: input.topicFilterType ?? 'SINGLE_TAG',
          topicSysFlag: input.topicSysFlag ?? 0,
          order: input.order ?? false,
          attributes: input.attributes,
          bname: input.brokerName
        })
      },
      options
    )
  }

  /**
   * UPDATE_BROKER_CONFIG (25): sets broker properties (a Java properties body), as
   * `mqadmin updateBrokerConfig` does. Setting `brokerPermission` makes the broker register with
   * every name server it knows at once (AdminBrokerProcessor.updateBrokerConfig).
   */
  async updateBrokerConfig(
    brokerAddress: string,
    properties: Record<string, string | number | boolean>,
    options: CallOptions = {}
  ): Promise<void> {
    const body = Buffer.from(
      Object.entries(properties)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join('\n') + '\n',
      'utf8'
    )
    await this.call(brokerAddress, { code: RequestCode.UPDATE_BROKER_CONFIG, body }, options)
  }

  /** GET_CONSUMER_LIST_BY_GROUP (38); the broker's "no consumer for this group" is an empty list. */
  async getConsumerListByGroup(
    brokerAddress: string,
    consumerGroup: string,
    options: CallOptions & { brokerName?: string } = {}
  ): Promise<string[]> {
    const req: RemotingRequest = {
      code: RequestCode.GET_CONSUMER_LIST_BY_GROUP,
      extFields: toExtFields({ consumerGroup, bname: options.brokerName })
    }
    const res = await this.invoke(brokerAddress, req, options.timeoutMs)
    if (
      res.code === ResponseCode.SYSTEM_ERROR &&
      /no consumer for this group/i.test(res.remark ?? '')
    ) {
      return []
    }
    this.expect(brokerAddress, req, res, [ResponseCode.SUCCESS])
    if (!res.body || res.body.length === 0) return []
    return this.parseBody(brokerAddress, res, consumerListSchema, 'consumer list').consumerIdList
  }

  /** SEND_MESSAGE_V2 (310) to the chosen broker and queue; codes 0/10/11/12 all mean stored. */
  async sendMessageV2(
    brokerAddress: string,
    input: SendMessageInput,
    options: CallOptions = {}
  ): Promise<SendResult> {
    const uniqKey = input.uniqKey ?? createUniqId()
    const properties: Record<string, string> = { ...(input.properties ?? {}) }
    if (input.keys !== undefined) {
      properties[MessageProperty.KEYS] = Array.isArray(input.keys)
        ? input.keys.join(' ')
        : input.keys
    }
    if (input.tags !== undefined) properties[MessageProperty.TAGS] = input.tags
    properties[MessageProperty.WAIT] = String(input.waitStoreMsgOK ?? true)
    properties[MessageProperty.UNIQ_KEY] = uniqKey
    const body = typeof input.body === 'string' ? Buffer.from(input.body, 'utf8') : input.body
    const req: RemotingRequest = {
      code: RequestCode.SEND_MESSAGE_V2,
      extFields: toExtFields({
        a: input.producerGroup,
        b: input.topic,
        c: input.defaultTopic ?? 'TBW102',
        d: input.defaultTopicQueueNums ?? 4,
        e: input.queueId,
        f: input.sysFlag ?? 0,
        g: input.bornTimestamp ?? Date.now(),
        h: input.flag ?? 0,
        i: encodeProperties(properties),
        j: input.reconsumeTimes ?? 0,
        k: false,
        l: input.maxReconsumeTimes,
        m: false,
        n: input.brokerName,
        bname: input.brokerName
      }),
      body
    }
    const res = await this.invoke(brokerAddress, req, options.timeoutMs)
    const status = SEND_STATUS[res.code]
    if (!status) throw new RemoteError(brokerAddress, req.code, res.code, res.remark)
    const result: SendResult = {
      status,
      msgId: uniqKey,
      offsetMsgId: res.extFields.msgId ?? '',
      topic: input.topic,
      brokerName: input.brokerName,
      queueId: this.extInt(brokerAddress, res, 'queueId'),
      queueOffset: this.extInt(brokerAddress, res, 'queueOffset')
    }
    if (res.extFields.transactionId) result.transactionId = res.extFields.transactionId
    return result
  }

  /** PULL_MESSAGE (11) with long polling; the default timeout is the suspend time plus 5 s. */
  async pullMessage(
    brokerAddress: string,
    input: PullMessageInput,
    options: CallOptions = {}
  ): Promise<PullResult> {
    const suspendTimeoutMs = input.suspendTimeoutMs ?? 15_000
    const commitOffset = input.commitOffset ?? 0
    let sysFlag: number = PullSysFlag.SUBSCRIPTION
    if (suspendTimeoutMs > 0) sysFlag |= PullSysFlag.SUSPEND
    if (commitOffset > 0) sysFlag |= PullSysFlag.COMMIT_OFFSET
    const tags = parseTagExpression(input.expression)
    const req: RemotingRequest = {
      code: RequestCode.PULL_MESSAGE,
      extFields: toExtFields({
        consumerGroup: input.consumerGroup,
        topic: input.topic,
        queueId: input.queueId,
        queueOffset: input.queueOffset,
        maxMsgNums: input.maxMsgNums ?? 32,
        sysFlag,
        commitOffset,
        suspendTimeoutMillis: suspendTimeoutMs,
        subscription: tags.length === 0 ? '*' : tags.join(' || '),
        subVersion: input.subVersion ?? Date.now(),
        expressionType: 'TAG',
        maxMsgBytes: input.maxMsgBytes,
        bname: input.brokerName
      })
    }
    const timeoutMs =
      options.timeoutMs ?? (suspendTimeoutMs > 0 ? suspendTimeoutMs + 5_000 : undefined)
    const res = await this.invoke(brokerAddress, req, timeoutMs)
    const status = PULL_STATUS[res.code]
    if (!status) throw new RemoteError(brokerAddress, req.code, res.code, res.remark)
    let messages = status === 'FOUND' ? decodeMessages(res.body, brokerAddress) : []
    if (tags.length > 0)
      messages = messages.filter((m) => m.tags !== undefined && tags.includes(m.tags))
    return {
      status,
      nextBeginOffset: this.extInt(brokerAddress, res, 'nextBeginOffset'),
      minOffset: this.extInt(brokerAddress, res, 'minOffset'),
      maxOffset: this.extInt(brokerAddress, res, 'maxOffset'),
      suggestWhichBrokerId: this.extInt(brokerAddress, res, 'suggestWhichBrokerId', 0),
      messages
    }
  }

  /**
   * QUERY_CONSUMER_OFFSET (14); undefined when nothing was committed. Pass setZeroIfNotFound=false
   * to get that reliably: otherwise the broker answers 0 while the queue's head is still in memory.
   */
  async queryConsumerOffset(
    brokerAddress: string,
    input: ConsumerQueueInput & { setZeroIfNotFound?: boolean },
    options: CallOptions = {}
  ): Promise<number | undefined> {
    const req: RemotingRequest = {
      code: RequestCode.QUERY_CONSUMER_OFFSET,
      extFields: toExtFields({
        consumerGroup: input.consumerGroup,
        topic: input.topic,
        queueId: input.queueId,
        setZeroIfNotFound: input.setZeroIfNotFound,
        bname: input.brokerName
      })
    }
    const res = await this.invoke(brokerAddress, req, options.timeoutMs)
    if (res.code === ResponseCode.QUERY_NOT_FOUND) return undefined
    this.expect(brokerAddress, req, res, [ResponseCode.SUCCESS])
    return this.extInt(brokerAddress, res, 'offset')
  }

  /** UPDATE_CONSUMER_OFFSET (15); `oneway` mirrors the Java client, which does not wait. */
  async updateConsumerOffset(
    brokerAddress: string,
    input: ConsumerQueueInput & { commitOffset: number },
    options: CallOptions & { oneway?: boolean } = {}
  ): Promise<void> {
    const req: RemotingRequest = {
      code: RequestCode.UPDATE_CONSUMER_OFFSET,
      extFields: toExtFields({
        consumerGroup: input.consumerGroup,
        topic: input.topic,
        queueId: input.queueId,
        commitOffset: input.commitOffset,
        bname: input.brokerName
      })
    }
    if (options.oneway) return this.invokeOneway(brokerAddress, req)
    await this.call(brokerAddress, req, options)
  }

  /** GET_MAX_OFFSET (30): the next offset to be written in a queue. */
  async getMaxOffset(
    brokerAddress: string,
    input: { brokerName: string; topic: string; queueId: number; committed?: boolean },
    options: CallOptions = {}
  ): Promise<number> {
    const res = await this.call(
      brokerAddress,
      {
        code: RequestCode.GET_MAX_OFFSET,
        extFields: toExtFields({
          topic: input.topic,
          queueId: input.queueId,
          committed: input.committed,
          bname: input.brokerName
        })
      },
      options
    )
    return this.extInt(brokerAddress, res, 'offset')
  }

  /** HEART_BEAT (34): registers producer/consumer groups so the broker lists this client. */
  async heartbeat(
    brokerAddress: string,
    input: HeartbeatInput,
    options: CallOptions = {}
  ): Promise<void> {
    await this.call(
      brokerAddress,
      { code: RequestCode.HEART_BEAT, body: buildHeartbeatBody(input) },
      options
    )
  }

  /** UNREGISTER_CLIENT (35): leave a group at once instead of waiting for the 120 s expiry. */
  async unregisterClient(
    brokerAddress: string,
    input: { clientId: string; producerGroup?: string; consumerGroup?: string },
    options: CallOptions = {}
  ): Promise<void> {
    await this.call(
      brokerAddress,
      {
        code: RequestCode.UNREGISTER_CLIENT,
        extFields: toExtFields({
          clientID: input.clientId,
          producerGroup: input.producerGroup,
          consumerGroup: input.consumerGroup
        })
      },
      options
    )
  }

  /** CONTROLLER_GET_METADATA_INFO (1005): any controller answers with the quorum's leader. */
  async getControllerMetadata(
    controllerAddress: string,
    options: CallOptions = {}
  ): Promise<ControllerMetadata> {
    const res = await this.call(
      controllerAddress,
      { code: RequestCode.CONTROLLER_GET_METADATA_INFO },
      options
    )
    const f = res.extFields
    return {
      group: f.group ?? null,
      leaderId: f.controllerLeaderId || null,
      leaderAddress: f.controllerLeaderAddress || null,
      isLeader: f.isLeader === 'true',
      peers: parseControllerPeers(f.peers)
    }
  }

  /**
   * CONTROLLER_GET_REPLICA_INFO (1004), leader only: a follower answers CONTROLLER_NOT_LEADER (2007)
   * and a set the controllers never saw CONTROLLER_BROKER_METADATA_NOT_EXIST (2008), as RemoteErrors.
   */
  async getReplicaInfo(
    controllerAddress: string,
    brokerName: string,
    options: CallOptions = {}
  ): Promise<ReplicaInfo> {
    const res = await this.call(
      controllerAddress,
      {
        code: RequestCode.CONTROLLER_GET_REPLICA_INFO,
        extFields: toExtFields({ brokerName })
      },
      options
    )
    const set = this.parseBody(controllerAddress, res, syncStateSetSchema, 'SyncStateSet')
    const id = res.extFields.masterBrokerId
    const epoch = res.extFields.masterEpoch
    return {
      masterBrokerId: id === undefined || id === '' ? null : Number(id),
      masterAddress: res.extFields.masterAddress || null,
      masterEpoch: epoch === undefined ? 0 : this.extInt(controllerAddress, res, 'masterEpoch'),
      syncStateSet: [...set.syncStateSet].sort((a, b) => a - b),
      syncStateSetEpoch: set.syncStateSetEpoch
    }
  }

  /**
   * CONTROLLER_GET_SYNC_STATE_DATA (1006), leader only: every named broker set's master, epochs and
   * replicas split into in-sync and not, with whether the controllers think each is alive. Sets the
   * controllers do not know are absent from the result.
   */
  async getSyncStateData(
    controllerAddress: string,
    brokerNames: readonly string[],
    options: CallOptions = {}
  ): Promise<Record<string, ReplicasInfo>> {
    const res = await this.call(
      controllerAddress,
      {
        code: RequestCode.CONTROLLER_GET_SYNC_STATE_DATA,
        body: Buffer.from(JSON.stringify(brokerNames), 'utf8')
      },
      options
    )
    if (!res.body || res.body.length === 0) return {}
    return this.parseBody(controllerAddress, res, brokerReplicasInfoSchema, 'BrokerReplicasInfo')
      .replicasInfoTable
  }

  private async call(
    address: string,
    req: RemotingRequest,
    options: CallOptions
  ): Promise<DecodedCommand> {
    const res = await this.invoke(address, req, options.timeoutMs)
    this.expect(address, req, res, [ResponseCode.SUCCESS])
    return res
  }

  private expect(address: string, req: RemotingRequest, res: DecodedCommand, ok: number[]): void {
    if (!ok.includes(res.code)) throw new RemoteError(address, req.code, res.code, res.remark)
  }

  private parseBody<S extends z.ZodType>(
    address: string,
    res: DecodedCommand,
    schema: S,
    what: string
  ): z.output<S> {
    const raw = parseFastjson(res.body, address)
    const parsed = schema.safeParse(raw)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      const where = issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid'
      throw new BadResponseError(address, `${what} body does not match: ${where}`, parsed.error)
    }
    return parsed.data
  }

  private extInt(address: string, res: DecodedCommand, key: string, fallback?: number): number {
    const raw = res.extFields[key]
    if (raw === undefined && fallback !== undefined) return fallback
    const n = raw === undefined ? NaN : Number(raw)
    if (!Number.isSafeInteger(n)) {
      throw new BadResponseError(
        address,
        `ext field ${key}=${JSON.stringify(raw)} is not an integer`
      )
    }
    return n
  }
}
