export interface TimerPort {
  setTimeout(fn: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

export const NODE_TIMERS: TimerPort = {
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms)
    t.unref?.()
    return t
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout)
}

/**
 * Runs `sweep` at once and then `intervalMs` after each one ends, until stop(): sweeps never
 * overlap, so a slow one delays the next. A sweep's failure is its own business (it is ignored).
 */
export class PeriodicSweep {
  private timer: unknown = null
  private running = false
  private sweeping: Promise<void> | null = null

  constructor(
    private readonly sweep: () => Promise<void>,
    private readonly intervalMs: number,
    private readonly timers: TimerPort = NODE_TIMERS
  ) {}

  start(): void {
    if (this.running) return
    this.running = true
    this.tick()
  }

  /** Stops the interval and waits for a sweep in progress. */
  async stop(): Promise<void> {
    this.running = false
    if (this.timer !== null) this.timers.clearTimeout(this.timer)
    this.timer = null
    await this.sweeping
  }

  private tick(): void {
    if (!this.running) return
    this.sweeping = this.sweep()
      .catch(() => undefined)
      .finally(() => {
        this.sweeping = null
        if (this.running) this.timer = this.timers.setTimeout(() => this.tick(), this.intervalMs)
      })
  }
}
