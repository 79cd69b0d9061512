import { randomUUID } from 'node:crypto'
import { pause } from '../room-aware/ports'
import type { SendInput, SendOutcome } from '../room-aware/producer'
import type { ProxyCandidate } from './choose-proxy'
import { AttemptTimeout, reasonOf, withDeadline } from './deadline'
import type { GrpcClientDeps, ProxyClientPoolOptions } from './proxy-client-pool'
import { ProxyClientPool } from './proxy-client-pool'
import type {
  SdkCheckAnswer,
  SdkCheckedMessage,
  SdkHalfMessage,
  SdkMessage,
  SdkProducer,
  SdkReceipt
} from './sdk-port'
import type { TxDecision, TxEnd } from '../../../../common/scenario/transactions'
import type { TransactionPlan } from '../room-aware/send-attempt'
import { LocalTransactions } from '../room-aware/local-transactions'
import { RefusedMessageError } from './sdk-port'

export type { GrpcClientDeps } from './proxy-client-pool'

export interface GrpcProducerOptions extends ProxyClientPoolOptions {
  /** grpc lane: whole-send budget across proxies. */
  sendTimeoutMs?: number
  /** Answers the proxies' check-backs about half messages from the local transactions it ran. */
  transactional?: boolean
  /**
   * grpc lane: our per-attempt deadline. 1000 ms by default, the library's own minimum: a send
   * crosses the proxy and the broker, whose p99 on a loaded 2-core host reaches a few hundred ms.
   */
  requestTimeoutMs?: number
}

/** What a send's ledger row carries besides its outcome. */
interface SendFacts {
  scheduledAt: number | null
  dueAt: number | null
  orderKey: string | null
  orderSeq: number | null
  txDecision: TxDecision | null
  txEnd: TxEnd | null
}

const NO_FACTS: SendFacts = {
  scheduledAt: null,
  dueAt: null,
  orderKey: null,
  orderSeq: null,
  txDecision: null,
  txEnd: null
}

/** The transaction of a send that is not one (warm-up, probe) on a transactional producer's topic. */
const ROLLED_BACK: TransactionPlan = { decision: 'rollback', viaCheck: false }

/** What one successful attempt gave: the receipt, and a transaction's half message to end. */
interface Stored {
  receipt: SdkReceipt
  half?: SdkHalfMessage
}

/** Tag of fail-back probe messages; workload consumers filter on another tag and never see them. */
export const PROBE_TAG = 'drstudio-probe'

/**
 * Producer of the gRPC lanes on rocketmq-client-nodejs. The `grpc` lane applies room awareness at
 * the proxy: it sends through its room's zone-pinned proxy, moves to another room's proxy on the
 * first failed or late attempt (the library cannot re-point a client, so it keeps one started
 * client per proxy and the next one warm), and moves back once a probe through the own room's
 * proxy succeeds. The `baseline` lane is one library client on one endpoint with the library's
 * own retries and timeouts. Both record every send like the remoting producer.
 */
export class GrpcProducer extends ProxyClientPool<SdkProducer> {
  private readonly sendTimeoutMs: number
  private readonly requestTimeoutMs: number
  private readonly transactional: boolean
  /** Proxy id → when a send through it last completed (a slow proxy still answers, a hung one not). */
  private readonly lastOkAt = new Map<string, number>()
  private lastUsed: string | undefined
  private readonly transactions: LocalTransactions
  /** Message key → what its ledger row says beyond the outcome (schedule, due time, order), until written. */
  private readonly facts = new Map<string, SendFacts>()

  constructor(options: GrpcProducerOptions, deps: GrpcClientDeps) {
    const {
      sendTimeoutMs = 3000,
      requestTimeoutMs = 1000,
      transactional = false,
      ...base
    } = options
    super(
      'producer',
      {
        roomOrder: [],
        probeIntervalMs: 200,
        managementRefreshMs: 1000,
        managementTimeoutMs: 500,
        countersIntervalMs: 1000,
        ...base
      },
      deps
    )
    this.sendTimeoutMs = sendTimeoutMs
    this.requestTimeoutMs = requestTimeoutMs
    this.transactional = transactional
    this.transactions = deps.transactions ?? new LocalTransactions(() => this.clock.now())
  }

