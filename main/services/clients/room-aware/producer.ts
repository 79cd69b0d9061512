import { EventEmitter } from 'node:events'
import type { ClientChoice } from '../../../../common/scenario/events'
import type { SelectionPolicy } from '../../../../common/topology/schema'
import { createUniqId } from '../../remoting/message'
import type { BrokerCandidate } from './choose-broker'
import { chooseBroker, chooseQueue } from './choose-broker'
import type { NameServerCandidate } from './choose-name-server'
import { classifyFailure } from './classify-error'
import { buildClientId } from './client-id'
import { FaultTable } from './fault-table'
import type { NameServerDirectory } from './name-server-directory'
import type { Clock, ClientDeps, ManagementNodeRef, RemotingPort } from './ports'
import { pause, systemClock } from './ports'
import type { RouteKeeper } from './route-keeper'
import { awaitFirstRoute, createRouting } from './route-keeper'

export interface ProducerOptions {
  /** Display id used in the ledger and the UI (e.g. `producer-1`). */
  id: string
  room: string
  topic: string
  group: string
  managementNodes: readonly ManagementNodeRef[]
  initialNameServers?: readonly NameServerCandidate[]
  /** Rooms of brokers without a zone (an operator's brokers started without ROCKETMQ_ZONE). */
  brokerRooms?: Readonly<Record<string, string>>
  policy?: SelectionPolicy
  routeRefreshMs?: number
  /** Whole-send budget across retries. */
  sendTimeoutMs?: number
  /** Per-request timeout: what detects a hung (SIGSTOPped) broker, whose socket stays open. */
  requestTimeoutMs?: number
  /** How often an isolated broker is probed for its return. */
  probeIntervalMs?: number
  managementRefreshMs?: number
  managementTimeoutMs?: number
  countersIntervalMs?: number
  /**
   * HEART_BEAT to every master of the route: brokers list the producer group, and the connection
   * to another room's broker is already open (and warm) when a failover needs it.
   */
  heartbeatIntervalMs?: number
}

export interface SendInput {
  /** Message key (UNIQ_KEY); generated when absent. */
  key?: string
  body: Buffer | string
  tags?: string
  keys?: string[]
  /** False for warm-up traffic: no ledger rows, failures or counters (decisions are still logged). */
  record?: boolean
  /** When the open-loop schedule wanted this send (recorded for coordinated-omission-safe latency). */
  scheduledAt?: number
}

export interface SendOutcome {
  ok: boolean
  key: string
  brokerName: string | null
  brokerRoom: string | null
  queueId: number | null
  queueOffset: number | null
  attempts: number
  latencyMs: number
  error?: string
}

export interface ProducerEvents {
  choice: [ClientChoice]
}

type Defaulted = Required<Omit<ProducerOptions, 'initialNameServers'>> &
  Pick<ProducerOptions, 'initialNameServers'>

let instanceSeq = 0

/**
 * Room-aware producer (modules 601-603): name servers from the management node, route through a
 * same-room name server, sends to a same-room master, immediate retry elsewhere on failure within
 * the send deadline, and isolation of faulty brokers until a background probe sees them healthy.
 */
export class DrProducer extends EventEmitter<ProducerEvents> {
  readonly id: string
  readonly room: string
  /** The id brokers see in heartbeats (`ip@instance@room`). */
  readonly cid: string
  readonly directory: NameServerDirectory
  readonly routes: RouteKeeper
  readonly faults = new FaultTable()
  private readonly opts: Defaulted
  private readonly remoting: RemotingPort
  private readonly clock: Clock
  private readonly random: () => number
  private readonly counters = { sent: 0, acked: 0, failed: 0, consumed: 0, inflight: 0 }
  private readonly queueCursors = new Map<string, number>()
  private readonly probing = new Set<string>()
  private brokerCursor = 0
  private lastBroker: { name: string; room: string | null } | undefined
  private timers: NodeJS.Timeout[] = []
  private running = false
  private stopped = new AbortController()

