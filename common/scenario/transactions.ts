import type { TransactionsLaneReport } from './schema'

/** What a transactional send's local transaction decided. */
export const TX_DECISIONS = ['commit', 'rollback'] as const
export type TxDecision = (typeof TX_DECISIONS)[number]

/**
 * How the broker learned a transaction's outcome: `end` END_TRANSACTION written; `check` left to
 * the check-back by the plan; `lost` END_TRANSACTION could not be written (the check-back decides);
 * `client-rollback` the client rolled the half message back itself without running the local
 * transaction (the stock Java client does when the half message's send status is not SEND_OK).
 */
export const TX_ENDS = ['end', 'check', 'lost', 'client-rollback'] as const
export type TxEnd = (typeof TX_ENDS)[number]

/** One transactional send as the ledger has it. */
export interface TransactionalMessage {
  key: string
  producerId: string
  status: 'acked' | 'failed'
  /** The half message's send status when it was stored with a warning (SLAVE_NOT_AVAILABLE…). */
  warning?: string | null
  decision: TxDecision
  end: TxEnd | null
  /** Check-backs about it a producer answered (commit or rollback) from the broker that stored it. */
  checksAnswered: number
  /**
   * Answered check-backs from another broker: a half message an earlier, timed-out attempt left
   * there (our lane answers those rollback; the stock client cannot tell and answers its decision).
   */
  checksElsewhere?: number
  deliveries: number
}

/** How many mismatched keys a report names. */
const NAMED_KEYS = 10

/**
 * The transactions checker: what the consumers saw against what each local transaction decided.
 * A message whose half message was acknowledged and whose local transaction committed must be
 * delivered; one that rolled back, was rolled back by its client, or whose send failed (its local
 * transaction never ran) must not. Anything else is a mismatch. Of the committed ones never
 * delivered, those whose END_TRANSACTION never reached the broker and that no check-back answered
 * are `unresolved`: as far as the producers know the broker still holds them as half messages.
 */
export function judgeTransactions(
  messages: readonly TransactionalMessage[],
  lane: string
): TransactionsLaneReport {
  let committed = 0
  let rolledBack = 0
  let clientRollbacks = 0
  let storedWithWarning = 0
  let endLost = 0
  let viaCheck = 0
  let checkedBack = 0
  let checkedAfterEnd = 0
  let checkedElsewhere = 0
  let committedUndelivered = 0
  let rolledBackDelivered = 0
  let unresolved = 0
  let duplicates = 0
  let acked = 0
  const mismatched: string[] = []
  for (const m of messages) {
    if (m.checksAnswered > 0) checkedBack++
    if (m.checksAnswered > 0 && m.end === 'end') checkedAfterEnd++
    if ((m.checksElsewhere ?? 0) > 0) checkedElsewhere++
    if (m.status === 'acked') acked++
    if (m.status === 'acked' && m.warning) storedWithWarning++
    const mustDeliver =
      m.status === 'acked' && m.decision === 'commit' && m.end !== 'client-rollback'
    if (m.status === 'acked') {
      if (m.end === 'client-rollback') clientRollbacks++
      else if (m.decision === 'commit') committed++
      else rolledBack++
      if (m.end === 'lost') endLost++
      if (m.end === 'check') viaCheck++
    }
    if (mustDeliver && m.deliveries === 0) {
      committedUndelivered++
      if ((m.end === 'lost' || m.end === 'check') && m.checksAnswered === 0) unresolved++
      mismatched.push(m.key)
    } else if (!mustDeliver && m.deliveries > 0) {
      rolledBackDelivered++
      mismatched.push(m.key)
    }
    if (mustDeliver) duplicates += Math.max(0, m.deliveries - 1)
  }
  return {
    lane,
    sent: messages.length,
    acked,
    committed,
    rolledBack,
    clientRollbacks,
    storedWithWarning,
    viaCheck,
    endLost,
    checkedBack,
    checkedAfterEnd,
    checkedElsewhere,
    mismatches: committedUndelivered + rolledBackDelivered,
    committedUndelivered,
    rolledBackDelivered,
    unresolved,
    duplicates,
    mismatchedKeys: mismatched.slice(0, NAMED_KEYS)
  }
}

/**
 * The workload's seeded rule for one slot: a hash of the message key (FNV-1a over its UTF-16
 * units, the Java worker computes the same) drawn twice, once for the decision and once for
 * whether its answer waits for the check-back. Seeded by the key, so a rerun decides alike.
 */
export function transactionPlanOf(
  key: string,
  commitShare: number,
  checkShare: number
): { decision: TxDecision; viaCheck: boolean } {
  return {
    decision: unitHash(`${key}#commit`) < commitShare ? 'commit' : 'rollback',
    viaCheck: unitHash(`${key}#check`) < checkShare
  }
}

/** FNV-1a (32 bit) of a string's UTF-16 code units, scaled to [0, 1). */
export function unitHash(s: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return (h >>> 0) / 0x100000000
}
