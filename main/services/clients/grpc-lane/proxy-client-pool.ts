import { EventEmitter } from 'node:events'
import type { LocalTransactions } from '../room-aware/local-transactions'
import type { ClientChoice } from '../../../../common/scenario/events'
import type { GrpcSdkLane } from '../../../../common/topology/lanes'
import type { ClientDeps, Clock, ManagementNodeRef } from '../room-aware/ports'
import { systemClock } from '../room-aware/ports'
import type { ProxyCandidate } from './choose-proxy'
import { baselineEndpoint } from './choose-proxy'
import { withDeadline } from './deadline'
import { ProxySelector } from './proxy-selector'
import type { GrpcSdk } from './sdk-port'

export interface GrpcClientDeps extends Omit<ClientDeps, 'remoting'> {
  sdk: GrpcSdk
  /**
   * The lane's local transactions, shared by its producers in every room (client-runtime.ts): a
   * proxy asks any producer of the topic about a transaction. Absent: the producer's own.
   */
  transactions?: LocalTransactions
}

/** What the producer and the consumer of the gRPC lanes share. */
export interface ProxyClientPoolOptions {
  id: string
  room: string
  topic: string
  group: string
  managementNodes: readonly ManagementNodeRef[]
  /** `grpc`: room-aware over zone-pinned proxies; `baseline`: the official client as users set it up. */
  lane: GrpcSdkLane
  /** Rooms in topology order, for choosing among other rooms' proxies. */
  roomOrder?: readonly string[]
  /** Baseline only: the endpoints string a user writes; default: see `baselineEndpoint`. */
  endpoints?: string
  probeIntervalMs?: number
  managementRefreshMs?: number
  managementTimeoutMs?: number
  countersIntervalMs?: number
}

interface Startable {
  startup(): Promise<void>
  shutdown(): Promise<void>
}

interface Pooled<S> {
  sdk: S
  ready: Promise<void>
}

type Resolved = Required<Omit<ProxyClientPoolOptions, 'endpoints'>> &
  Pick<ProxyClientPoolOptions, 'endpoints'>

/**
 * The lifecycle both gRPC lane clients share: a proxy selector fed by the management nodes, one
 * started library client per proxy (a failed start is forgotten so the next call retries), the
 * start on the best proxy (or the baseline's one endpoint), periodic counters, and the stop.
 * Subclasses say how to build a library client, how to probe, and what to do once started.
 */
