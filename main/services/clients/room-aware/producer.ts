import { EventEmitter } from 'node:events'
import type { ClientChoice } from '../../../../common/scenario/events'
import type { OrderPolicy, SelectionPolicy } from '../../../../common/topology/schema'
import { MessageSysFlag, RequestCode } from '../../remoting/codes'
import type { DecodedCommand } from '../../remoting/codec'
import { createUniqId, MessageProperty } from '../../remoting/message'
import { commitLogOffsetOf, parseTransactionCheck } from '../../remoting/transaction-requests'
import type { BrokerCandidate } from './choose-broker'
import { chooseBroker, chooseQueue } from './choose-broker'
import { chooseOrdered, OrderHomes } from './choose-ordered'
import type { NameServerCandidate } from './choose-name-server'
import { classifyFailure } from './classify-error'
import { BrokerIsolation } from './broker-isolation'
import type { Attempt, SendInput, SendOutcome, SendState } from './send-attempt'

export type { SendInput, SendOutcome } from './send-attempt'
import { failoverOf, hedgeOf, outcome, raceDelay } from './send-attempt'
import { FaultTable } from './fault-table'
import { LocalTransactions } from './local-transactions'
import type { HedgeOptions } from './hedge'
import { firstOk, HEDGE_DEFAULTS, HedgePolicy } from './hedge'
import type { NameServerDirectory } from './name-server-directory'
import type { Clock, ManagementNodeRef, RemotingPort } from './ports'
import { ORDER_FENCE_MS, OrderFences } from './order-fence'
import { pause, systemClock } from './ports'
import type { RouteKeeper } from './route-keeper'
import type { CoredClientDeps } from './client-core'
import { ClientCore, coreOptionsOf } from './client-core'
import type { HealthyLatencyOptions } from './healthy-latency'
import { HEALTHY_LATENCY_DEFAULTS, HealthyLatency } from './healthy-latency'
import { REQUEST_TIMEOUT_DEFAULTS, RequestTimeout } from './request-timeout'

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
  /**
   * Per-request timeout: what detects a hung (SIGSTOPped) broker, whose socket stays open. The
   * floor: it grows with recent healthy latency (request-timeout.ts) up to `maxRequestTimeoutMs`.
   */
  requestTimeoutMs?: number
  /** The request timeout's ceiling; absent: 4 × requestTimeoutMs; equal to it: a fixed timeout. */
  maxRequestTimeoutMs?: number
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
  /**
   * Hedged sends (see hedge.ts): `true` for the defaults, options to tune them, false (default)
   * to wait for the request timeout as before.
   */
  hedge?: boolean | Partial<HedgeOptions>
  /** The window of healthy answers the request timeout and the hedge delay read (healthy-latency.ts). */
  latencyWindow?: Partial<HealthyLatencyOptions>
  /** Ordered sends: hold a key while its queue is unavailable (`wait`), or send it elsewhere. */
  orderPolicy?: OrderPolicy
  /** `wait`: how long a key waits after a send of it ended unanswered (order-fence.ts). */
  orderFenceMs?: number
}

const STOPPED_BEFORE_ANSWER = 'client stopped before the answer came'

export interface ProducerEvents {
  choice: [ClientChoice]
}

type Defaulted = Required<
  Omit<ProducerOptions, 'initialNameServers' | 'maxRequestTimeoutMs' | 'latencyWindow'>
