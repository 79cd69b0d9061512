import { randomBytes } from 'node:crypto'
import { networkInterfaces } from 'node:os'
import { inflateSync } from 'node:zlib'
import { MessageSysFlag } from './codes'
import { BadResponseError, RemotingError } from './errors'

/** Separators of RocketMQ's message-property string (MessageDecoder.NAME_VALUE_SEPARATOR etc.). */
export const NAME_VALUE_SEPARATOR = '\u0001'
export const PROPERTY_SEPARATOR = '\u0002'

/** Property keys the tool reads or writes (MessageConst.java). */
export const MessageProperty = {
  KEYS: 'KEYS',
  TAGS: 'TAGS',
  WAIT: 'WAIT',
  UNIQ_KEY: 'UNIQ_KEY',
  DELAY: 'DELAY',
  /** 5.x timer message: epoch ms of delivery (needs the broker's timer wheel). */
  TIMER_DELIVER_MS: 'TIMER_DELIVER_MS',
  PRODUCER_GROUP: 'PGROUP',
  /** "true" on a transaction's half message (PROPERTY_TRANSACTION_PREPARED). */
  TRANSACTION_PREPARED: 'TRAN_MSG',
  SHARDING_KEY: '__SHARDINGKEY'
} as const

/** Store-format magic codes (MessageDecoder.MESSAGE_MAGIC_CODE / _V2, BLANK_MAGIC_CODE). */
export const MESSAGE_MAGIC_V1 = 0xdaa320a7
export const MESSAGE_MAGIC_V2 = 0xdaa320ab
export const BLANK_MAGIC = 0xcbd43194

/** Encodes properties as `k\u0001v\u0002…`; refuses separators inside keys or values. */
export function encodeProperties(properties: Record<string, string>): string {
  let out = ''
  // for-in, not Object.entries: this runs per send and must not allocate a pair per property.
  for (const k in properties) out = appendProperty(out, k, properties[k] as string)
  return out
}

/** Appends one `k\u0001v\u0002` item to an encoded property string; refuses separators. */
export function appendProperty(out: string, k: string, v: string): string {
  if (hasSeparator(k) || hasSeparator(v)) {
    throw new RemotingError(
      'bad-request',
      `message property ${JSON.stringify(k)} contains a separator`
    )
  }
  return out + k + NAME_VALUE_SEPARATOR + v + PROPERTY_SEPARATOR
}

function hasSeparator(t: string): boolean {
  return t.includes(NAME_VALUE_SEPARATOR) || t.includes(PROPERTY_SEPARATOR)
}

/** Inverse of encodeProperties; tolerant of a missing trailing separator and empty items. */
export function decodeProperties(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  if (!text) return out
  for (const item of text.split(PROPERTY_SEPARATOR)) {
    const i = item.indexOf(NAME_VALUE_SEPARATOR)
    if (i <= 0) continue
    out[item.slice(0, i)] = item.slice(i + 1)
  }
  return out
}

/** Java's String.hashCode, which the broker uses for tag filtering (SubscriptionData.codeSet). */
export function javaStringHashCode(s: string): number {
  let h = 0
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0
  return h
}

let uniqPrefix: string | undefined
let uniqCounter = 0

function localIpv4Bytes(): Buffer {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) {
      if (a.family === 'IPv4' && !a.internal) return Buffer.from(a.address.split('.').map(Number))
    }
  }
  return Buffer.from([127, 0, 0, 1])
}

/**
 * A client-side message id (UNIQ_KEY) in the Java layout: ip(4) pid(2) random(4) | time(4) counter(2),
 * 32 upper-case hex chars, unique per process by time + counter.
 */
export function createUniqId(now: number = Date.now()): string {
  if (!uniqPrefix) {
    const pid = Buffer.alloc(2)
    pid.writeUInt16BE(process.pid & 0xffff)
    uniqPrefix = Buffer.concat([localIpv4Bytes(), pid, randomBytes(4)])
      .toString('hex')
      .toUpperCase()
  }
  const tail = Buffer.alloc(6)
  tail.writeUInt32BE((Math.floor(now) % 0x100000000) >>> 0, 0)
  tail.writeUInt16BE(uniqCounter, 4)
  uniqCounter = (uniqCounter + 1) & 0xffff
  return uniqPrefix + tail.toString('hex').toUpperCase()
}

