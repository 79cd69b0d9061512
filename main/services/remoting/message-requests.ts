import { PullSysFlag, RequestCode, ResponseCode } from './codes'
import type { RemotingRequest } from './connection'
import { RemoteError } from './errors'
import type { MessageExt } from './message'
import {
  appendProperty,
  createUniqId,
  decodeMessages,
  encodeProperties,
  MessageProperty,
  parseTagExpression
} from './message'
import type { CallOptions, RemotingInvoker } from './remoting-calls'
import { extInt, toExtFields } from './remoting-calls'

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

/** SEND_MESSAGE_V2 (310) to the chosen broker and queue; codes 0/10/11/12 all mean stored. */
export async function sendMessageV2(
  rpc: RemotingInvoker,
  brokerAddress: string,
  input: SendMessageInput,
  options: CallOptions = {}
): Promise<SendResult> {
  const uniqKey = input.uniqKey ?? createUniqId()
  const body = typeof input.body === 'string' ? Buffer.from(input.body, 'utf8') : input.body
  const req: RemotingRequest = {
    code: RequestCode.SEND_MESSAGE_V2,
    extFields: sendHeader(input, sendProperties(input, uniqKey)),
    body
  }
  const res = await rpc.invoke(brokerAddress, req, options.timeoutMs)
  const status = SEND_STATUS[res.code]
  if (!status) throw new RemoteError(brokerAddress, req.code, res.code, res.remark)
  const result: SendResult = {
    status,
    msgId: uniqKey,
    offsetMsgId: res.extFields.msgId ?? '',
    topic: input.topic,
    brokerName: input.brokerName,
    queueId: extInt(brokerAddress, res, 'queueId'),
    queueOffset: extInt(brokerAddress, res, 'queueOffset')
  }
  if (res.extFields.transactionId) result.transactionId = res.extFields.transactionId
  return result
}

/**
 * SendMessageRequestHeaderV2 as toExtFields would build it (same keys, order and strings), written
 * directly: this runs per send, and the intermediate object and its entries were pure garbage.
 */
function sendHeader(input: SendMessageInput, properties: string): Record<string, string> {
  const h: Record<string, string> = {
    a: input.producerGroup,
    b: input.topic,
    c: input.defaultTopic ?? 'TBW102',
    d: String(input.defaultTopicQueueNums ?? 4),
    e: String(input.queueId),
    f: String(input.sysFlag ?? 0),
    g: String(input.bornTimestamp ?? Date.now()),
    h: String(input.flag ?? 0),
    i: properties,
    j: String(input.reconsumeTimes ?? 0),
    k: 'false'
  }
  if (input.maxReconsumeTimes !== undefined) h.l = String(input.maxReconsumeTimes)
  h.m = 'false'
  h.n = input.brokerName
  h.bname = input.brokerName
  return h
}

/** The property string: the caller's properties, then the system ones (KEYS, TAGS, WAIT, UNIQ_KEY). */
function sendProperties(input: SendMessageInput, uniqKey: string): string {
  const keys = Array.isArray(input.keys) ? input.keys.join(' ') : input.keys
  const wait = String(input.waitStoreMsgOK ?? true)
  if (input.properties !== undefined) {
    // A caller's property may redefine a system key in place, so merge through an object.
    const properties: Record<string, string> = { ...input.properties }
    if (keys !== undefined) properties[MessageProperty.KEYS] = keys
    if (input.tags !== undefined) properties[MessageProperty.TAGS] = input.tags
    properties[MessageProperty.WAIT] = wait
    properties[MessageProperty.UNIQ_KEY] = uniqKey
    return encodeProperties(properties)
  }
  // The common case (no caller properties): append the system items without an object.
  let out = keys === undefined ? '' : appendProperty('', MessageProperty.KEYS, keys)
  if (input.tags !== undefined) out = appendProperty(out, MessageProperty.TAGS, input.tags)
  out = appendProperty(out, MessageProperty.WAIT, wait)
  return appendProperty(out, MessageProperty.UNIQ_KEY, uniqKey)
}

/** PULL_MESSAGE (11) with long polling; the default timeout is the suspend time plus 5 s. */
export async function pullMessage(
  rpc: RemotingInvoker,
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
  const res = await rpc.invoke(brokerAddress, req, timeoutMs)
  const status = PULL_STATUS[res.code]
  if (!status) throw new RemoteError(brokerAddress, req.code, res.code, res.remark)
  let messages = status === 'FOUND' ? decodeMessages(res.body, brokerAddress) : []
  if (tags.length > 0)
    messages = messages.filter((m) => m.tags !== undefined && tags.includes(m.tags))
  return {
    status,
    nextBeginOffset: extInt(brokerAddress, res, 'nextBeginOffset'),
    minOffset: extInt(brokerAddress, res, 'minOffset'),
    maxOffset: extInt(brokerAddress, res, 'maxOffset'),
    suggestWhichBrokerId: extInt(brokerAddress, res, 'suggestWhichBrokerId', 0),
    messages
  }
}
