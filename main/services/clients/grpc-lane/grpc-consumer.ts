import { pause } from '../room-aware/ports'
import type { ProxyCandidate } from './choose-proxy'
import { reasonOf, withDeadline } from './deadline'
import type { GrpcClientDeps, ProxyClientPoolOptions } from './proxy-client-pool'
import { ProxyClientPool } from './proxy-client-pool'
import type { SdkReceived, SdkSimpleConsumer } from './sdk-port'

export interface GrpcConsumerOptions extends ProxyClientPoolOptions {
  /** Tag filter; workload messages only. */
  expression: string
  /**
   * Long-polling wait of one receive. A proxy refuses waits shorter than its
   * grpcClientConsumerMinLongPollingTimeoutMillis (5 s by default) plus the request timeout.
   */
  pollTimeoutMs?: number
  /** Added to the poll wait: a receive that has not answered by then counts as failed. */
  requestTimeoutMs?: number
  batch?: number
  /** How long a received message stays invisible to others before it is redelivered unacked. */
  invisibleMs?: number
}

/**
 * Consumer of the gRPC lanes (rocketmq-client-nodejs SimpleConsumer: receive, then ack). The
 * `grpc` lane receives through its room's zone-pinned proxy, moves to another room's proxy when a
 * receive fails, and moves back once a receive through the own room's proxy works again (the
 * messages stored in its room's brokers are only reachable through that proxy). The `baseline`
 * lane receives through one endpoint and never moves.
 */
export class GrpcConsumer extends ProxyClientPool<SdkSimpleConsumer> {
  private readonly receive: {
    expression: string
    pollTimeoutMs: number
    requestTimeoutMs: number
    batch: number
    invisibleMs: number
  }
  private loop: Promise<void> | undefined

  constructor(options: GrpcConsumerOptions, deps: GrpcClientDeps) {
    const {
      expression,
      pollTimeoutMs = 5000,
      requestTimeoutMs = 3000,
      batch = 32,
      // The proxy refuses less than its minInvisibleTimeMillsForRecv (10 s).
      invisibleMs = 15_000,
      ...base
    } = options
    super(
      'consumer',
      {
        roomOrder: [],
        probeIntervalMs: 500,
        managementRefreshMs: 1000,
        managementTimeoutMs: 500,
        countersIntervalMs: 1000,
        ...base
      },
      deps
    )
    this.receive = { expression, pollTimeoutMs, requestTimeoutMs, batch, invisibleMs }
  }

  stats(): { consumed: number } {
    return { consumed: this.counters.consumed }
  }

  async start(timeoutMs = 15_000): Promise<void> {
    if (await this.begin(timeoutMs, { warmNext: false })) this.loop = this.receiveLoop()
  }

  async stop(mode: 'graceful' | 'crash' = 'graceful'): Promise<void> {
    await this.end(mode, this.loop)
  }

  private async receiveLoop(): Promise<void> {
    while (this.running) {
      const proxy = this.proxyInUse()
      if (!proxy) {
        await pause(100, this.stopped.signal)
        continue
      }
      const startedAt = this.clock.now()
      try {
        await this.receiveFrom(proxy)
      } catch (e) {
        if (!this.running) return
        const reason = reasonOf(e)
        this.deps.ledger.event('pull-failed', this.id, this.room, {
          brokerName: proxy.id,
          brokerRoom: proxy.room,
          reason
        })
        const next =
          this.base.lane === 'baseline' ? proxy : this.selector.fail(proxy, reason, startedAt, '')
        // The same proxy again (baseline, or nothing better): do not spin on a dead endpoint.
        if (next.id === proxy.id) await pause(200, this.stopped.signal)
      }
    }
  }

  /** One receive through `proxy`; records and acks what it gets. */
  private async receiveFrom(proxy: ProxyCandidate): Promise<number> {
    const pooled = this.client(proxy)
    const messages = await withDeadline(
      pooled.ready.then(() => pooled.sdk.receive(this.receive.batch, this.receive.invisibleMs)),
      this.receive.pollTimeoutMs + this.receive.requestTimeoutMs + 500
    )
    const at = this.clock.now()
    for (const m of messages) {
      if (m.tag === this.receive.expression) this.record(m, proxy, at)
    }
    await Promise.all(messages.map((m) => pooled.sdk.ack(m).catch(() => undefined)))
    return messages.length
  }

  private record(m: SdkReceived, proxy: ProxyCandidate, at: number): void {
    this.counters.consumed++
    this.deps.ledger.delivery({
      key: m.keys[0] ?? m.messageId,
      clientId: this.id,
      clientRoom: this.room,
      namesrvRoom: proxy.room,
      // The stored position from the receipt handle (the proxy's id when it does not say), so a
      // redelivery and a second stored copy tell apart, and the order checker sees queues.
      brokerName: m.brokerName ?? proxy.id,
      // A zone-pinned proxy only serves its room's brokers; a plain one could be any.
      brokerRoom: proxy.zoneMode ? proxy.room : null,
      queueId: m.queueId ?? -1,
      queueOffset: m.offset ?? -1,
      bornAt: m.bornAt,
      deliveredAt: at
    })
  }

  protected createSdk(proxy: ProxyCandidate): SdkSimpleConsumer {
    return this.deps.sdk.simpleConsumer({
      endpoints: proxy.address,
      group: this.base.group,
      topic: this.base.topic,
      tag: this.receive.expression,
      awaitMs: this.receive.pollTimeoutMs,
      // The proxy needs poll wait + request timeout ≥ its minimum long poll (5 s) on arrival.
      ...(this.base.lane === 'grpc'
        ? { requestTimeoutMs: Math.max(1000, this.receive.requestTimeoutMs) }
        : {})
    })
  }

  /** A receive through each isolated proxy; success lifts the isolation (and fails back). */
  protected async probe(): Promise<void> {
    for (const proxy of this.selector.dueForProbe(this.base.probeIntervalMs)) {
      try {
        await this.receiveFrom(proxy)
        if (this.running) this.selector.recover(proxy)
      } catch {
        // still failing
      }
    }
  }
}