  /** Proxies this producer stopped using (the warm-up waits until there are none). */
  get faults(): ProxyClientPool<SdkProducer>['selector']['faults'] {
    return this.selector.faults
  }

  stats(): { sent: number; acked: number; failed: number; inflight: number } {
    const { sent, acked, failed, inflight } = this.counters
    return { sent, acked, failed, inflight }
  }

  async start(timeoutMs = 15_000): Promise<void> {
    await this.begin(timeoutMs, { warmNext: true })
  }

  async send(input: SendInput): Promise<SendOutcome> {
    const key = input.keys?.[0] ?? input.key ?? randomUUID()
    const record = input.record !== false
    const startedAt = this.clock.now()
    if (record) this.counters.sent++
    this.facts.set(key, {
      scheduledAt: record ? (input.scheduledAt ?? null) : null,
      dueAt: input.deliverAt ?? null,
      orderKey: input.order?.key ?? null,
      orderSeq: input.order?.seq ?? null,
      txDecision: input.transaction?.decision ?? null,
      txEnd: null
    })
    this.counters.inflight++
    const message = {
      topic: this.base.topic,
      body: typeof input.body === 'string' ? Buffer.from(input.body) : input.body,
      ...(input.tags !== undefined ? { tag: input.tags } : {}),
      keys: input.keys ?? [key],
      ...(input.deliverAt !== undefined
        ? { deliveryTimestamp: new Date(Math.round(input.deliverAt)) }
        : {}),
      // The key's group: the library hashes it to one queue of the route it has (its proxy's).
      ...(input.order ? { messageGroup: input.order.key } : {})
    }
    // A TRANSACTION topic takes half messages only: a transactional producer's other sends (the
    // warm-up's) are half messages rolled back at once, never delivered.
    const tx = input.transaction ?? (this.transactional ? ROLLED_BACK : undefined)
    try {
      const r =
        this.base.lane === 'baseline'
          ? await this.sendBaseline(key, message, startedAt, record, tx)
          : await this.sendRoomAware(key, message, startedAt, record, tx)
      // No half message was acknowledged, so the local transaction never ran: a check-back about
      // one stored anyway (a timed-out attempt) is told to roll it back.
      if (!r.ok && tx) this.transactions.ran(key, 'rollback', null)
      return r
    } finally {
      this.counters.inflight--
      this.facts.delete(key)
    }
  }

  async stop(mode: 'graceful' | 'crash' = 'graceful'): Promise<void> {
    await this.end(mode)
  }

  private async sendBaseline(
    key: string,
    message: SdkMessage,
    startedAt: number,
    record: boolean,
    tx: TransactionPlan | undefined
  ): Promise<SendOutcome> {
    const proxy = this.baselineProxy
    try {
      if (!proxy) throw new Error(`${this.id} is not started`)
      const pooled = this.client(proxy)
      await pooled.ready
      const stored = await put(pooled.sdk, message, tx)
      await this.endTransaction(key, tx, stored, record)
      return this.done(key, startedAt, startedAt, 1, stored.receipt, proxy, null, record)
    } catch (e) {
      return this.failed(key, startedAt, startedAt, 1, reasonOf(e), proxy, record)
    }
  }

