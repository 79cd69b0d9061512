/**
 * The part of rocketmq-client-nodejs the gRPC lanes use, behind a port so the lane's decisions
 * are unit-testable; `official-sdk.ts` adapts the real library, integration tests run that.
 */

export interface SdkMessage {
  topic: string
  body: Buffer
  tag?: string
  keys?: string[]
  /** A timer message: the broker holds it until then (the library sends it as type DELAY). */
  deliveryTimestamp?: Date
  /**
   * A FIFO message: the library sends every message of a group to one queue (a hash of the group
   * over the route's writable queues) as type FIFO.
   */
  messageGroup?: string
}

/**
 * The proxy refused the message itself (a bad request: a type its topic does not take, an illegal
 * property, a body too large): any proxy would, so it is the send's failure, not the proxy's.
 */
export class RefusedMessageError extends Error {
  constructor(readonly reason: string) {
    super(reason)
    this.name = 'RefusedMessageError'
  }
}

export interface SdkReceipt {
  messageId: string
  offset: number | null
  /** The queue the client library picked; a cluster-mode proxy may store the message elsewhere. */
  brokerName: string | null
  queueId: number | null
}

/** A transaction's half message, stored and waiting for its end (or for the proxy's check-back). */
export interface SdkHalfMessage {
  receipt: SdkReceipt
  /** END_TRANSACTION through the proxy that took the half message. */
  end(decision: 'commit' | 'rollback'): Promise<void>
}

/** What a check-back shows of a half message: the attempt's message id and the message keys. */
export interface SdkCheckedMessage {
  messageId: string
  keys: string[]
}

export type SdkCheckAnswer = 'commit' | 'rollback' | 'unknown'

export interface SdkProducer {
  startup(): Promise<void>
  shutdown(): Promise<void>
  send(message: SdkMessage): Promise<SdkReceipt>
  /** A transactional send: the half message (type TRANSACTION), ended later by the caller. */
  sendHalf(message: SdkMessage): Promise<SdkHalfMessage>
}

export interface SdkReceived {
  messageId: string
  keys: string[]
  tag: string | undefined
  offset: number | null
  /** Where the broker stored it, from the receipt handle; null when the handle does not say. */
  brokerName: string | null
  queueId: number | null
  bornAt: number | null
  /** The library's own message view, handed back to `ack`. */
  handle: unknown
}

/**
 * The stored position a POP receipt handle names. The broker's handle (ReceiptHandle.encode) is
 * `startOffset retrieveTime invisibleTime reviveQueueId topicType brokerName queueId offset
 * [commitLogOffset]`, space-separated; the proxy passes it on. Null for anything else.
 */
export function positionOfReceipt(
  handle: string
): { brokerName: string; queueId: number; offset: number } | null {
  const f = handle.split(' ')
  if (f.length < 8) return null
  const queueId = Number(f[6])
  const offset = Number(f[7])
  if (!f[5] || !Number.isInteger(queueId) || !Number.isInteger(offset)) return null
  return { brokerName: f[5], queueId, offset }
}

export interface SdkSimpleConsumer {
  startup(): Promise<void>
  shutdown(): Promise<void>
  receive(maxMessages: number, invisibleMs: number): Promise<SdkReceived[]>
  ack(message: SdkReceived): Promise<void>
}

export interface SdkProducerOptions {
  /** What the library calls endpoints: "host:port" (or "h1:p1;h2:p2"). */
  endpoints: string
  topic: string
  /** Library default 3000; it refuses less than 1000. */
  requestTimeoutMs?: number
  /** Library default 3 (immediate retries on another queue). */
  maxAttempts?: number
  /**
   * A transactional producer's answer to the proxy's check-back about a half message it never
   * ended (RecoverOrphanedTransactionCommand); 'unknown' leaves it to the next check.
   */
  checker?: (m: SdkCheckedMessage) => SdkCheckAnswer
}

export interface SdkConsumerOptions {
  endpoints: string
  group: string
  topic: string
  /** Tag filter expression. */
  tag: string
  /** Long-polling wait of one receive. */
  awaitMs: number
  requestTimeoutMs?: number
}

export interface GrpcSdk {
  producer(options: SdkProducerOptions): SdkProducer
  simpleConsumer(options: SdkConsumerOptions): SdkSimpleConsumer
}
