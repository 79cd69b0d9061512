import type { TxDecision } from '../../../../common/scenario/transactions'

/**
 * How long a producer remembers a local transaction: past the point where a broker stops asking
 * (RocketMQ checks a half message at most transactionCheckMax = 15 times, every
 * transactionCheckInterval = 30 s by default in 5.x and 60 s in 4.x, after transactionTimeOut =
 * 6 s: at most about 15 min), so memory follows the check-back window, not the run's length.
 */
export const LOCAL_TRANSACTION_RETENTION_MS = 20 * 60_000

interface LocalTransaction {
  decision: TxDecision
  /**
   * Which stored copy of the half message was acknowledged: its broker (remoting), or another id
   * of that copy (the gRPC lanes: the attempt's message id); null when none was acknowledged.
   */
  storedAs: string | null
  at: number
}

/**
 * A producer's record of the local transactions it ran, by message key, as an application's own
 * database keeps them; the broker's check-backs are answered from here.
 */
export class LocalTransactions {
  private readonly byKey = new Map<string, LocalTransaction>()
  private prunedAt = 0

  constructor(
    private readonly now: () => number,
    private readonly retentionMs = LOCAL_TRANSACTION_RETENTION_MS,
    /** Told of every transaction `ran` records (not of those `learn` records): to share them. */
    private readonly onRan?: (key: string, decision: TxDecision, storedAs: string | null) => void
  ) {}

  /**
   * The local transaction of `key` decided `decision` after the copy `storedAs` of its half
   * message was acknowledged.
   * A send that failed ran none: record it as a rollback with no broker, so a half message stored
   * anyway (by a timed-out attempt) is told to roll back.
   */
  ran(key: string, decision: TxDecision, storedAs: string | null): void {
    this.learn(key, decision, storedAs)
    this.onRan?.(key, decision, storedAs)
  }

  /** Records a transaction another process ran (a shared store's copy), without telling onRan. */
  learn(key: string, decision: TxDecision, storedAs: string | null): void {
    const at = this.now()
    // Re-insert so the map stays in time order for pruning.
    this.byKey.delete(key)
    this.byKey.set(key, { decision, storedAs, at })
    if (at - this.prunedAt >= this.retentionMs / 10) this.prune(at)
  }

  /**
   * The answer to a check-back about the copy `storedAs` of `key`: the decision when that is the
   * acknowledged half message; rollback for another copy (a timed-out attempt stored a second half
   * message, which must not commit the same transaction twice); undefined when this producer never
   * ran it (the broker asks again).
   */
  answer(key: string, storedAs: string | null | undefined): TxDecision | undefined {
    const t = this.byKey.get(key)
    if (!t) return undefined
    if (t.storedAs !== null && storedAs && storedAs !== t.storedAs) return 'rollback'
    return t.decision
  }

  get size(): number {
    return this.byKey.size
  }

  private prune(now: number): void {
    this.prunedAt = now
    for (const [key, t] of this.byKey) {
      if (now - t.at < this.retentionMs) break
      this.byKey.delete(key)
    }
  }
}
