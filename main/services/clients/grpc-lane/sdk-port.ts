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

export interface SdkProducer {
  startup(): Promise<void>
  shutdown(): Promise<void>
  send(message: SdkMessage): Promise<SdkReceipt>
}

export interface SdkReceived {
  messageId: string
  keys: string[]
  tag: string | undefined
  offset: number | null
  bornAt: number | null
  /** The library's own message view, handed back to `ack`. */
  handle: unknown
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