export abstract class ProxyClientPool<S extends Startable> extends EventEmitter<{
  choice: [ClientChoice]
}> {
  readonly id: string
  readonly room: string
  /** Shown to the ledger as the client key: id, room and lane. */
  readonly cid: string
  readonly selector: ProxySelector
  protected readonly clock: Clock
  protected readonly counters = { sent: 0, acked: 0, failed: 0, consumed: 0, inflight: 0 }
  /** Baseline only: the one endpoint, as a proxy (its id is the endpoints string when user-given). */
  protected baselineProxy: ProxyCandidate | undefined
  protected running = false
  protected readonly stopped = new AbortController()
  private readonly pool = new Map<string, Pooled<S>>()
  private timers: NodeJS.Timeout[] = []

  protected constructor(
    private readonly role: 'producer' | 'consumer',
    protected readonly base: Resolved,
    protected readonly deps: GrpcClientDeps
  ) {
    super()
    this.id = base.id
    this.room = base.room
    this.cid = `${base.id}@${base.room}@${base.lane}`
    this.clock = deps.clock ?? systemClock
    this.selector = new ProxySelector(
      {
        clientId: this.id,
        room: this.room,
        managementNodes: base.managementNodes,
        roomOrder: base.roomOrder,
        managementRefreshMs: base.managementRefreshMs,
        managementTimeoutMs: base.managementTimeoutMs
      },
      deps
    )
    this.selector.on('change', () => this.emit('choice', this.choice()))
  }

  get lane(): GrpcSdkLane {
    return this.base.lane
  }

  /** The proxy in use, shown as the client's name server (its entry point) and broker room. */
  choice(): ClientChoice {
    const c: ClientChoice = { clientId: this.id, role: this.role, room: this.room }
    const p = this.proxyInUse()
    if (p) {
      c.namesrvId = p.id
      c.namesrvRoom = p.room
      if (p.zoneMode) c.brokerRoom = p.room
    }
    return c
  }

  protected proxyInUse(): ProxyCandidate | undefined {
    return this.base.lane === 'baseline' ? this.baselineProxy : this.selector.current
  }

  /** Builds (does not start) the library client for `proxy`. */
  protected abstract createSdk(proxy: ProxyCandidate): S

  /** One probe round over isolated proxies (grpc lane only). */
  protected abstract probe(): Promise<void>

  /**
   * Starts on the best proxy that accepts a library client (grpc) or on the one endpoint
   * (baseline), then runs the probe and counters timers. Returns the proxy started on, or
   * undefined when already running.
   */
  protected async begin(
    timeoutMs: number,
    opts: { warmNext: boolean }
  ): Promise<ProxyCandidate | undefined> {
    if (this.running) return undefined
    this.running = true
    const deadline = this.clock.now() + timeoutMs
    const signal = this.stopped.signal
    this.deps.ledger.event('client-started', this.id, this.room, {
      role: this.role,
      clientKey: this.cid
    })
    let first: ProxyCandidate
    if (this.base.lane === 'baseline') {
      first = await this.baselineTarget(deadline, signal)
      this.baselineProxy = first
      this.deps.ledger.event('broker-choice', this.id, this.room, {
        brokerName: first.id,
        brokerRoom: null,
        reason: `endpoints ${first.address}`
      })
      this.emit('choice', this.choice())
      await withDeadline(this.client(first).ready, Math.max(1, deadline - this.clock.now()))
    } else {
      await this.selector.awaitList(() => this.selector.ranked().length > 0, deadline, signal)
      first = await this.selector.startOn((p) => this.client(p).ready, deadline, signal)
      const next = opts.warmNext && this.selector.ranked().find((p) => p.id !== first.id)
      if (next) void this.client(next).ready.catch(() => undefined)
      this.selector.directory.start()
      this.every(this.base.probeIntervalMs, () => void this.probe())
    }
    this.every(this.base.countersIntervalMs, () =>
      this.deps.ledger.event('counters', this.id, this.room, { ...this.counters })
    )
    return first
  }

  /**
   * Stops timers and closes every library client; `graceful` waits for their goodbye to the
   * proxies, `crash` does not. Returns false when the client was not running.
   */
  protected async end(mode: 'graceful' | 'crash', drain?: Promise<unknown>): Promise<boolean> {
    if (!this.running) return false
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
      await drain?.catch(() => undefined)
    }
    this.deps.ledger.event('counters', this.id, this.room, { ...this.counters })
    this.deps.ledger.event('client-stopped', this.id, this.room, { role: this.role, mode })
    return true
  }

  /** The started (or starting) library client for `proxy`; a failed start is forgotten. */
  protected client(proxy: ProxyCandidate): Pooled<S> {
    const have = this.pool.get(proxy.id)
    if (have) return have
    const sdk = this.createSdk(proxy)
    const ready = sdk.startup()
    const pooled = { sdk, ready }
    this.pool.set(proxy.id, pooled)
    ready.catch(() => {
      if (this.pool.get(proxy.id) === pooled) this.pool.delete(proxy.id)
      void sdk.shutdown().catch(() => undefined)
    })
    return pooled
  }

  private async baselineTarget(deadline: number, signal: AbortSignal): Promise<ProxyCandidate> {
    const endpoints = this.base.endpoints
    if (endpoints) {
      return {
        id: endpoints,
        room: this.room,
        address: endpoints,
        zoneMode: false,
        available: null
      }
    }
    const list = await this.selector.awaitList((l) => l.length > 0, deadline, signal)
    return baselineEndpoint(list, this.room)!
  }

  private every(ms: number, fn: () => void): void {
    const t = setInterval(fn, ms)
    t.unref?.()
    this.timers.push(t)
  }
}
