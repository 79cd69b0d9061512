import { EventEmitter } from 'node:events'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { RemotingRpc } from '../remoting/remoting-rpc'
import { ConnectFailedError, RemotingError } from '../remoting/errors'
import {
  applyProbe,
  DEFAULT_POLICY,
  formatNsaddr,
  initialHealth,
  orderForRoom,
  type AvailabilityPolicy,
  type NameServerEntry,
  type NameServerHealth,
  type ProbeResult
} from './availability'
import { h2SettingsProbe, ProbeTimeoutError, type ProxyProbe } from './proxy-probe'

/** Time source port: wall clock for timestamps, monotonic clock for latencies, timers for rounds. */
export interface Clock {
  now(): number
  monotonic(): number
  setTimeout(fn: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

/** The real clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout)
}

/** The slice of RemotingRpc a probe needs; tests pass fakes. */
export interface ProbeClient {
  getBrokerClusterInfo(address: string, options: { timeoutMs?: number }): Promise<unknown>
  closeConnection(address: string): void
  close(): void
}

/** Remoting client factory port. */
export type ProbeClientFactory = (options: {
  connectTimeoutMs: number
  requestTimeoutMs: number
}) => ProbeClient

/** Everything a management node needs; defaults match the topology settings (1000 ms / 500 ms). */
export interface ManagementNodeOptions {
  id: string
  room: string
  host?: string
  /** 0 = ephemeral. */
  port?: number
  probeIntervalMs?: number
  probeTimeoutMs?: number
  failuresBeforeDown?: number
  timeoutsBeforeDown?: number
  successesBeforeUp?: number
  nameServers: readonly NameServerEntry[]
  /** Every room's proxies; probed each round like the name servers. */
  proxies?: readonly ProxyEntry[]
  /** Controller-mode replicas of every room (id, room, address), reported as configured. */
  brokers?: readonly BrokerEntry[]
  clientFactory?: ProbeClientFactory
  /** Proxy probe port; the default waits for the gRPC port's HTTP/2 SETTINGS. */
  proxyProbe?: ProxyProbe
  clock?: Clock
}

/** A controller-mode replica: where it runs, so clients can tell which room its group's master is in. */
export interface BrokerEntry {
  id: string
  room: string
  address: string
}

/** A configured proxy: `address` is host:gRPC port. */
export interface ProxyEntry {
  id: string
  room: string
  address: string
  remotingAddress?: string
  /** Zone-pinned to its room; default true (the topology's default). */
  zoneMode?: boolean
}

/** One name server as /v1/nameservers reports it (null = not known yet). */
export interface NameServerStatus extends NameServerEntry {
  available: boolean
  lastProbeAt: number | null
  latencyMs: number | null
  lastError: string | null
}

/**
 * One proxy as /v1/nameservers reports it (null = not known yet). The gRPC client lane consumes
 * exactly this shape; `remotingAddress` is absent when unknown.
 */
export interface ProxyStatus {
  id: string
  room: string
  /** host:gRPC port. */
  address: string
  remotingAddress?: string
  zoneMode: boolean
  available: boolean
  lastProbeAt: number | null
  latencyMs: number | null
  lastError: string | null
}

/** Events for the engine timeline. */
export interface ManagementNodeEvents {
  /** A name server was listed or dropped. */
  change: [NameServerStatus]
  /** A proxy became available or unavailable. */
  'proxy-change': [ProxyStatus]
  /** A probe round finished. */
  round: [NameServerStatus[]]
}

/** Body of GET /v1/nameservers. */
export interface NameServersResponse {
  id: string
  room: string
  nameServers: NameServerStatus[]
  /** Every room's proxies, own room first. */
  proxies: ProxyStatus[]
  /** Controller-mode replicas of every room (absent from older nodes). */
  brokers: BrokerEntry[]
}

/** Answers with the requested status and body; HEAD gets headers only. */
function send(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string,
  extra: Record<string, string> = {}
): void {
  res.writeHead(status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    ...extra
  })
  res.end(req.method === 'HEAD' ? undefined : body)
}

/**
 * The management device of the method, one per room: knows every room's name servers, probes them
 * with a real GET_BROKER_CLUSTER_INFO, and serves the available ones in RocketMQ's address-server
 * format (own room first) so stock brokers and Java clients use it unchanged.
 */
export class ManagementNode extends EventEmitter<ManagementNodeEvents> {
  readonly id: string
  readonly room: string
  private readonly host: string
  private readonly requestedPort: number
  private readonly probeIntervalMs: number
  private readonly probeTimeoutMs: number
  private readonly policy: AvailabilityPolicy
  private readonly entries: readonly NameServerEntry[]
  private readonly health = new Map<string, NameServerHealth>()
  private readonly proxyEntries: readonly ProxyEntry[]
  private readonly brokerEntries: readonly BrokerEntry[]
  private readonly proxyHealth = new Map<string, NameServerHealth>()
  private readonly proxyProbe: ProxyProbe
  private readonly clock: Clock
  private readonly clientFactory: ProbeClientFactory
  private client: ProbeClient | undefined
  private server: Server | undefined
  private timer: unknown
  private running = false
  private currentRound: Promise<void> | undefined
  private boundPort = 0

