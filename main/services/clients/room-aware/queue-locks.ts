import type { LedgerPort } from '../../ledger/types'
import type { QueueRef } from './allocate-nearby'
import { queueKey } from './allocate-nearby'
import { classifyFailure } from './classify-error'
import type { Clock, RemotingPort } from './ports'

/** The part of an owned queue the lock book reads and updates. */
export interface LockableQueue {
  ref: QueueRef
  /** Epoch ms until which this client may consume the queue: its last lock plus `holdMs`. */
  lockedUntil: number
  /** Since when the broker has refused the lock (a stall in the making); undefined when not refused. */
  refusedSince?: number
  /** The broker address that granted the lock: another master (a switch) does not know of it. */
  lockAddr?: string
}

export interface QueueLocksOptions {
  id: string
  room: string
  group: string
  topic: string
  /** The client id the broker knows from heartbeats: locks are held by it. */
  clientId: string
  requestTimeoutMs: number
  /**
   * How long a granted lock lets this client consume without a renewal. Below the broker's own
   * expiry (60 s, `rebalance.lockMaxLiveTime`), like the Java client's 30 s, so a client that cannot
   * renew stops before the broker gives the queue to another.
   */
  holdMs: number
}

/**
 * Orderly consumption's queue locks (LOCK_BATCH_MQ / UNLOCK_BATCH_MQ): a queue is consumed only by
 * the client holding its lock at the broker, renewed periodically and given back when the queue
 * leaves, so its next owner starts after the last message of the previous one. Refusals are
 * logged once per episode (`queue-lock-wait`), and the wait when the lock finally comes.
 */
export class QueueLocks {
  constructor(
    private readonly remoting: Pick<RemotingPort, 'lockBatchMq' | 'unlockBatchMq'>,
    private readonly opts: QueueLocksOptions,
    private readonly deps: { clock: Clock; ledger: LedgerPort }
  ) {}

  /** Whether the lock is held now, and (given `addr`) held at that broker address. */
  holds(q: LockableQueue, addr?: string): boolean {
    return q.lockedUntil > this.deps.clock.now() && (addr === undefined || q.lockAddr === addr)
  }

  /**
   * Takes the queue's lock at `addr`; false when the broker refused it or did not answer. When it
   * is refused and clients have `departed` the group (gone from every broker's consumer list: a
   * crash, or a cut from every broker), their locks on the queue are given back for them first
   * (UNLOCK_BATCH_MQ in their name; the broker frees only a lock that client holds), instead of
   * the queue stalling until the broker expires them (60 s, apache/rocketmq#2485).
   */
  async acquire(
    q: LockableQueue,
    addr: string,
    departed: readonly string[] = []
  ): Promise<boolean> {
    const at = this.deps.clock.now()
    let granted: boolean
    let freedFrom: string[] = []
    try {
      granted = await this.lock(q, addr)
      if (!granted && departed.length > 0) {
        await Promise.allSettled(
          departed.map((cid) =>
            this.remoting.unlockBatchMq(addr, this.input([q], cid), {
              timeoutMs: this.opts.requestTimeoutMs
            })
          )
        )
        granted = await this.lock(q, addr)
        if (granted) freedFrom = [...departed]
      }
    } catch (e) {
      this.refused(q, at, classifyFailure(e).reason)
      return false
    }
    if (!granted) {
      this.refused(q, at, 'held by another client')
      return false
    }
    this.granted(q, this.deps.clock.now(), addr, freedFrom)
    return true
  }

  /** Forgets the locks of queues on a broker whose connection dropped: they are taken again first. */
  forget(queues: Iterable<LockableQueue>): void {
    for (const q of queues) q.lockedUntil = 0
  }

  private async lock(q: LockableQueue, addr: string): Promise<boolean> {
    const locked = await this.remoting.lockBatchMq(addr, this.input([q]), {
      timeoutMs: this.opts.requestTimeoutMs
    })
    return locked.some((m) => queueKey(m) === queueKey(q.ref))
  }

  /** Renews the locks of the queues (one request per broker); a refused renewal stops consumption. */
  async renew(queues: readonly LockableQueue[], addressOf: (b: string) => string | undefined) {
    const byAddr = new Map<string, LockableQueue[]>()
    for (const q of queues) {
      if (!this.holds(q)) continue
      const addr = addressOf(q.ref.brokerName)
      if (addr) byAddr.set(addr, [...(byAddr.get(addr) ?? []), q])
    }
    await Promise.allSettled(
      [...byAddr].map(async ([addr, qs]) => {
        const at = this.deps.clock.now()
        const locked = new Set(
          (
            await this.remoting.lockBatchMq(addr, this.input(qs), {
              timeoutMs: this.opts.requestTimeoutMs
            })
          ).map(queueKey)
        )
        for (const q of qs) {
          if (locked.has(queueKey(q.ref))) this.granted(q, at, addr)
          else {
            q.lockedUntil = 0
            this.refused(q, at, 'renewal refused: held by another client')
          }
        }
      })
    )
  }

  /** Gives the lock back (after the offset was committed), so the next owner need not wait it out. */
  async release(q: LockableQueue, addr: string | undefined): Promise<void> {
    const held = q.lockedUntil > 0
    q.lockedUntil = 0
    if (!held || !addr) return
    await this.remoting
      .unlockBatchMq(addr, this.input([q]), { timeoutMs: this.opts.requestTimeoutMs })
      .catch(() => undefined)
  }

  private granted(
    q: LockableQueue,
    at: number,
    addr: string,
    freedFrom: readonly string[] = []
  ): void {
    q.lockedUntil = at + this.opts.holdMs
    q.lockAddr = addr
    if (q.refusedSince === undefined && freedFrom.length === 0) return
    this.deps.ledger.event('queue-locked', this.opts.id, this.opts.room, {
      brokerName: q.ref.brokerName,
      brokerRoom: q.ref.room,
      queueId: q.ref.queueId,
      waitedMs: Math.round(at - (q.refusedSince ?? at)),
      ...(freedFrom.length ? { freedFrom: [...freedFrom] } : {})
    })
    q.refusedSince = undefined
  }

  private refused(q: LockableQueue, at: number, reason: string): void {
    if (q.refusedSince !== undefined) return
    q.refusedSince = at
    this.deps.ledger.event('queue-lock-wait', this.opts.id, this.opts.room, {
      brokerName: q.ref.brokerName,
      brokerRoom: q.ref.room,
      queueId: q.ref.queueId,
      reason
    })
  }

  private input(qs: readonly LockableQueue[], clientId = this.opts.clientId) {
    return {
      consumerGroup: this.opts.group,
      clientId,
      queues: qs.map((q) => ({
        topic: this.opts.topic,
        brokerName: q.ref.brokerName,
        queueId: q.ref.queueId
      }))
    }
  }
}
