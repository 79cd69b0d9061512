import type { TxEnd } from '../../../../common/scenario/transactions'
import type { LedgerEventData } from '../../../../common/scenario/events'
import type { BrokerCandidate } from './choose-broker'
import type { SendStatus } from '../../remoting/message-requests'

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
  /** Delayed message: epoch ms the broker's timer holds it until (TIMER_DELIVER_MS); absent = at once. */
  deliverAt?: number
  /**
   * Ordered message: its sharding key and its sequence number within the key. The key's messages
   * go one at a time, in call order, to the key's home queue (see choose-ordered.ts).
   */
  order?: { key: string; seq: number }
  /**
   * Transactional message: sent as a half message; once stored, the local transaction decides
   * `decision`, ended by END_TRANSACTION, or (`viaCheck`) left to the broker's check-back.
   */
  transaction?: TransactionPlan
}

/** What a transactional send's local transaction decides, and how the broker learns it. */
export interface TransactionPlan {
  decision: 'commit' | 'rollback'
  /** Send no END_TRANSACTION: the broker's CHECK_TRANSACTION_STATE gets the answer. */
  viaCheck: boolean
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

/** One send in progress: what its attempts (the first, retries, a hedge) share. */
export interface SendState {
  key: string
  input: SendInput
  record: boolean
  deadline: number
  tried: Set<string>
  attempts: number
  lastError: string
  last?: BrokerCandidate
  lastAttemptAt?: number
  firstFail?: { at: number; broker: BrokerCandidate; reason: string }
  /** When the last attempt that went out and got no answer (timeout, reset) ended: it may be stored yet. */
  unansweredAt?: number
  /** Transactional sends: how the broker learned the local transaction's outcome. */
  txEnd?: TxEnd
  /** Set once a hedge was sent. */
  hedge?: { from: BrokerCandidate; to: BrokerCandidate; delayMs: number }
}

export type Attempt =
  | {
      ok: true
      broker: BrokerCandidate
      index: number
      at: number
      endedAt: number
      queueId: number
      queueOffset: number
      /** The broker's id of the stored message (its commit-log offset inside). */
      offsetMsgId: string
      /** SEND_OK, or stored with a warning (SLAVE_NOT_AVAILABLE, FLUSH_SLAVE_TIMEOUT, FLUSH_DISK_TIMEOUT). */
      sendStatus: SendStatus
    }
  | {
      ok: false
      broker: BrokerCandidate
      index: number
      at: number
      endedAt: number
      retry: boolean
    }

/** The attempt's outcome if it settles within `ms`, else null (the attempt keeps running). */
export function raceDelay<T>(p: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    p,
    new Promise<null>((r) => {
      timer = setTimeout(() => r(null), ms)
    })
  ]).finally(() => clearTimeout(timer))
}

/** What the caller of send() gets: the winning attempt's broker and queue, or the failure. */
export function outcome(
  st: SendState,
  won: Extract<Attempt, { ok: true }> | null,
  startedAt: number,
  endedAt: number
): SendOutcome {
  // One literal per branch, not a shared part spread in: the spread grew the outcome per key.
  const latencyMs = endedAt - startedAt
  if (won) {
    return {
      key: st.key,
      attempts: st.attempts,
      latencyMs,
      ok: true,
      brokerName: won.broker.brokerName,
      brokerRoom: won.broker.room,
      queueId: won.queueId,
      queueOffset: won.queueOffset
    }
  }
  return {
    key: st.key,
    attempts: st.attempts,
    latencyMs,
    ok: false,
    brokerName: st.last?.brokerName ?? null,
    brokerRoom: st.last?.room ?? null,
    queueId: null,
    queueOffset: null,
    error: st.lastError
  }
}

/** The broker-failover event of a send that failed on one broker and was acknowledged by another. */
export function failoverOf(
  st: SendState,
  won: Extract<Attempt, { ok: true }>
): LedgerEventData['broker-failover'] {
  const f = st.firstFail!
  return {
    from: f.broker.brokerName,
    fromRoom: f.broker.room,
    to: won.broker.brokerName,
    toRoom: won.broker.room,
    reason: f.reason,
    durationMs: won.endedAt - f.at,
    key: st.key
  }
}

/** The send-hedged event of a send whose first attempt was raced by a hedge. */
export function hedgeOf(st: SendState, won: boolean): LedgerEventData['send-hedged'] {
  const h = st.hedge!
  return {
    key: st.key,
    from: h.from.brokerName,
    fromRoom: h.from.room,
    to: h.to.brokerName,
    toRoom: h.to.room,
    delayMs: h.delayMs,
    won
  }
}