  constructor(
    options: ProducerOptions,
    private readonly deps: ClientDeps
  ) {
    super()
    this.opts = {
      policy: 'round-robin',
      routeRefreshMs: 1000,
      sendTimeoutMs: 3000,
      requestTimeoutMs: 400,
      probeIntervalMs: 200,
      managementRefreshMs: 1000,
      managementTimeoutMs: 500,
      countersIntervalMs: 1000,
      heartbeatIntervalMs: 1000,
      brokerRooms: {},
      ...options
    }
    this.id = options.id
    this.room = options.room
    this.cid = buildClientId({
      instance: `${options.id}-${process.pid}-${++instanceSeq}`,
      room: options.room
    })
    this.clock = deps.clock ?? systemClock
    this.random = deps.random ?? Math.random
    const routing = createRouting(
      {
        clientId: this.id,
        room: this.room,
        topic: this.opts.topic,
        policy: this.opts.policy,
        managementNodes: this.opts.managementNodes,
        managementRefreshMs: this.opts.managementRefreshMs,
        managementTimeoutMs: this.opts.managementTimeoutMs,
        routeRefreshMs: this.opts.routeRefreshMs,
        requestTimeoutMs: this.opts.requestTimeoutMs,
        brokerRooms: this.opts.brokerRooms,
        ...(this.opts.initialNameServers
          ? { initialNameServers: this.opts.initialNameServers }
          : {})
      },
      { ...deps, clock: this.clock, random: this.random }
    )
    this.remoting = routing.remoting
    this.directory = routing.directory
    this.routes = routing.routes
    this.routes.on('namesrv', () => this.emitChoice())
    this.routes.on('change', () => {
      if (this.running) void this.heartbeatAll()
    })
    this.remoting.on('connection-close', (e) =>
      this.onConnectionClose(e.address, e.error !== undefined)
    )
  }

  /** Counters since start (the same figures the ledger samples every second). */
  stats(): { sent: number; acked: number; failed: number; inflight: number } {
    const { sent, acked, failed, inflight } = this.counters
    return { sent, acked, failed, inflight }
  }

  /** Current name server and broker, for `client:choice`. */
  choice(): ClientChoice {
    const c: ClientChoice = { clientId: this.id, role: 'producer', room: this.room }
    const ns = this.routes.namesrv
    if (ns) {
      c.namesrvId = ns.id
      c.namesrvRoom = ns.room
    }
    if (this.lastBroker) {
      c.brokerName = this.lastBroker.name
      if (this.lastBroker.room) c.brokerRoom = this.lastBroker.room
    }
    return c
  }

  /** Gets a name-server list and a route with brokers, polling until `timeoutMs`. */
  async start(timeoutMs = 15_000): Promise<void> {
    if (this.running) return
    this.running = true
    const deadline = this.clock.now() + timeoutMs
    this.deps.ledger.event('client-started', this.id, this.room, {
      role: 'producer',
      clientKey: this.id
    })
    await awaitFirstRoute(this.directory, this.routes, {
      clientId: this.id,
      topic: this.opts.topic,
      clock: this.clock,
      deadline,
      signal: this.stopped.signal
    })
    await this.heartbeatAll()
    this.directory.start()
    this.routes.start()
    this.every(this.opts.heartbeatIntervalMs, () => void this.heartbeatAll())
    this.every(this.opts.probeIntervalMs, () => this.probeIsolated())
    this.every(this.opts.countersIntervalMs, () =>
      this.deps.ledger.event('counters', this.id, this.room, { ...this.counters })
    )
  }