  constructor(options: ManagementNodeOptions) {
    super()
    this.id = options.id
    this.room = options.room
    this.host = options.host ?? '127.0.0.1'
    this.requestedPort = options.port ?? 0
    this.probeIntervalMs = options.probeIntervalMs ?? 1000
    this.probeTimeoutMs = options.probeTimeoutMs ?? 500
    this.policy = {
      failuresBeforeDown: options.failuresBeforeDown ?? DEFAULT_POLICY.failuresBeforeDown,
      // A timeout never drops a name server sooner than a refusal would.
      timeoutsBeforeDown:
        options.timeoutsBeforeDown ??
        Math.max(
          DEFAULT_POLICY.timeoutsBeforeDown,
          options.failuresBeforeDown ?? DEFAULT_POLICY.failuresBeforeDown
        ),
      successesBeforeUp: options.successesBeforeUp ?? DEFAULT_POLICY.successesBeforeUp
    }
    this.entries = [...options.nameServers]
    for (const e of this.entries) this.health.set(e.id, initialHealth())
    this.proxyEntries = [...(options.proxies ?? [])]
    this.brokerEntries = [...(options.brokers ?? [])]
    for (const p of this.proxyEntries) this.proxyHealth.set(p.id, initialHealth())
    this.proxyProbe = options.proxyProbe ?? h2SettingsProbe
    this.clock = options.clock ?? systemClock
    this.clientFactory =
      options.clientFactory ?? ((o) => new RemotingRpc({ ...o, language: 'JAVA' }))
  }

  /** The port actually bound (after start). */
  get port(): number {
    return this.boundPort
  }

  /** Base URL, e.g. http://127.0.0.1:34567. */
  get url(): string {
    const host = this.host.includes(':') ? `[${this.host}]` : this.host
    return `http://${host}:${this.boundPort}`
  }

  /** What brokers put in rmqAddressServerDomain (and clients in rocketmq.namesrv.domain). */
  get addressServerDomain(): string {
    return new URL(this.url).host
  }