/** A message as pulled from a broker (MessageExt), store fields included. */
export interface MessageExt {
  topic: string
  queueId: number
  queueOffset: number
  commitLogOffset: number
  sysFlag: number
  flag: number
  bornTimestamp: number
  bornHost: string
  storeTimestamp: number
  storeHost: string
  reconsumeTimes: number
  preparedTransactionOffset: number
  bodyCRC: number
  body: Buffer
  /** Set when the body is compressed with a codec Node lacks (LZ4/ZSTD); `body` is then raw. */
  bodyCompression?: 'lz4' | 'zstd'
  properties: Record<string, string>
  /** UNIQ_KEY when present (what users call the message id), else offsetMsgId. */
  msgId: string
  /** Broker-side id: store host + port + commit-log offset, upper-case hex. */
  offsetMsgId: string
  tags?: string
  keys?: string[]
}

/** Longs we surface as numbers; anything beyond 2^53 would be a corrupt body, not a real offset. */
function readLong(buf: Buffer, p: number, address: string): number {
  const v = buf.readBigInt64BE(p)
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new BadResponseError(address, `64-bit value ${v} at byte ${p} is out of range`)
  }
  return Number(v)
}

function formatHost(ip: Buffer, port: number): string {
  if (ip.length === 4) return `${ip.join('.')}:${port}`
  const groups: string[] = []
  for (let i = 0; i < 16; i += 2) groups.push(ip.readUInt16BE(i).toString(16))
  return `[${groups.join(':')}]:${port}`
}

/** Decodes a PULL_MESSAGE body: concatenated commit-log records. Throws BadResponseError when corrupt. */
export function decodeMessages(body: Buffer | undefined, address = 'unknown'): MessageExt[] {
  const out: MessageExt[] = []
  if (!body) return out
  let p = 0
  while (p < body.length) {
    const remaining = body.length - p
    if (remaining < 8)
      throw new BadResponseError(address, `trailing ${remaining} bytes in pull body`)
    const totalSize = body.readInt32BE(p)
    const magic = body.readUInt32BE(p + 4)
    if (magic === BLANK_MAGIC) break
    if (totalSize < 8 || totalSize > remaining) {
      throw new BadResponseError(
        address,
        `message record size ${totalSize} at byte ${p} is invalid`
      )
    }
    if (magic !== MESSAGE_MAGIC_V1 && magic !== MESSAGE_MAGIC_V2) {
      throw new BadResponseError(
        address,
        `unknown message magic 0x${magic.toString(16)} at byte ${p}`
      )
    }
    out.push(decodeRecord(body.subarray(p, p + totalSize), magic, address))
    p += totalSize
  }
  return out
}