  private async sendRoomAware(
    key: string,
    message: SdkMessage,
    startedAt: number,
    record: boolean,
    tx: TransactionPlan | undefined
  ): Promise<SendOutcome> {
    const deadline = startedAt + this.sendTimeoutMs
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
        const stored = await withDeadline(
          pooled.ready.then(() => put(pooled.sdk, message, tx)),
          Math.min(this.requestTimeoutMs, left)
        )
        this.lastOkAt.set(proxy.id, this.clock.now())
        await this.endTransaction(key, tx, stored, record)
        return this.done(
          key,
          startedAt,
          attemptStartedAt,
          attempts,
          stored.receipt,
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
        // Any proxy would refuse this message (e.g. a type its topic does not take): the send
        // fails here, and the client stays where it is rather than leave a healthy proxy.
        if (e instanceof RefusedMessageError) break
        // A late answer while other sends through the same proxy completed means a busy proxy,
        // not a dead one: retry without moving the client across rooms, through the proxy the
        // client uses now (it may have gone back to its own room's meanwhile).
        if (
          (e instanceof AttemptTimeout || lastError === 'cancelled') &&
          (this.lastOkAt.get(proxy.id) ?? -Infinity) > attemptStartedAt
        ) {
          proxy = this.selector.current ?? proxy
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

  /**
   * The half message is stored: the local transaction runs (its outcome is the plan's decision)
   * and the proxy is told, unless the plan leaves the answer to the proxy's check-back. The
   * acknowledged copy is remembered by its message id (each attempt sends a new one), so a
   * check-back about a copy a timed-out attempt left is told to roll back.
   */
  private async endTransaction(
    key: string,
    tx: TransactionPlan | undefined,
    stored: Stored,
    record: boolean
  ): Promise<void> {
    const facts = this.facts.get(key)
    if (!tx || !stored.half || !facts) return
    this.transactions.ran(key, tx.decision, stored.receipt.messageId)
    if (tx.viaCheck) {
      facts.txEnd = 'check'
      return
    }
    try {
      await withDeadline(stored.half.end(tx.decision), this.requestTimeoutMs)
      facts.txEnd = 'end'
    } catch (e) {
      // The half message stays until the proxy's check-back asks, and is answered.
      facts.txEnd = 'lost'
      if (record) {
        this.deps.ledger.event('transaction-end-lost', this.id, this.room, {
          key,
          brokerName: stored.receipt.brokerName ?? 'unknown',
          decision: tx.decision,
          reason: reasonOf(e)
        })
      }
    }
  }

  /** A proxy's check-back about a half message: answered from the local transactions. */
  private check(m: SdkCheckedMessage, proxy: ProxyCandidate): SdkCheckAnswer {
    const key = m.keys[0] ?? m.messageId
    const answer = this.transactions.answer(key, m.messageId) ?? 'unknown'
    this.deps.ledger.event('transaction-checked', this.id, this.room, {
      key,
      // The check-back does not say which broker asks; the report counts it for the key.
      brokerName: null,
      proxy: proxy.id,
      messageId: m.messageId,
      answer
    })
    return answer
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
        ...(this.facts.get(key) ?? NO_FACTS),
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
        ...(this.facts.get(key) ?? NO_FACTS),
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

  protected createSdk(proxy: ProxyCandidate): SdkProducer {
    // Library defaults on purpose for the baseline: the official client as users configure it.
    const checker = this.transactional
      ? { checker: (m: SdkCheckedMessage) => this.check(m, proxy) }
      : {}
    if (this.base.lane === 'baseline') {
      return this.deps.sdk.producer({
        endpoints: proxy.address,
        topic: this.base.topic,
        ...checker
      })
    }
    return this.deps.sdk.producer({
      endpoints: proxy.address,
      topic: this.base.topic,
      ...checker,
      // Longer than our own deadline, so the proxy does not cancel a call we still wait for.
      requestTimeoutMs: Math.max(1000, this.requestTimeoutMs + 1000),
      // One attempt per call: retrying (on another proxy) is the lane's decision.
      maxAttempts: 1
    })
  }

  /** Sends an unrecorded probe through each isolated proxy; success lifts the isolation. */
  protected async probe(): Promise<void> {
    for (const proxy of this.selector.dueForProbe(this.base.probeIntervalMs)) {
      try {
        const pooled = this.client(proxy)
        const probe = { topic: this.base.topic, body: Buffer.from('probe'), tag: PROBE_TAG }
        // On a transactional producer's topic a probe is a half message, rolled back at once.
        const tx = this.transactional ? ROLLED_BACK : undefined
        const stored = await withDeadline(
          pooled.ready.then(() => put(pooled.sdk, probe, tx)),
          this.requestTimeoutMs
        )
        void stored.half?.end('rollback').catch(() => undefined)
        if (this.running) this.selector.recover(proxy)
      } catch {
        // still failing; probed again next interval
      }
    }
  }
}

/** One attempt's request: a plain send, or a transaction's half message. */
function put(
  sdk: SdkProducer,
  message: SdkMessage,
  tx: TransactionPlan | undefined
): Promise<Stored> {
  return tx
    ? sdk.sendHalf(message).then((half) => ({ receipt: half.receipt, half }))
    : sdk.send(message).then((receipt) => ({ receipt }))
}
