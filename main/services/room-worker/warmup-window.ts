/**
 * When a producer counts as warmed up: over its last `size` unrecorded sends, every one was
 * acknowledged at the first attempt with no broker isolated, and at most a tenth were slower than
 * `fastMs`. A failed or retried send has to leave the window; one slow send (a GC pause, a busy
 * host) does not start the count again, as a streak of fast sends in a row would.
 */
export class WarmupWindow {
  private readonly recent: { clean: boolean; fast: boolean }[] = []

  constructor(
    private readonly size: number,
    private readonly fastMs: number
  ) {}

  /** Adds one send; returns whether the producer is warm now. */
  add(send: { ok: boolean; attempts: number; latencyMs: number; isolated: boolean }): boolean {
    this.recent.push({
      clean: send.ok && send.attempts === 1 && !send.isolated,
      fast: send.latencyMs < this.fastMs
    })
    if (this.recent.length > this.size) this.recent.shift()
    return this.warm()
  }

  warm(): boolean {
    if (this.recent.length < this.size) return false
    if (!this.recent.every((s) => s.clean)) return false
    const slow = this.recent.filter((s) => !s.fast).length
    return slow <= Math.floor(this.size / 10)
  }
}