function decodeRecord(rec: Buffer, magic: number, address: string): MessageExt {
  let p = 8
  const need = (n: number): void => {
    if (p + n > rec.length) {
      throw new BadResponseError(address, `message record of ${rec.length} bytes is truncated`)
    }
  }
  const int = (): number => {
    need(4)
    const v = rec.readInt32BE(p)
    p += 4
    return v
  }
  const long = (): number => {
    need(8)
    const v = readLong(rec, p, address)
    p += 8
    return v
  }
  const bytes = (n: number): Buffer => {
    if (n < 0) throw new BadResponseError(address, `negative length ${n} in message record`)
    need(n)
    const v = rec.subarray(p, p + n)
    p += n
    return v
  }
  const bodyCRC = int()
  const queueId = int()
  const flag = int()
  const queueOffset = long()
  const commitLogOffset = long()
  const sysFlag = int()
  const bornTimestamp = long()
  const bornIp = bytes(sysFlag & MessageSysFlag.BORNHOST_V6 ? 16 : 4)
  const bornPort = int()
  const storeTimestamp = long()
  const storeIp = bytes(sysFlag & MessageSysFlag.STOREHOST_V6 ? 16 : 4)
  const storePort = int()
  const reconsumeTimes = int()
  const preparedTransactionOffset = long()
  const rawBody = Buffer.from(bytes(int()))
  need(magic === MESSAGE_MAGIC_V2 ? 2 : 1)
  const topicLength = magic === MESSAGE_MAGIC_V2 ? rec.readInt16BE(p) : rec.readUInt8(p)
  p += magic === MESSAGE_MAGIC_V2 ? 2 : 1
  const topic = bytes(topicLength).toString('utf8')
  need(2)
  const propertiesLength = rec.readInt16BE(p)
  p += 2
  const properties = decodeProperties(bytes(propertiesLength).toString('utf8'))

  let body = rawBody
  let bodyCompression: MessageExt['bodyCompression']
  if (sysFlag & MessageSysFlag.COMPRESSED) {
    const type = (sysFlag >> 8) & 0x7
    if (type === 0 || type === 3) {
      try {
        body = inflateSync(rawBody)
      } catch (e) {
        throw new BadResponseError(address, `zlib body of ${topic}@${queueOffset} is corrupt`, e)
      }
    } else {
      bodyCompression = type === 1 ? 'lz4' : 'zstd'
    }
  }

  const idBuf = Buffer.alloc(storeIp.length + 4 + 8)
  storeIp.copy(idBuf, 0)
  idBuf.writeInt32BE(storePort, storeIp.length)
  idBuf.writeBigInt64BE(BigInt(commitLogOffset), storeIp.length + 4)
  const offsetMsgId = idBuf.toString('hex').toUpperCase()

  const msg: MessageExt = {
    topic,
    queueId,
    queueOffset,
    commitLogOffset,
    sysFlag,
    flag,
    bornTimestamp,
    bornHost: formatHost(bornIp, bornPort),
    storeTimestamp,
    storeHost: formatHost(storeIp, storePort),
    reconsumeTimes,
    preparedTransactionOffset,
    bodyCRC,
    body,
    properties,
    msgId: properties[MessageProperty.UNIQ_KEY] ?? offsetMsgId,
    offsetMsgId
  }
  if (bodyCompression) msg.bodyCompression = bodyCompression
  const tags = properties[MessageProperty.TAGS]
  if (tags !== undefined) msg.tags = tags
  const keys = properties[MessageProperty.KEYS]
  if (keys !== undefined) msg.keys = keys.split(' ').filter((k) => k.length > 0)
  return msg
}

/** Fields needed to build a store-format record; used by stub servers and decoder tests. */
export interface StoredMessageInput {
  topic: string
  queueId: number
  queueOffset: number
  commitLogOffset: number
  body: Buffer
  properties?: Record<string, string>
  sysFlag?: number
  flag?: number
  bornTimestamp?: number
  storeTimestamp?: number
  reconsumeTimes?: number
}

