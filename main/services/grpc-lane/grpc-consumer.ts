import { EventEmitter } from 'node:events'
import type { ClientChoice } from '../../../common/scenario/events'
import type { Clock, ManagementNodeRef } from '../client/ports'
import { pause, systemClock } from '../client/ports'
import type { ProxyCandidate } from './choose-proxy'
import { baselineEndpoint } from './choose-proxy'
import { reasonOf, withDeadline } from './deadline'
import type { GrpcClientDeps, GrpcLane } from './grpc-producer'
import { ProxySelector } from './proxy-selector'
import type { SdkReceived, SdkSimpleConsumer } from './sdk-port'

export interface GrpcConsumerOptions {
  id: string
  room: string
  topic: string
  group: string
  managementNodes: readonly ManagementNodeRef[]
  lane: GrpcLane
  /** Tag filter; workload messages only. */
  expression: string
  roomOrder?: readonly string[]
  /** Baseline only: the endpoints string a user writes. */
  endpoints?: string
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
  probeIntervalMs?: number
  managementRefreshMs?: number
  managementTimeoutMs?: number
  countersIntervalMs?: number
}

interface Pooled {
  sdk: SdkSimpleConsumer
  ready: Promise<void>
}

type Defaulted = Required<Omit<GrpcConsumerOptions, 'endpoints'>> &
  Pick<GrpcConsumerOptions, 'endpoints'>

/**
 * Consumer of the gRPC lanes (rocketmq-client-nodejs SimpleConsumer: receive, then ack). The
 * `grpc` lane receives through its room's zone-pinned proxy, moves to another room's proxy when a
 * receive fails, and moves back once a receive through the own room's proxy works again (the
 * messages stored in its room's brokers are only reachable through that proxy). The `baseline`
 * lane receives through one endpoint and never moves.
 */
export class GrpcConsumer extends EventEmitter<{ choice: [ClientChoice] }> {
  readonly id: string
  readonly room: string
  readonly cid: string
  readonly selector: ProxySelector
  private readonly opts: Defaulted
  private readonly clock: Clock
  private readonly pool = new Map<string, Pooled>()
  private readonly counters = { sent: 0, acked: 0, failed: 0, consumed: 0, inflight: 0 }
  private baseline: ProxyCandidate | undefined
  private loop: Promise<void> | undefined
  private timers: NodeJS.Timeout[] = []
  private running = false
  private readonly stopped = new AbortController()

  constructor(
    options: GrpcConsumerOptions,
    private readonly deps: GrpcClientDeps
  ) {
    super()
    this.opts = {
      roomOrder: [],
      pollTimeoutMs: 5000,
      requestTimeoutMs: 3000,
      batch: 32,
      // The proxy refuses less than its minInvisibleTimeMillsForRecv (10 s).
      invisibleMs: 15_000,
      probeIntervalMs: 500,
      managementRefreshMs: 1000,
      managementTimeoutMs: 500,
      countersIntervalMs: 1000,
      ...options
    }
    this.id = options.id
    this.room = options.room
    this.cid = `${options.id}@${options.room}@${options.lane}`
    this.clock = deps.clock ?? systemClock
    this.selector = new ProxySelector(
      {
        clientId: this.id,
        room: this.room,
        managementNodes: this.opts.managementNodes,
        roomOrder: this.opts.roomOrder,
        managementRefreshMs: this.opts.managementRefreshMs,
        managementTimeoutMs: this.opts.managementTimeoutMs
      },
      deps
    )
    this.selector.on('change', () => this.emit('choice', this.choice()))
  }

  stats(): { consumed: number } {
    return { consumed: this.counters.consumed }
  }

  choice(): ClientChoice {
    const c: ClientChoice = { clientId: this.id, role: 'consumer', room: this.room }
    const p = this.opts.lane === 'baseline' ? this.baseline : this.selector.current
    if (p) {
      c.namesrvId = p.id
      c.namesrvRoom = p.room
      if (p.zoneMode) c.brokerRoom = p.room
    }
    return c
  }

