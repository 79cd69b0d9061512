import { EventEmitter } from 'node:events'
import { randomUUID } from 'node:crypto'
import type { ClientChoice } from '../../../common/scenario/events'
import type { ClientDeps, Clock, ManagementNodeRef } from '../client/ports'
import { pause, systemClock } from '../client/ports'
import type { ProducerEvents, SendInput, SendOutcome } from '../client/producer'
import type { ProxyCandidate } from './choose-proxy'
import { baselineEndpoint } from './choose-proxy'
import { AttemptTimeout, reasonOf, withDeadline } from './deadline'
import { ProxySelector } from './proxy-selector'
import type { GrpcSdk, SdkProducer, SdkReceipt } from './sdk-port'

export type GrpcLane = 'grpc' | 'baseline'

export interface GrpcProducerOptions {
  id: string
  room: string
  topic: string
  group: string
  managementNodes: readonly ManagementNodeRef[]
  /** `grpc`: room-aware over zone-pinned proxies; `baseline`: the official client as users set it up. */
  lane: GrpcLane
  /** Rooms in topology order, for choosing among other rooms' proxies. */
  roomOrder?: readonly string[]
  /** Baseline only: the endpoints string a user writes; default: see `baselineEndpoint`. */
  endpoints?: string
  /** grpc lane: whole-send budget across proxies. */
  sendTimeoutMs?: number
  /**
   * grpc lane: our per-attempt deadline. 1000 ms by default, the library's own minimum: a send
   * crosses the proxy and the broker, whose p99 on a loaded 2-core host reaches a few hundred ms.
   */
  requestTimeoutMs?: number
  probeIntervalMs?: number
  managementRefreshMs?: number
  managementTimeoutMs?: number
  countersIntervalMs?: number
}

export interface GrpcClientDeps extends Omit<ClientDeps, 'remoting'> {
  sdk: GrpcSdk
}

/** Tag of fail-back probe messages; workload consumers filter on another tag and never see them. */
export const PROBE_TAG = 'drstudio-probe'

type Defaulted = Required<Omit<GrpcProducerOptions, 'endpoints'>> &
  Pick<GrpcProducerOptions, 'endpoints'>

interface Pooled {
  sdk: SdkProducer
  ready: Promise<void>
}

/**
 * Producer of the gRPC lanes on rocketmq-client-nodejs. The `grpc` lane applies room awareness at
 * the proxy: it sends through its room's zone-pinned proxy, moves to another room's proxy on the
 * first failed or late attempt (the library cannot re-point a client, so it keeps one started
 * client per proxy and the next one warm), and moves back once a probe through the own room's
 * proxy succeeds. The `baseline` lane is one library client on one endpoint with the library's
 * own retries and timeouts. Both record every send like the remoting producer.
 */
export class GrpcProducer extends EventEmitter<ProducerEvents> {
  readonly id: string
  readonly room: string
  readonly cid: string
  readonly selector: ProxySelector
  private readonly opts: Defaulted
  private readonly clock: Clock
  private readonly pool = new Map<string, Pooled>()
  /** Proxy id → when a send through it last completed (a slow proxy still answers, a hung one not). */
  private readonly lastOkAt = new Map<string, number>()
  private readonly counters = { sent: 0, acked: 0, failed: 0, consumed: 0, inflight: 0 }
  private baseline: { proxy: ProxyCandidate | undefined; endpoints: string } | undefined
  private lastUsed: string | undefined
  private timers: NodeJS.Timeout[] = []
  private running = false
  private readonly stopped = new AbortController()