  /** Sends one message, retrying on other brokers until acknowledged or the deadline passes. */
  async send(input: SendInput): Promise<SendOutcome> {
    const key = input.key ?? createUniqId()
    const startedAt = this.clock.now()
    const deadline = startedAt + this.opts.sendTimeoutMs
    const tried = new Set<string>()
    let attempts = 0
    let firstFail: { at: number; broker: BrokerCandidate; reason: string } | undefined
    let lastError = 'not sent'
    let last: BrokerCandidate | undefined
    let attemptStart: number | null = null
    const record = input.record ?? true
    const counters = record
      ? this.counters
      : { sent: 0, acked: 0, failed: 0, consumed: 0, inflight: 0 }
    counters.sent++
    counters.inflight++
    try {
      while (this.running) {
        const remaining = deadline - this.clock.now()
        if (remaining <= 0) break
        const choice = chooseBroker({
          room: this.room,
          brokers: this.routes.brokers,
          isolated: this.faults.sinceMap(),
          exclude: tried,
          policy: this.opts.policy,
          cursor: this.brokerCursor,
          random: this.random()
        })
        if (!choice) {
          // Everything tried or nothing in the route: refresh it and back off briefly.
          tried.clear()
          lastError = this.routes.brokers.length === 0 ? 'no-route' : lastError
          void this.routes.refresh('no-broker')
          await pause(Math.min(50, Math.max(1, remaining)), this.stopped.signal)
          continue
        }
        this.brokerCursor = choice.cursor
        const broker = choice.broker
        last = broker
        const q = chooseQueue(broker.writeQueues, this.queueCursors.get(broker.brokerName) ?? 0)
        this.queueCursors.set(broker.brokerName, q.cursor)
        attempts++
        attemptStart = this.clock.now()
        try {
          const res = await this.remoting.sendMessageV2(
            broker.masterAddr!,
            {
              brokerName: broker.brokerName,
              producerGroup: this.opts.group,
              topic: this.opts.topic,
              queueId: q.queueId,
              body: input.body,
              uniqKey: key,
              keys: input.keys ?? [key],
              ...(input.tags !== undefined ? { tags: input.tags } : {})
            },
            {
              timeoutMs: Math.max(1, Math.min(this.opts.requestTimeoutMs, deadline - attemptStart))
            }
          )
          const endedAt = this.clock.now()
          counters.acked++
          this.noteBroker(broker, choice.reason, firstFail === undefined)
          // A retry that succeeded on the broker that failed is a slow send, not a failover.
          if (firstFail && firstFail.broker.brokerName !== broker.brokerName) {
            this.deps.ledger.event('broker-failover', this.id, this.room, {
              from: firstFail.broker.brokerName,
              fromRoom: firstFail.broker.room,
              to: broker.brokerName,
              toRoom: broker.room,
              reason: firstFail.reason,
              durationMs: endedAt - firstFail.at,
              key
            })
          }
          if (record)
            this.record(
              key,
              input.scheduledAt ?? null,
              startedAt,
              attemptStart,
              endedAt,
              'acked',
              attempts,
              broker,
              q.queueId,
              res.queueOffset,
              null
            )
          return {
            ok: true,
            key,
            brokerName: broker.brokerName,
            brokerRoom: broker.room,
            queueId: q.queueId,
            queueOffset: res.queueOffset,
            attempts,
            latencyMs: endedAt - startedAt
          }
        } catch (e) {
          const endedAt = this.clock.now()
          const cls = classifyFailure(e)
          lastError = `${cls.reason}: ${(e as Error)?.message ?? String(e)}`
          if (record)
            this.deps.ledger.event('send-attempt-failed', this.id, this.room, {
              key,
              brokerName: broker.brokerName,
              brokerRoom: broker.room,
              reason: cls.reason,
              startMs: attemptStart,
              endMs: endedAt
            })
          firstFail ??= { at: attemptStart, broker, reason: cls.reason }
          if (cls.isolate) this.isolate(broker, cls.reason)
          if (!cls.retry) break
          tried.add(broker.brokerName)
        }
      }
      const endedAt = this.clock.now()
      counters.failed++
      if (record)
        this.deps.ledger.event('send-failed', this.id, this.room, {
          key,
          reason: lastError,
          attempts
        })
      if (record)
        this.record(
          key,
          input.scheduledAt ?? null,
          startedAt,
          attemptStart,
          endedAt,
          'failed',
          attempts,
          last,
          null,
          null,
          lastError
        )
      return {
        ok: false,
        key,
        brokerName: last?.brokerName ?? null,
        brokerRoom: last?.room ?? null,
        queueId: null,
        queueOffset: null,
        attempts,
        latencyMs: endedAt - startedAt,
        error: lastError
      }
    } finally {
      counters.inflight--
    }
  }

  /**
   * Stops the producer. `graceful` lets the timers end and closes connections; `crash` does the
   * same without any goodbye (producers send no UNREGISTER either way, so they differ only in name).
   */
  async stop(mode: 'graceful' | 'crash' = 'graceful'): Promise<void> {
    if (!this.running) return
    this.running = false
    this.stopped.abort()
    for (const t of this.timers) clearInterval(t)
    this.timers = []
    this.directory.stop()
    this.routes.stop()
    this.remoting.close()
    this.deps.ledger.event('counters', this.id, this.room, { ...this.counters })
    this.deps.ledger.event('client-stopped', this.id, this.room, { role: 'producer', mode })
  }

  private async heartbeatAll(): Promise<void> {
    await Promise.allSettled(
      this.routes.brokers
        .filter((b) => b.masterAddr)
        .map((b) =>
          this.remoting.heartbeat(
            b.masterAddr!,
            { clientId: this.cid, producerGroups: [this.opts.group] },
            { timeoutMs: this.opts.requestTimeoutMs }
          )
        )
    )
  }