  /** Probes every name server once, then serves HTTP; readiness (GET /healthz) implies known state. */
  async start(): Promise<{ url: string }> {
    if (this.running) return { url: this.url }
    this.running = true
    this.client = this.clientFactory({
      connectTimeoutMs: this.probeTimeoutMs,
      requestTimeoutMs: this.probeTimeoutMs
    })
    await this.probeNow()
    const server = createServer((req, res) => this.handle(req, res))
    server.keepAliveTimeout = 5000
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen(this.requestedPort, this.host, () => {
          server.off('error', reject)
          resolve()
        })
      })
    } catch (e) {
      await this.stop()
      const err = e as NodeJS.ErrnoException
      throw new Error(
        `Management node ${this.id} cannot listen on ${this.host}:${this.requestedPort}: ` +
          `${err.code ?? err.message}. Pick another port (0 = any free port) or stop what holds it.`,
        { cause: e }
      )
    }
    this.server = server
    this.boundPort = (server.address() as AddressInfo).port
    this.scheduleIn(this.probeIntervalMs)
    return { url: this.url }
  }

  /** Stops probing and serving; in-flight probes are abandoned. */
  async stop(): Promise<void> {
    this.running = false
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer)
    this.timer = undefined
    this.client?.close()
    this.client = undefined
    const server = this.server
    this.server = undefined
    if (server) {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
    }
    await this.currentRound
  }

  /** Current view, own room first. */
  nameServers(): NameServerStatus[] {
    return orderForRoom(this.entries, this.room).map((e) => this.status(e))
  }

  /** Current view of the proxies, own room first. */
  proxies(): ProxyStatus[] {
    return orderForRoom(this.proxyEntries, this.room).map((p) => this.proxyStatus(p))
  }

  /** The /rocketmq/nsaddr body: available name servers, own room first, `;`-separated. */
  nsaddr(): string {
    return formatNsaddr(
      this.entries.map((e) => this.status(e)),
      this.room
    )
  }

  /** Runs one probe round now (also used by start and the timer). */
  probeNow(): Promise<void> {
    if (!this.currentRound) {
      this.currentRound = this.round().finally(() => {
        this.currentRound = undefined
      })
    }
    return this.currentRound
  }

  private status(e: NameServerEntry): NameServerStatus {
    const h = this.health.get(e.id) ?? initialHealth()
    return {
      id: e.id,
      room: e.room,
      address: e.address,
      available: h.available,
      lastProbeAt: h.lastProbeAt ?? null,
      latencyMs: h.latencyMs ?? null,
      lastError: h.lastError ?? null
    }
  }

  private proxyStatus(p: ProxyEntry): ProxyStatus {
    const h = this.proxyHealth.get(p.id) ?? initialHealth()
    return {
      id: p.id,
      room: p.room,
      address: p.address,
      ...(p.remotingAddress !== undefined ? { remotingAddress: p.remotingAddress } : {}),
      zoneMode: p.zoneMode ?? true,
      available: h.available,
      lastProbeAt: h.lastProbeAt ?? null,
      latencyMs: h.latencyMs ?? null,
      lastError: h.lastError ?? null
    }
  }

  /** Fixed rate without overlap: the next round starts one interval after this one started. */
  private scheduleIn(ms: number): void {
    if (!this.running) return
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined
      const startedAt = this.clock.monotonic()
      void this.probeNow().then(() => {
        const elapsed = this.clock.monotonic() - startedAt
        this.scheduleIn(Math.max(0, this.probeIntervalMs - elapsed))
      })
    }, ms)
  }

  private async round(): Promise<void> {
    const client = this.client
    if (!client) return
    await Promise.all([
      ...this.entries.map((e) => this.probeOne(client, e)),
      ...this.proxyEntries.map((p) => this.probeProxy(p))
    ])
    if (this.running) this.emit('round', this.nameServers())
  }

  /** Runs one probe call under the probe timeout and times it. */
  private async timed(call: () => Promise<unknown>): Promise<ProbeResult> {
    const t0 = this.clock.monotonic()
    let timer: unknown
    let guardFired = false
    try {
      // The callee enforces the timeout too; this guard only keeps a broken port from stalling rounds.
      await Promise.race([
        call(),
        new Promise((_, reject) => {
          timer = this.clock.setTimeout(() => {
            guardFired = true
            reject(new Error(`no answer within ${this.probeTimeoutMs} ms`))
          }, this.probeTimeoutMs + 50)
        })
      ])
      const latencyMs = Math.round((this.clock.monotonic() - t0) * 10) / 10
      return { ok: true, at: this.clock.now(), latencyMs }
    } catch (err) {
      const error =
        err instanceof RemotingError ? `${err.code}: ${err.message}` : (err as Error).message
      return { ok: false, at: this.clock.now(), error, timedOut: guardFired || isTimeout(err) }
    } finally {
      this.clock.clearTimeout(timer)
    }
  }

  private async probeOne(client: ProbeClient, e: NameServerEntry): Promise<void> {
    const result = await this.timed(() =>
      client.getBrokerClusterInfo(e.address, { timeoutMs: this.probeTimeoutMs })
    )
    // Start the next probe on a fresh socket (a timed-out one may be wedged, e.g. SIGSTOP).
    if (!result.ok) client.closeConnection(e.address)
    const before = this.health.get(e.id) ?? initialHealth()
    const after = applyProbe(before, result, this.policy)
    this.health.set(e.id, after)
    if (before.available !== after.available) this.emit('change', this.status(e))
  }

  /** Same availability rules as name servers; each probe uses a fresh connection. */
  private async probeProxy(p: ProxyEntry): Promise<void> {
    const result = await this.timed(() => this.proxyProbe(p.address, this.probeTimeoutMs))
    const before = this.proxyHealth.get(p.id) ?? initialHealth()
    const after = applyProbe(before, result, this.policy)
    this.proxyHealth.set(p.id, after)
    if (before.available !== after.available) this.emit('proxy-change', this.proxyStatus(p))
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(req, res, 405, 'text/plain; charset=utf-8', 'method not allowed\n', {
        Allow: 'GET, HEAD'
      })
      return
    }
    const path = new URL(req.url ?? '/', 'http://localhost').pathname
    // RocketMQ fetches http://<domain>/rocketmq/nsaddr, or nsaddr-<unitName>?nofix=1 with a unit.
    if (path === '/rocketmq/nsaddr' || path.startsWith('/rocketmq/nsaddr-')) {
      const body = this.nsaddr()
      // Empty = none available; RocketMQ keeps its previous list on non-200 or blank bodies alike.
      send(req, res, body ? 200 : 503, 'text/plain; charset=utf-8', body)
      return
    }
    if (path === '/v1/nameservers') {
      const body: NameServersResponse = {
        id: this.id,
        room: this.room,
        nameServers: this.nameServers(),
        proxies: this.proxies(),
        brokers: [...this.brokerEntries]
      }
      send(req, res, 200, 'application/json; charset=utf-8', JSON.stringify(body))
      return
    }
    if (path === '/healthz') {
      const list = this.nameServers()
      const body = {
        status: 'ok',
        id: this.id,
        room: this.room,
        available: list.filter((n) => n.available).length,
        total: list.length
      }
      send(req, res, 200, 'application/json; charset=utf-8', JSON.stringify(body))
      return
    }
    send(
      req,
      res,
      404,
      'text/plain; charset=utf-8',
      'not found; try /rocketmq/nsaddr, /v1/nameservers or /healthz\n'
    )
  }
}

/** A failure that a stalled or merely slow peer also gives (as opposed to a refusal or reset). */
function isTimeout(err: unknown): boolean {
  if (err instanceof ConnectFailedError) return err.timedOut
  if (err instanceof ProbeTimeoutError) return true
  return err instanceof RemotingError && err.code === 'timeout'
}
