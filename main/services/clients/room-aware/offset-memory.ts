import type { QueueRef } from './allocate-nearby'
import { queueKey } from './allocate-nearby'
import type { RemotingPort } from './ports'

/**
 * Where a consumer resumes a queue it (re)gains. The broker's committed offset is the group's
 * shared truth, but a broker killed with SIGKILL forgets up to its last flush of consumer offsets
 * (flushConsumerOffsetInterval, 5 s by default), and a commit sent when the queue was lost may land
 * after the new owner read it. What this consumer itself consumed is never unconsumed, so it never
 * starts below that, unless the queue ends before it (the store was reset or truncated: then the
 * broker's offset is all there is).
 */
export function resumeOffset(input: {
  /** The broker's committed offset; undefined = never committed (a fresh group starts at 0). */
  committed: number | undefined
  /** The offset this consumer had consumed up to when it last held the queue. */
  remembered: number | undefined
  /** The queue's max offset, asked only when `remembered` is ahead of the broker. */
  maxOffset?: number | undefined
}): number {
  const base = input.committed ?? 0
  const r = input.remembered
  if (r === undefined || r <= base) return base
  if (input.maxOffset !== undefined && r > input.maxOffset) return base
  return r
}

/**
 * Whether a queue gained in a rebalance may still be consumed by its previous owner: then the new
 * owner waits a moment for that owner's last commit before reading the offset. Queues of an
 * orphaned room (its consumers are gone) are taken at once: nobody else will commit them.
 */
export function mayBeHandoff(queueRoom: string | null, orphanRooms: readonly string[]): boolean {
  return queueRoom === null || !orphanRooms.includes(queueRoom)
}

/** The part of an owned queue the offset book reads and updates. */
export interface QueueOffsetState {
  ref: QueueRef
  /** Next offset to pull; undefined until read from the broker. */
  offset: number | undefined
  /** What the broker has (as far as we know). */
  committed: number | undefined
  /** The broker address it was last pulled from. */
  addr: string | undefined
}

export interface QueueOffsetsOptions {
  group: string
  topic: string
  requestTimeoutMs: number
  /** See ConsumerOptions.keepOffsets. */
  keep: boolean
  /** See ConsumerOptions.startOffsets: nothing below these is this run's. */
  startOffsets?: Readonly<Record<string, number>>
}

/**
 * A consumer's offsets: read when a queue is gained, committed periodically, when a queue is lost
 * and at a graceful stop, and (with `keep`) remembered after a queue is lost.
 */
export class QueueOffsets {
  /** `brokerName#queueId` → offset consumed up to when the queue was last held. */
  private readonly consumedUpTo = new Map<string, number>()

  constructor(
    private readonly remoting: Pick<
      RemotingPort,
      'queryConsumerOffset' | 'getMaxOffset' | 'updateConsumerOffset'
    >,
    private readonly opts: QueueOffsetsOptions,
    /** The broker's master address in the current route, if it is there. */
    private readonly addressOf: (brokerName: string) => string | undefined,
    private readonly now: () => number = Date.now,
    /** How old a prepared offset may be and still be used. */
    private readonly preparedMaxAgeMs = 2000
  ) {}

  /** Committed offsets read ahead of need (prepare), with when they were read. */
  private readonly prepared = new Map<string, { committed: number | undefined; at: number }>()

  /** Reads the committed offsets of queues this consumer may have to take over (resumeAhead). */
  async prepare(queues: readonly QueueRef[]): Promise<void> {
    const timeoutMs = this.opts.requestTimeoutMs
    await Promise.allSettled(
      queues.map(async (ref) => {
        const addr = this.addressOf(ref.brokerName)
        if (!addr) return
        const committed = await this.remoting.queryConsumerOffset(addr, this.base({ ref }), {
          timeoutMs
        })
        this.prepared.set(queueKey(ref), { committed, at: this.now() })
      })
    )
  }