  private every(ms: number, fn: () => void): void {
    const t = setInterval(fn, ms)
    t.unref?.()
    this.timers.push(t)
  }

  private record(
    key: string,
    scheduledAt: number | null,
    startedAt: number,
    attemptStartedAt: number | null,
    endedAt: number,
    status: 'acked' | 'failed',
    attempts: number,
    broker: BrokerCandidate | undefined,
    queueId: number | null,
    queueOffset: number | null,
    error: string | null
  ): void {
    const ns = this.routes.namesrv
    this.deps.ledger.send({
      key,
      clientId: this.id,
      clientRoom: this.room,
      namesrvId: ns?.id ?? null,
      namesrvRoom: ns?.room ?? null,
      brokerName: broker?.brokerName ?? null,
      brokerRoom: broker?.room ?? null,
      queueId,
      queueOffset,
      scheduledAt,
      startedAt,
      attemptStartedAt,
      endedAt,
      status,
      attempts,
      error
    })
  }

  /**
   * Logs a change of broker. When the previous one was isolated or dropped from the route before
   * any send to it failed (e.g. its socket closed first), that change is the failover.
   */
  private noteBroker(broker: BrokerCandidate, reason: string, mayBeFailover: boolean): void {
    // A controller-mode set keeps its name when its master moves rooms: that is a change too.
    if (this.lastBroker?.name === broker.brokerName && this.lastBroker.room === broker.room) return
    const prev = this.lastBroker
    if (prev && mayBeFailover) {
      const fault = this.faults.list().find((f) => f.brokerName === prev.name)
      const inRoute = this.routes.brokers.some((b) => b.brokerName === prev.name)
      if (fault || !inRoute) {
        this.deps.ledger.event('broker-failover', this.id, this.room, {
          from: prev.name,
          fromRoom: prev.room,
          to: broker.brokerName,
          toRoom: broker.room,
          reason: fault ? fault.reason : 'dropped-from-route',
          durationMs: this.clock.now() - (fault ? fault.since : this.routes.changedAt),
          key: ''
        })
      }
    }
    this.lastBroker = { name: broker.brokerName, room: broker.room }
    this.deps.ledger.event('broker-choice', this.id, this.room, {
      brokerName: broker.brokerName,
      brokerRoom: broker.room,
      reason
    })
    this.emitChoice()
  }

  private emitChoice(): void {
    this.emit('choice', this.choice())
  }

  private isolate(broker: BrokerCandidate, reason: string): void {
    const fresh = this.faults.isolate({
      brokerName: broker.brokerName,
      address: broker.masterAddr,
      room: broker.room,
      reason,
      since: this.clock.now()
    })
    if (!fresh) return
    this.deps.ledger.event('broker-isolated', this.id, this.room, {
      brokerName: broker.brokerName,
      brokerRoom: broker.room,
      reason
    })
    // The name server may already know the broker is gone; ask now rather than at the next tick.
    void this.routes.refresh('broker-failed')
  }

  /** A broker's socket closed under us (killed, not hung): stop choosing it before a send fails. */
  private onConnectionClose(address: string, unexpected: boolean): void {
    if (!this.running || !unexpected) return
    const broker = this.routes.brokers.find((b) => b.masterAddr === address)
    if (broker) this.isolate(broker, 'reset')
  }

  private probeIsolated(): void {
    const now = this.clock.now()
    for (const entry of this.faults.dueForProbe(now, this.opts.probeIntervalMs)) {
      if (this.probing.has(entry.brokerName)) continue
      const inRoute = this.routes.brokers.find((b) => b.brokerName === entry.brokerName)
      const address = inRoute?.masterAddr ?? entry.address
      if (!address) continue
      entry.lastProbeAt = now
      this.probing.add(entry.brokerName)
      this.remoting
        .getMaxOffset(
          address,
          { brokerName: entry.brokerName, topic: this.opts.topic, queueId: 0 },
          { timeoutMs: this.opts.requestTimeoutMs }
        )
        .then(
          () => {
            if (!this.running) return
            const e = this.faults.recover(entry.brokerName)
            if (e) {
              this.deps.ledger.event('broker-recovered', this.id, this.room, {
                brokerName: e.brokerName,
                brokerRoom: e.room,
                isolatedMs: this.clock.now() - e.since
              })
            }
          },
          () => {
            entry.lastProbeAt = this.clock.now()
          }
        )
        .finally(() => this.probing.delete(entry.brokerName))
    }
  }
}