> &
  Pick<ProducerOptions, 'initialNameServers' | 'maxRequestTimeoutMs' | 'latencyWindow'>

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
  private readonly core: ClientCore
  /** A core of its own (no worker registry): closed with the producer, as its connections were. */
  private readonly ownsCore: boolean
  private readonly clock: Clock
  private readonly random: () => number
  private readonly counters = { sent: 0, acked: 0, failed: 0, consumed: 0, inflight: 0 }
  private readonly queueCursors = new Map<string, number>()
  private readonly isolation: BrokerIsolation
  private readonly hedge: HedgePolicy | undefined
  private readonly latency: HealthyLatency
  private readonly requestTimeout: RequestTimeout
  /** Ordered sends: each key's home queue, fixed at its first send, and its chain of sends. */
  private readonly orderHomes = new OrderHomes()
  private readonly orderChains = new Map<string, Promise<unknown>>()
  /** `wait`: keys whose last send ended unanswered, held until it is surely stored or dropped. */
  private readonly orderFences: OrderFences
  /** Transactional sends' local transactions; the broker's check-back is answered from here. */
  private readonly localTransactions: LocalTransactions
  private brokerCursor = 0
  private lastBroker: { name: string; room: string | null } | undefined
  private timers: NodeJS.Timeout[] = []
  private running = false
  private stopped = new AbortController()

  constructor(
    options: ProducerOptions,
    private readonly deps: CoredClientDeps
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
      hedge: false,
      orderPolicy: 'wait',
      orderFenceMs: ORDER_FENCE_MS,
      ...options
    }
    this.orderFences = new OrderFences(this.opts.orderFenceMs)
    // One window of healthy answers tells both when an attempt is slow: hedge it, then give up.
    this.latency = new HealthyLatency({ ...HEALTHY_LATENCY_DEFAULTS, ...this.opts.latencyWindow })
    const h = this.opts.hedge
    this.hedge = h
      ? new HedgePolicy(
          {
            ...HEDGE_DEFAULTS,
            maxDelayMs: this.opts.requestTimeoutMs / 2,
            ...(h === true ? {} : h)
          },
          this.latency
        )
      : undefined
    this.id = options.id
    this.room = options.room
    const floorMs = this.opts.requestTimeoutMs
    this.requestTimeout = new RequestTimeout(
      {
        factor: REQUEST_TIMEOUT_DEFAULTS.factor,
        floorMs,
        ceilingMs: Math.max(
          floorMs,
          this.opts.maxRequestTimeoutMs ?? floorMs * REQUEST_TIMEOUT_DEFAULTS.ceilingFactor
        )
      },
      this.latency,
      (change) => deps.ledger.event('request-timeout', this.id, this.room, change)
    )
    this.clock = deps.clock ?? systemClock
    this.localTransactions = new LocalTransactions(() => this.clock.now())
    this.random = deps.random ?? Math.random
    // Shared with the worker's other clients when it hands out cores; else this producer's own.
    const core = coreOptionsOf(this.opts)
    this.core = deps.cores ? deps.cores.hold(core, this.id) : new ClientCore(core, deps)
    this.ownsCore = !deps.cores
    this.cid = this.core.cid
    this.remoting = this.core.remoting
    this.directory = this.core.directory
    this.routes = this.core.routes(this.opts.topic)
    this.isolation = new BrokerIsolation(
      this.faults,
      {
        remoting: this.remoting,
        routes: this.routes,
        ledger: deps.ledger,
        clock: this.clock,
        running: () => this.running
      },
      {
        clientId: this.id,
        room: this.room,
        topic: this.opts.topic,
        requestTimeoutMs: this.opts.requestTimeoutMs,
        probeIntervalMs: this.opts.probeIntervalMs
      }
    )
  }

  private readonly onNamesrv = (): void => this.emitChoice()
  private readonly onRouteChange = (brokers: readonly BrokerCandidate[]): void =>
    this.orderHomes.observe(brokers)
  private readonly onConnectionClose = (e: { address: string; error?: unknown }): void =>
    this.isolation.onConnectionClose(e.address, e.error !== undefined)

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
    this.routes.on('namesrv', this.onNamesrv)
    this.routes.on('change', this.onRouteChange)
    this.remoting.on('connection-close', this.onConnectionClose)
    this.remoting.on('server-request', this.onServerRequest)
    await this.core
      .enter(
        { id: this.id, topic: this.opts.topic, producerGroup: this.opts.group },
        deadline,
        this.stopped.signal
      )
      .catch((e: unknown) => {
        this.detach()
        this.running = false
        throw e
      })
    // A route the core already had raised no change for this producer.
    this.orderHomes.observe(this.routes.brokers)
    if (this.routes.namesrv) this.emitChoice()
    await this.core.heartbeat()
    this.every(this.opts.probeIntervalMs, () => this.isolation.probe())
    this.every(this.opts.countersIntervalMs, () =>
      this.deps.ledger.event('counters', this.id, this.room, { ...this.counters })
    )
  }

  /**
   * Sends one message, retrying on other brokers until acknowledged or the deadline passes; with
   * hedging, a first attempt slower than recent healthy ones is raced by a copy to another room.
   */
  send(input: SendInput): Promise<SendOutcome> {
    const calledAt = this.clock.now()
    const order = input.order
    if (!order) return this.sendNow(input, calledAt)
    // One send of a key at a time, in call order; the deadline runs from the call, so sends queued
    // behind a key's failing ones expire instead of piling up after the outage.
    const before = this.orderChains.get(order.key) ?? Promise.resolve()
    const sent = before.then(() => this.sendNow(input, calledAt))
    const tail = sent.catch(() => undefined)
    this.orderChains.set(order.key, tail)
    void tail.then(() => {
      if (this.orderChains.get(order.key) === tail) this.orderChains.delete(order.key)
    })
    return sent
  }

  private async sendNow(input: SendInput, calledAt: number): Promise<SendOutcome> {
    const key = input.key ?? createUniqId()
    const startedAt = this.clock.now()
    const record = input.record ?? true
    const st: SendState = {
      key,
      input,
      record,
      deadline: calledAt + this.opts.sendTimeoutMs,
      tried: new Set(),
      attempts: 0,
      lastError: 'not sent'
    }
    const counters = record
      ? this.counters
      : { sent: 0, acked: 0, failed: 0, consumed: 0, inflight: 0 }
    counters.sent++
    counters.inflight++
    this.hedge?.earn()
    try {
      while (this.running) {
        const remaining = st.deadline - this.clock.now()
        if (remaining <= 0) break
        if (input.order) {
          const fence = this.orderFences.waitFor(input.order.key, this.clock.now())
          if (fence > 0) {
            st.lastError = `order-wait: an earlier message of key ${input.order.key} may still be stored (its send ended unanswered)`
            await pause(Math.min(fence, remaining), this.stopped.signal)
            continue
          }
          const r = await this.attemptOrdered(input.order.key, st, remaining)
          if (!this.running) {
            st.lastError = STOPPED_BEFORE_ANSWER
            break
          }
          if (r === 'wait') continue
          if (r.ok) {
            counters.acked++
            await this.endTransaction(st, r)
            return this.acked(st, r, r.reason, startedAt)
          }
          if (!r.retry) break
          st.tried.add(r.broker.brokerName)
          continue
        }
        const choice = chooseBroker({
          room: this.room,
          brokers: this.routes.brokers,
          isolated: this.faults.sinceMap(),
          exclude: st.tried,
          policy: this.opts.policy,
          cursor: this.brokerCursor,
          random: this.random()
        })
        if (!choice) {
          // Everything tried or nothing in the route: refresh it and back off briefly.
          st.tried.clear()
          st.lastError = this.routes.brokers.length === 0 ? 'no-route' : st.lastError
          void this.routes.refresh('no-broker')
          await pause(Math.min(50, Math.max(1, remaining)), this.stopped.signal)
          continue
        }
        this.brokerCursor = choice.cursor
        const r = await this.attemptHedged(choice.broker, st)
        // Stopped meanwhile: its application never saw this answer (the core's pool, shared with
        // the worker's other producers, stays open, so nothing else fails the send).
        if (!this.running) {
          st.lastError = STOPPED_BEFORE_ANSWER
          break
        }
        if (r.ok) {
          counters.acked++
          await this.endTransaction(st, r)
          return this.acked(st, r, choice.reason, startedAt)
        }
        if (!r.retry) break
        st.tried.add(r.broker.brokerName)
      }
      counters.failed++
      if (input.order && this.opts.orderPolicy === 'wait') {
        this.orderFences.failed(input.order.key, st.unansweredAt)
      }
      // No half message was acknowledged, so the local transaction never ran: a check-back on a
      // half message stored anyway (a timed-out attempt) is told to roll it back.
      if (input.transaction) this.localTransactions.ran(key, 'rollback', null)
      return this.failed(st, startedAt)
    } finally {
      counters.inflight--
    }
  }

  private acked(
    st: SendState,
    r: Extract<Attempt, { ok: true }>,
    reason: string,
    startedAt: number
  ): SendOutcome {
    const { record } = st
    const hedgeWon = st.hedge?.to === r.broker
    this.noteBroker(r.broker, hedgeWon ? 'hedge' : reason, st.firstFail === undefined)
    const { ledger } = this.deps
    // A retry that succeeded on the broker that failed is a slow send, not a failover.
    if (st.firstFail && st.firstFail.broker.brokerName !== r.broker.brokerName)
      ledger.event('broker-failover', this.id, this.room, failoverOf(st, r))
    if (record && st.hedge) ledger.event('send-hedged', this.id, this.room, hedgeOf(st, hedgeWon))
    if (record) {
      this.record(st, startedAt, r, {
        status: 'acked',
        queueId: r.queueId,
        queueOffset: r.queueOffset,
        // Stored with a warning (a synchronous master without its slave): acknowledged, as the
        // Java client's SendResult is, with the status kept where its lane keeps it too.
        error: r.sendStatus === 'SEND_OK' ? null : r.sendStatus
      })
    }
    return outcome(st, r, startedAt, r.endedAt)
  }

  private failed(st: SendState, startedAt: number): SendOutcome {
    const { key, record } = st
    const endedAt = this.clock.now()
    if (record) {
      this.deps.ledger.event('send-failed', this.id, this.room, {
        key,
        reason: st.lastError,
        attempts: st.attempts
      })
      this.record(
        st,
        startedAt,
        { at: st.lastAttemptAt ?? null, endedAt, broker: st.last },
        { status: 'failed', queueId: null, queueOffset: null, error: st.lastError }
      )
    }
    return outcome(st, null, startedAt, endedAt)
  }

  /**
   * One attempt on `broker`, raced by a hedge on another room's broker when it is slower than the
   * hedge delay. Resolves with the first success (or the last failure); the losing attempt runs
   * on, and a late failure of it still isolates its broker and is logged like any failed attempt.
   */
  private async attemptHedged(broker: BrokerCandidate, st: SendState): Promise<Attempt> {
    const first = this.attempt(broker, st)
    // A transaction's half message is never raced: the copy would be a second transaction.
    const delay =
      st.hedge || st.input.transaction ? null : (this.hedge?.delay(this.clock.now()) ?? null)
    if (delay === null) return first
    const early = await raceDelay(first, delay)
    if (early) return early
    const other = chooseBroker({
      room: this.room,
      brokers: this.routes.brokers.filter((b) => b.room !== broker.room),
      isolated: this.faults.sinceMap(),
      exclude: st.tried,
      policy: this.opts.policy,
      cursor: this.brokerCursor,
      random: this.random()
    })
    if (!other || !this.running || st.deadline <= this.clock.now()) return first
    if (!this.hedge!.take()) return first
    st.hedge = { from: broker, to: other.broker, delayMs: delay }
    const r = await firstOk([first, this.attempt(other.broker, st)])
    // Both failed: neither broker is worth retrying within this send.
    if (!r.ok) st.tried.add(broker.brokerName)
    return r
  }

  /**
   * One attempt of an ordered send on the queue chooseOrdered gives, never hedged (a copy elsewhere
   * would break the key's order). 'wait': nothing may take the key now; it paused, try again.
   */
  private async attemptOrdered(
    orderKey: string,
    st: SendState,
    remaining: number
  ): Promise<(Attempt & { reason: string }) | 'wait'> {
    const home = this.orderHomes.of(orderKey, this.room, this.routes.brokers)
    const choice = home
      ? chooseOrdered({
          key: orderKey,
          home,
          room: this.room,
          policy: this.opts.orderPolicy,
          brokers: this.routes.brokers,
          isolated: this.faults.sinceMap(),
          tried: st.tried,
          cursor: this.brokerCursor,
          random: this.random(),
          selection: this.opts.policy
        })
      : { wait: 'no-route' }
    if ('wait' in choice) {
      st.lastError = choice.wait
      // The home broker may be back at the next probe: look again then, and retry it afresh.
      await pause(Math.min(this.opts.probeIntervalMs, Math.max(1, remaining)), this.stopped.signal)
      st.tried.clear()
      if (!home) void this.routes.refresh('no-broker')
      return 'wait'
    }
    const r = await this.attempt(choice.broker, st, choice.queueId)
    return { ...r, reason: choice.reason }
  }

  /** One request to one broker; its failure is logged and acted on here, whoever awaits it. */
  private async attempt(
    broker: BrokerCandidate,
    st: SendState,
    queueId?: number
  ): Promise<Attempt> {
    const q =
      queueId !== undefined
        ? { queueId, cursor: this.queueCursors.get(broker.brokerName) ?? 0 }
        : chooseQueue(broker.writeQueues, this.queueCursors.get(broker.brokerName) ?? 0)
    this.queueCursors.set(broker.brokerName, q.cursor)
    const index = ++st.attempts
    const at = this.clock.now()
    st.last = broker
    st.lastAttemptAt = at
    try {
      const res = await this.remoting.sendMessageV2(
        broker.masterAddr!,
        {
          brokerName: broker.brokerName,
          producerGroup: this.opts.group,
          topic: this.opts.topic,
          queueId: q.queueId,
          body: st.input.body,
          uniqKey: st.key,
          keys: st.input.keys ?? [st.key],
          ...(st.input.tags !== undefined ? { tags: st.input.tags } : {}),
          ...(st.input.transaction ? this.halfMessage() : {}),
          ...(st.input.deliverAt !== undefined
            ? // The broker parses a whole number (Long.parseLong): a fraction makes the message illegal.
              {
                properties: {
                  [MessageProperty.TIMER_DELIVER_MS]: String(Math.round(st.input.deliverAt))
                }
              }
            : {})
        },
        { timeoutMs: Math.max(1, Math.min(this.requestTimeout.timeoutMs(at), st.deadline - at)) }
      )
      const endedAt = this.clock.now()
      this.latency.record(endedAt, endedAt - at)
      return {
        ok: true,
        broker,
        index,
        at,
        endedAt,
        queueId: q.queueId,
        queueOffset: res.queueOffset,
        offsetMsgId: res.offsetMsgId,
        sendStatus: res.status
      }
    } catch (e) {
      const endedAt = this.clock.now()
      const cls = classifyFailure(e)
      st.lastError = `${cls.reason}: ${(e as Error)?.message ?? String(e)}`
      if (st.record)
        this.deps.ledger.event('send-attempt-failed', this.id, this.room, {
          key: st.key,
          brokerName: broker.brokerName,
          brokerRoom: broker.room,
          reason: cls.reason,
          startMs: at,
          endMs: endedAt
        })
      st.firstFail ??= { at, broker, reason: cls.reason }
      if (cls.reason === 'timeout' || cls.reason === 'reset') st.unansweredAt = endedAt
      if (cls.isolate) this.isolation.isolate(broker, cls.reason)
      return { ok: false, broker, index, at, endedAt, retry: cls.retry }
    }
  }

  /**
   * Stops the producer. Producers send no UNREGISTER, so `graceful` and `crash` differ only in
   * name: the timers end and it leaves its core, whose connections its worker's other producers
   * share (a core of its own closes with it).
   */
  async stop(mode: 'graceful' | 'crash' = 'graceful'): Promise<void> {
    if (!this.running) return
    this.running = false
    this.stopped.abort()
    for (const t of this.timers) clearInterval(t)
    this.timers = []
    this.detach()
    this.deps.ledger.event('counters', this.id, this.room, { ...this.counters })
    this.deps.ledger.event('client-stopped', this.id, this.room, { role: 'producer', mode })
  }

  /** Leaves the core (closing it when it is this producer's own), its listeners with it. */
  private detach(): void {
    this.routes.off('namesrv', this.onNamesrv)
    this.routes.off('change', this.onRouteChange)
    this.remoting.off('connection-close', this.onConnectionClose)
    this.remoting.off('server-request', this.onServerRequest)
    this.core.leave(this.id)
    if (this.ownsCore) this.core.close()
  }

  /** What makes a send a transaction's half message (as TransactionMQProducer marks it). */
  private halfMessage(): { sysFlag: number; properties: Record<string, string> } {
    return {
      sysFlag: MessageSysFlag.TRANSACTION_PREPARED,
      properties: {
        [MessageProperty.TRANSACTION_PREPARED]: 'true',
        [MessageProperty.PRODUCER_GROUP]: this.opts.group
      }
    }
  }

  /**
   * The half message is stored: the local transaction runs (its outcome is the plan's decision)
   * and END_TRANSACTION tells the broker that stored it, oneway like the Java client. A plan
   * `viaCheck` sends nothing and leaves the answer to the broker's check-back.
   */
  private async endTransaction(st: SendState, r: Extract<Attempt, { ok: true }>): Promise<void> {
    const tx = st.input.transaction
    if (!tx) return
    this.localTransactions.ran(st.key, tx.decision, r.broker.brokerName)
    if (tx.viaCheck) {
      st.txEnd = 'check'
      return
    }
    try {
      await this.remoting.endTransaction(r.broker.masterAddr!, {
        brokerName: r.broker.brokerName,
        producerGroup: this.opts.group,
        topic: this.opts.topic,
        msgId: st.key,
        tranStateTableOffset: r.queueOffset,
        commitLogOffset: commitLogOffsetOf(r.offsetMsgId),
        end: tx.decision
      })
      st.txEnd = 'end'
    } catch (e) {
      // The half message stays at the broker until its check-back asks, and is answered.
      st.txEnd = 'lost'
      if (st.record)
        this.deps.ledger.event('transaction-end-lost', this.id, this.room, {
          key: st.key,
          brokerName: r.broker.brokerName,
          decision: tx.decision,
          reason: (e as Error)?.message ?? String(e)
        })
    }
  }

  /**
   * A broker's CHECK_TRANSACTION_STATE about a half message of this producer's group: answered
   * from the local transactions when this producer ran it, left unknown otherwise (a run gives each
   * transactional producer a group of its own, so the broker asks the one that ran it).
   */
  private readonly onServerRequest = (e: { address: string; command: DecodedCommand }): void => {
    if (e.command.code !== RequestCode.CHECK_TRANSACTION_STATE) return
    let check
    try {
      check = parseTransactionCheck(e.address, e.command)
    } catch (err) {
      this.deps.ledger.event('transaction-checked', this.id, this.room, {
        key: '',
        brokerName: null,
        answer: 'unknown',
        error: (err as Error).message
      })
      return
    }
    if (check.message.properties[MessageProperty.PRODUCER_GROUP] !== this.opts.group) return
    const decision = this.localTransactions.answer(check.msgId, check.brokerName)
    this.deps.ledger.event('transaction-checked', this.id, this.room, {
      key: check.msgId,
      brokerName: check.brokerName ?? null,
      answer: decision ?? 'unknown'
    })
    if (!decision) return
    this.remoting
      .endTransaction(check.brokerAddress, {
        ...(check.brokerName ? { brokerName: check.brokerName } : {}),
        producerGroup: this.opts.group,
        topic: check.topic,
        msgId: check.msgId,
        transactionId: check.transactionId,
        tranStateTableOffset: check.tranStateTableOffset,
        commitLogOffset: check.commitLogOffset,
        end: decision,
        fromTransactionCheck: true
      })
      .catch(() => undefined) // the broker asks again next round
  }

  private every(ms: number, fn: () => void): void {
    const t = setInterval(fn, ms)
    t.unref?.()
    this.timers.push(t)
  }

  private record(
    st: SendState,
    startedAt: number,
    a: { at: number | null; endedAt: number; broker: BrokerCandidate | undefined },
    r: {
      status: 'acked' | 'failed'
      queueId: number | null
      queueOffset: number | null
      error: string | null
    }
  ): void {
    const ns = this.routes.namesrv
    this.deps.ledger.send({
      key: st.key,
      clientId: this.id,
      clientRoom: this.room,
      namesrvId: ns?.id ?? null,
      namesrvRoom: ns?.room ?? null,
      brokerName: a.broker?.brokerName ?? null,
      brokerRoom: a.broker?.room ?? null,
      scheduledAt: st.input.scheduledAt ?? null,
      dueAt: st.input.deliverAt ?? null,
      orderKey: st.input.order?.key ?? null,
      orderSeq: st.input.order?.seq ?? null,
      txDecision: st.input.transaction?.decision ?? null,
      txEnd: st.txEnd ?? null,
      startedAt,
      attemptStartedAt: a.at,
      endedAt: a.endedAt,
      attempts: st.attempts,
      // Listed, not spread: a trailing spread grows the record per key on every send.
      status: r.status,
      queueId: r.queueId,
      queueOffset: r.queueOffset,
      error: r.error
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
}
