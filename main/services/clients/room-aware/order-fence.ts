/**
 * How long a key waits after one of its sends ended unanswered (a timeout, or a connection reset
 * after the request went out): longer than a broker keeps a send queued before it drops it
 * (`waitTimeMillsInSendQueue`: 200 ms by default, 1000 ms in the sandbox), so the unanswered
 * message is stored or dropped before the key's next one can be.
 */
export const ORDER_FENCE_MS = 1500

/**
 * Keys whose last send ended without an answer. A broker runs sends on several threads (5.x:
 * `sendMessageThreadPoolNums` = min(cores, 4)), so a request still queued there when its client
 * gave up can be stored after the key's next message, out of order, and `wait` promises order.
 * The next message of such a key waits until the fence passes (its send fails if its deadline
 * comes first).
 */
export class OrderFences {
  private readonly until = new Map<string, number>()

  constructor(private readonly fenceMs = ORDER_FENCE_MS) {}

  /** A send of `key` failed; `unansweredAt` is when its last unanswered attempt ended, if any. */
  failed(key: string, unansweredAt: number | undefined): void {
    if (unansweredAt !== undefined) this.until.set(key, unansweredAt + this.fenceMs)
  }

  /** How long `key` must still wait at `now` (0: go); a passed fence is forgotten. */
  waitFor(key: string, now: number): number {
    const t = this.until.get(key)
    if (t === undefined) return 0
    if (t <= now) {
      this.until.delete(key)
      return 0
    }
    return t - now
  }

  get size(): number {
    return this.until.size
  }
}