  async start(timeoutMs = 15_000): Promise<void> {
    if (this.running) return
    this.running = true
    const deadline = this.clock.now() + timeoutMs
    const signal = this.stopped.signal
    this.deps.ledger.event('client-started', this.id, this.room, {
      role: 'consumer',
      clientKey: this.cid
    })
    let first: ProxyCandidate
    if (this.opts.lane === 'baseline') {
      if (this.opts.endpoints) {
        first = {
          id: this.opts.endpoints,
          room: this.room,
          address: this.opts.endpoints,
          zoneMode: false,
          available: null
        }
      } else {
        const list = await this.selector.awaitList((l) => l.length > 0, deadline, signal)
        first = baselineEndpoint(list, this.room)!
      }
      this.baseline = first
      this.deps.ledger.event('broker-choice', this.id, this.room, {
        brokerName: first.id,
        brokerRoom: null,
        reason: `endpoints ${first.address}`
      })
      this.emit('choice', this.choice())
    } else {
      await this.selector.awaitList(() => this.selector.ranked().length > 0, deadline, signal)
      first = await this.selector.startOn((p) => this.client(p).ready, deadline, signal)
      this.selector.directory.start()
      this.every(this.opts.probeIntervalMs, () => void this.probe())
    }
    await withDeadline(this.client(first).ready, Math.max(1, deadline - this.clock.now()))
    this.every(this.opts.countersIntervalMs, () =>
      this.deps.ledger.event('counters', this.id, this.room, { ...this.counters })
    )
    this.loop = this.receiveLoop()
  }

  async stop(mode: 'graceful' | 'crash' = 'graceful'): Promise<void> {
    if (!this.running) return
    this.running = false
    this.stopped.abort()
    for (const t of this.timers) clearInterval(t)
    this.timers = []
    this.selector.directory.stop()
    const closing = [...this.pool.values()].map((p) =>
      withDeadline(
        p.ready.then(() => p.sdk.shutdown()),
        2000
      ).catch(() => undefined)
    )
    this.pool.clear()
    if (mode === 'graceful') {
      await Promise.all(closing)
      await this.loop?.catch(() => undefined)
    }
    this.deps.ledger.event('counters', this.id, this.room, { ...this.counters })
    this.deps.ledger.event('client-stopped', this.id, this.room, { role: 'consumer', mode })
  }

  private async receiveLoop(): Promise<void> {
    while (this.running) {
      const proxy = this.opts.lane === 'baseline' ? this.baseline : this.selector.current
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
          this.opts.lane === 'baseline' ? proxy : this.selector.fail(proxy, reason, startedAt, '')
        // The same proxy again (baseline, or nothing better): do not spin on a dead endpoint.
        if (next.id === proxy.id) await pause(200, this.stopped.signal)
      }
    }
  }

  /** One receive through `proxy`; records and acks what it gets. */
  private async receiveFrom(proxy: ProxyCandidate): Promise<number> {
    const pooled = this.client(proxy)
    const messages = await withDeadline(
      pooled.ready.then(() => pooled.sdk.receive(this.opts.batch, this.opts.invisibleMs)),
      this.opts.pollTimeoutMs + this.opts.requestTimeoutMs + 500
    )
    const at = this.clock.now()
    for (const m of messages) {
      if (m.tag === this.opts.expression) this.record(m, proxy, at)
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
      brokerName: proxy.id,
      // A zone-pinned proxy only serves its room's brokers; a plain one could be any.
      brokerRoom: proxy.zoneMode ? proxy.room : null,
      queueId: -1,
      queueOffset: m.offset ?? -1,
      bornAt: m.bornAt,
      deliveredAt: at
    })
  }

  private client(proxy: ProxyCandidate): Pooled {
    const have = this.pool.get(proxy.id)
    if (have) return have
    const sdk = this.deps.sdk.simpleConsumer({
      endpoints: proxy.address,
      group: this.opts.group,
      topic: this.opts.topic,
      tag: this.opts.expression,
      awaitMs: this.opts.pollTimeoutMs,
      // The proxy needs poll wait + request timeout ≥ its minimum long poll (5 s) on arrival.
      ...(this.opts.lane === 'grpc'
        ? { requestTimeoutMs: Math.max(1000, this.opts.requestTimeoutMs) }
        : {})
    })
    const ready = sdk.startup()
    const pooled = { sdk, ready }
    this.pool.set(proxy.id, pooled)
    ready.catch(() => {
      if (this.pool.get(proxy.id) === pooled) this.pool.delete(proxy.id)
      void sdk.shutdown().catch(() => undefined)
    })
    return pooled
  }

  /** A receive through each isolated proxy; success lifts the isolation (and fails back). */
  private async probe(): Promise<void> {
    for (const proxy of this.selector.dueForProbe(this.opts.probeIntervalMs)) {
      try {
        await this.receiveFrom(proxy)
        if (this.running) this.selector.recover(proxy)
      } catch {
        // still failing
      }
    }
  }

  private every(ms: number, fn: () => void): void {
    const t = setInterval(fn, ms)
    t.unref?.()
    this.timers.push(t)
  }
}