/** Encodes one commit-log record as the broker would return it (IPv4 hosts, no compression). */
export function encodeStoredMessage(m: StoredMessageInput): Buffer {
  const topic = Buffer.from(m.topic, 'utf8')
  const v2 = topic.length > 127
  const props = Buffer.from(encodeProperties(m.properties ?? {}), 'utf8')
  const size =
    4 +
    4 +
    4 +
    4 +
    4 +
    8 +
    8 +
    4 +
    8 +
    8 +
    8 +
    8 +
    4 +
    8 +
    4 +
    m.body.length +
    (v2 ? 2 : 1) +
    topic.length +
    2 +
    props.length
  const b = Buffer.alloc(size)
  let p = 0
  p = b.writeInt32BE(size, p)
  p = b.writeUInt32BE(v2 ? MESSAGE_MAGIC_V2 : MESSAGE_MAGIC_V1, p)
  p = b.writeInt32BE(0, p)
  p = b.writeInt32BE(m.queueId, p)
  p = b.writeInt32BE(m.flag ?? 0, p)
  p = b.writeBigInt64BE(BigInt(m.queueOffset), p)
  p = b.writeBigInt64BE(BigInt(m.commitLogOffset), p)
  p = b.writeInt32BE(
    (m.sysFlag ?? 0) & ~(MessageSysFlag.BORNHOST_V6 | MessageSysFlag.STOREHOST_V6),
    p
  )
  p = b.writeBigInt64BE(BigInt(m.bornTimestamp ?? 0), p)
  p += Buffer.from([127, 0, 0, 1]).copy(b, p)
  p = b.writeInt32BE(40000, p)
  p = b.writeBigInt64BE(BigInt(m.storeTimestamp ?? 0), p)
  p += Buffer.from([127, 0, 0, 1]).copy(b, p)
  p = b.writeInt32BE(10911, p)
  p = b.writeInt32BE(m.reconsumeTimes ?? 0, p)
  p = b.writeBigInt64BE(0n, p)
  p = b.writeInt32BE(m.body.length, p)
  p += m.body.copy(b, p)
  p = v2 ? b.writeInt16BE(topic.length, p) : b.writeUInt8(topic.length, p)
  p += topic.copy(b, p)
  p = b.writeInt16BE(props.length, p)
  props.copy(b, p)
  return b
}

/** How a consumer group consumes; values are the Java enum names fastjson expects. */
export type ConsumeType = 'CONSUME_ACTIVELY' | 'CONSUME_PASSIVELY' | 'CONSUME_POP'
export type MessageModel = 'CLUSTERING' | 'BROADCASTING'
export type ConsumeFromWhere =
  'CONSUME_FROM_LAST_OFFSET' | 'CONSUME_FROM_FIRST_OFFSET' | 'CONSUME_FROM_TIMESTAMP'

/** One subscription as announced in a heartbeat. */
export interface SubscriptionInput {
  topic: string
  /** Tag expression: `*` or `a || b`. */
  expression?: string
  subVersion?: number
}

/** A consumer group as announced in a heartbeat. */
export interface ConsumerDataInput {
  groupName: string
  consumeType?: ConsumeType
  messageModel?: MessageModel
  consumeFromWhere?: ConsumeFromWhere
  subscriptions: SubscriptionInput[]
}

/** What a client announces to a broker so it appears in GET_CONSUMER_LIST_BY_GROUP. */
export interface HeartbeatInput {
  clientId: string
  producerGroups?: string[]
  consumers?: ConsumerDataInput[]
}

/** Parses a tag expression the way SubscriptionData / FilterAPI does. */
export function parseTagExpression(expression: string | undefined): string[] {
  const expr = (expression ?? '*').trim()
  if (expr === '' || expr === '*') return []
  return expr
    .split('||')
    .map((t) => t.trim())
    .filter((t) => t.length > 0)
}

/** Builds the HeartbeatData JSON body (fastjson field names, enums by name). */
export function buildHeartbeatBody(input: HeartbeatInput, now: number = Date.now()): Buffer {
  const data = {
    clientID: input.clientId,
    producerDataSet: (input.producerGroups ?? []).map((groupName) => ({ groupName })),
    consumerDataSet: (input.consumers ?? []).map((c) => ({
      groupName: c.groupName,
      consumeType: c.consumeType ?? 'CONSUME_ACTIVELY',
      messageModel: c.messageModel ?? 'CLUSTERING',
      consumeFromWhere: c.consumeFromWhere ?? 'CONSUME_FROM_LAST_OFFSET',
      unitMode: false,
      subscriptionDataSet: c.subscriptions.map((s) => {
        const tags = parseTagExpression(s.expression)
        return {
          classFilterMode: false,
          topic: s.topic,
          subString: tags.length === 0 ? '*' : (s.expression ?? '*').trim(),
          tagsSet: tags,
          codeSet: tags.map(javaStringHashCode),
          subVersion: s.subVersion ?? now,
          expressionType: 'TAG'
        }
      })
    })),
    heartbeatFingerprint: 0,
    isWithoutSub: false
  }
  return Buffer.from(JSON.stringify(data), 'utf8')
}