  constructor(
    options: GrpcProducerOptions,
    private readonly deps: GrpcClientDeps
  ) {
    super()
    this.opts = {
      roomOrder: [],
      sendTimeoutMs: 3000,
      requestTimeoutMs: 1000,
      probeIntervalMs: 200,
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

  get lane(): GrpcLane {
    return this.opts.lane
  }

  /** Proxies this producer stopped using (the warm-up waits until there are none). */
  get faults(): ProxySelector['faults'] {
    return this.selector.faults
  }

  stats(): { sent: number; acked: number; failed: number; inflight: number } {
    const { sent, acked, failed, inflight } = this.counters
    return { sent, acked, failed, inflight }
  }

  /** The proxy in use, shown as the client's name server (its entry point) and broker room. */
  choice(): ClientChoice {
    const c: ClientChoice = { clientId: this.id, role: 'producer', room: this.room }
    const p = this.opts.lane === 'baseline' ? this.baseline?.proxy : this.selector.current
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
    this.deps.ledger.event('client-started', this.id, this.room, {
      role: 'producer',
      clientKey: this.cid
    })
    const signal = this.stopped.signal
    if (this.opts.lane === 'baseline') {
      const list = this.opts.endpoints
        ? []
        : await this.selector.awaitList((l) => l.length > 0, deadline, signal)
      const proxy = this.opts.endpoints ? undefined : baselineEndpoint(list, this.room)
      const endpoints = this.opts.endpoints ?? proxy!.address
      this.baseline = { proxy, endpoints }
      // Library defaults on purpose: this lane is the official client as users configure it.
      const sdk = this.deps.sdk.producer({ endpoints, topic: this.opts.topic })
      const ready = sdk.startup()
      this.pool.set('baseline', { sdk, ready })
      await withDeadline(ready, Math.max(1, deadline - this.clock.now()))
      this.deps.ledger.event('broker-choice', this.id, this.room, {
        brokerName: proxy?.id ?? endpoints,
        brokerRoom: null,
        reason: `endpoints ${endpoints}`
      })
      this.emit('choice', this.choice())
    } else {
      await this.selector.awaitList(() => this.selector.ranked().length > 0, deadline, signal)
      const first = await this.selector.startOn((p) => this.client(p).ready, deadline, signal)
      const second = this.selector.ranked().find((p) => p.id !== first.id)
      if (second) void this.client(second).ready.catch(() => undefined)
      this.selector.directory.start()
      this.every(this.opts.probeIntervalMs, () => void this.probe())
    }
    this.every(this.opts.countersIntervalMs, () =>
      this.deps.ledger.event('counters', this.id, this.room, { ...this.counters })
    )
  }

  async send(input: SendInput): Promise<SendOutcome> {
    const key = input.keys?.[0] ?? input.key ?? randomUUID()
    const record = input.record !== false
    const startedAt = this.clock.now()
    if (record) this.counters.sent++
    this.counters.inflight++
    const message = {
      topic: this.opts.topic,
      body: typeof input.body === 'string' ? Buffer.from(input.body) : input.body,
      ...(input.tags !== undefined ? { tag: input.tags } : {}),
      keys: input.keys ?? [key]
    }
    try {
      return this.opts.lane === 'baseline'
        ? await this.sendBaseline(key, message, startedAt, record)
        : await this.sendRoomAware(key, message, startedAt, record)
    } finally {
      this.counters.inflight--
    }
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
    // A crash leaves without waiting for the goodbye to the proxies.
    if (mode === 'graceful') await Promise.all(closing)
    this.deps.ledger.event('counters', this.id, this.room, { ...this.counters })
    this.deps.ledger.event('client-stopped', this.id, this.room, { role: 'producer', mode })
  }

  private async sendBaseline(
    key: string,
    message: Parameters<SdkProducer['send']>[0],
    startedAt: number,
    record: boolean
  ): Promise<SendOutcome> {
    const pooled = this.pool.get('baseline')
    const proxy = this.baseline?.proxy
    try {
      if (!pooled) throw new Error(`${this.id} is not started`)
      const receipt = await pooled.sdk.send(message)
      return this.done(key, startedAt, startedAt, 1, receipt, proxy, null, record)
    } catch (e) {
      return this.failed(key, startedAt, startedAt, 1, reasonOf(e), proxy, record)
    }
  }

  private async sendRoomAware(
    key: string,
    message: Parameters<SdkProducer['send']>[0],
    startedAt: number,
    record: boolean
  ): Promise<SendOutcome> {
    const deadline = startedAt + this.opts.sendTimeoutMs
    let attempts = 0
    let lastError = 'no proxy to send through'
    let attemptStartedAt = startedAt
    let proxy = this.selector.current
    while (this.running) {
      const left = deadline - this.clock.now()
      if (left <= 0) break
      if (!proxy) {
        await pause(Math.min(50, left), this.stopped.signal)
        proxy = this.selector.ranked()[0]
        continue
      }
      attempts++
      attemptStartedAt = this.clock.now()
      try {
        const pooled = this.client(proxy)
        const receipt = await withDeadline(
          pooled.ready.then(() => pooled.sdk.send(message)),
          Math.min(this.opts.requestTimeoutMs, left)
        )
        this.lastOkAt.set(proxy.id, this.clock.now())
        return this.done(
          key,
          startedAt,
          attemptStartedAt,
          attempts,
          receipt,
          proxy,
          proxy.room,
          record
        )
      } catch (e) {
        lastError = reasonOf(e)
        if (record) {
          this.deps.ledger.event('send-attempt-failed', this.id, this.room, {
            key,
            brokerName: proxy.id,
            brokerRoom: proxy.room,
            reason: lastError,
            startMs: attemptStartedAt,
            endMs: this.clock.now()
          })
        }
        // A late answer while other sends through the same proxy completed means a busy proxy,
        // not a dead one: retry there instead of moving the client across rooms.
        if (
          (e instanceof AttemptTimeout || lastError === 'cancelled') &&
          (this.lastOkAt.get(proxy.id) ?? -Infinity) > attemptStartedAt
        ) {
          continue
        }
        const next = this.selector.fail(proxy, lastError, attemptStartedAt, key)
        if (next.id === proxy.id) await pause(Math.min(50, left), this.stopped.signal)
        else void this.client(this.selector.ranked()[1] ?? next).ready.catch(() => undefined)
        proxy = next
      }
    }
    return this.failed(key, startedAt, attemptStartedAt, attempts, lastError, proxy, record)
  }

  private done(
    key: string,
    startedAt: number,
    attemptStartedAt: number,
    attempts: number,
    receipt: SdkReceipt,
    proxy: ProxyCandidate | undefined,
    brokerRoom: string | null,
    record: boolean
  ): SendOutcome {
    const endedAt = this.clock.now()
    if (record) {
      this.counters.acked++
      this.deps.ledger.send({
        key,
        clientId: this.id,
        clientRoom: this.room,
        namesrvId: proxy?.id ?? null,
        namesrvRoom: proxy?.room ?? null,
        brokerName: receipt.brokerName,
        brokerRoom,
        queueId: receipt.queueId,
        queueOffset: receipt.offset,
        startedAt,
        attemptStartedAt,
        endedAt,
        status: 'acked',
        attempts,
        error: null
      })
    }
    if (proxy && this.lastUsed !== proxy.id) {
      this.lastUsed = proxy.id
      this.emit('choice', this.choice())
    }
    return {
      ok: true,
      key,
      brokerName: receipt.brokerName,
      brokerRoom,
      queueId: receipt.queueId,
      queueOffset: receipt.offset,
      attempts,
      latencyMs: endedAt - startedAt
    }
  }

  private failed(
    key: string,
    startedAt: number,
    attemptStartedAt: number,
    attempts: number,
    error: string,
    proxy: ProxyCandidate | undefined,
    record: boolean
  ): SendOutcome {
    const endedAt = this.clock.now()
    if (record) {
      this.counters.failed++
      this.deps.ledger.event('send-failed', this.id, this.room, { key, reason: error, attempts })
      this.deps.ledger.send({
        key,
        clientId: this.id,
        clientRoom: this.room,
        namesrvId: proxy?.id ?? null,
        namesrvRoom: proxy?.room ?? null,
        brokerName: null,
        brokerRoom: null,
        queueId: null,
        queueOffset: null,
        startedAt,
        attemptStartedAt,
        endedAt,
        status: 'failed',
        attempts,
        error
      })
    }
    return {
      ok: false,
      key,
      brokerName: null,
      brokerRoom: null,
      queueId: null,
      queueOffset: null,
      attempts,
      latencyMs: endedAt - startedAt,
      error
    }
  }

  /** The started (or starting) library client for `proxy`; a failed start is forgotten. */
  private client(proxy: ProxyCandidate): Pooled {
    const have = this.pool.get(proxy.id)
    if (have) return have
    const sdk = this.deps.sdk.producer({
      endpoints: proxy.address,
      topic: this.opts.topic,
      // Longer than our own deadline, so the proxy does not cancel a call we still wait for.
      requestTimeoutMs: Math.max(1000, this.opts.requestTimeoutMs + 1000),
      // One attempt per call: retrying (on another proxy) is the lane's decision.
      maxAttempts: 1
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

  /** Sends an unrecorded probe through each isolated proxy; success lifts the isolation. */
  private async probe(): Promise<void> {
    for (const proxy of this.selector.dueForProbe(this.opts.probeIntervalMs)) {
      try {
        const pooled = this.client(proxy)
        await withDeadline(
          pooled.ready.then(() =>
            pooled.sdk.send({ topic: this.opts.topic, body: Buffer.from('probe'), tag: PROBE_TAG })
          ),
          this.opts.requestTimeoutMs
        )
        if (this.running) this.selector.recover(proxy)
      } catch {
        // still failing; probed again next interval
      }
    }
  }

  private every(ms: number, fn: () => void): void {
    const t = setInterval(fn, ms)
    t.unref?.()
    this.timers.push(t)
  }
}