  /**
   * Starts a gained queue at the committed offset prepare() read, when recent and not below what
   * this consumer itself consumed of it; false: resume() must ask the broker. The caller checks
   * the broker's current offset (committedNow) alongside its first pull.
   */
  resumeAhead(q: QueueOffsetState): boolean {
    const k = queueKey(q.ref)
    const ready = this.prepared.get(k)
    this.prepared.delete(k)
    if (!ready || this.now() - ready.at > this.preparedMaxAgeMs) return false
    const remembered = this.opts.keep ? this.consumedUpTo.get(k) : undefined
    if (remembered !== undefined && remembered > (ready.committed ?? 0)) return false
    q.offset = Math.max(ready.committed ?? 0, this.opts.startOffsets?.[k] ?? 0)
    q.committed = ready.committed ?? 0
    return true
  }

  /** The broker's committed offset now. */
  committedNow(q: QueueOffsetState, addr: string): Promise<number | undefined> {
    return this.remoting.queryConsumerOffset(addr, this.base(q), {
      timeoutMs: this.opts.requestTimeoutMs
    })
  }

  /** The queue left this consumer: remember how far it got and commit that (not awaited). */
  lost(q: QueueOffsetState): Promise<void> {
    const k = queueKey(q.ref)
    if (this.opts.keep && q.offset !== undefined) {
      this.consumedUpTo.set(k, Math.max(q.offset, this.consumedUpTo.get(k) ?? 0))
    }
    return this.commit(q)
  }

  /**
   * The queue's lock lapsed: another consumer may read on from the broker's offset meanwhile, so
   * ours is only remembered (as at a loss, without the commit) and read again once locked.
   */
  setAside(q: QueueOffsetState): void {
    const k = queueKey(q.ref)
    if (this.opts.keep && q.offset !== undefined) {
      this.consumedUpTo.set(k, Math.max(q.offset, this.consumedUpTo.get(k) ?? 0))
    }
    q.offset = undefined
    q.committed = undefined
  }

  /**
   * The offset a gained queue starts at: the broker's (never committed: each run uses a fresh
   * group, so the beginning of the queue), or further if this consumer had consumed further.
   */
  async resume(q: QueueOffsetState, addr: string): Promise<void> {
    this.prepared.delete(queueKey(q.ref))
    const timeoutMs = this.opts.requestTimeoutMs
    const base = this.base(q)
    const committed = await this.remoting.queryConsumerOffset(addr, base, { timeoutMs })
    const remembered = this.opts.keep ? this.consumedUpTo.get(queueKey(q.ref)) : undefined
    const ahead = remembered !== undefined && remembered > (committed ?? 0)
    const maxOffset = ahead
      ? await this.remoting.getMaxOffset(addr, base, { timeoutMs }).catch(() => undefined)
      : undefined
    // Each run uses a fresh group, so nothing before where the run began is ours (a broker answers
    // 0 for a new group on a young queue of someone else's topic).
    const floor = this.opts.startOffsets?.[queueKey(q.ref)] ?? 0
    q.offset = Math.max(resumeOffset({ committed, remembered, maxOffset }), floor)
    // The broker's figure, so a broker that forgot the offset gets ours at the next commit.
    q.committed = committed ?? 0
  }

  /** Commits the queue's offset if it moved; with `keep`, to the broker it came from if need be. */
  async commit(q: QueueOffsetState): Promise<void> {
    const offset = q.offset
    if (offset === undefined || offset === q.committed) return
    const addr = this.addressOf(q.ref.brokerName) ?? (this.opts.keep ? q.addr : undefined)
    if (!addr) return
    try {
      await this.remoting.updateConsumerOffset(
        addr,
        { ...this.base(q), commitOffset: offset },
        { timeoutMs: this.opts.requestTimeoutMs }
      )
      if (q.committed === undefined || offset > q.committed) q.committed = offset
    } catch {
      // retried at the next interval; the pull also piggybacks the offset
    }
  }

  private base(q: Pick<QueueOffsetState, 'ref'>) {
    return {
      brokerName: q.ref.brokerName,
      consumerGroup: this.opts.group,
      topic: this.opts.topic,
      queueId: q.ref.queueId
    }
  }
}
