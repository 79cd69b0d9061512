import type { HealthyLatency } from './healthy-latency'

/**
 * Hedged sends: a broker that hangs (SIGSTOP, a stuck disk, a GC storm) keeps its socket open, so
 * only the request timeout notices it. A hedge sends the same message (same key) through another
 * room's broker once the first attempt has taken clearly longer than healthy sends do, and the
 * send completes with whichever answers first. The price: when both copies are stored the consumer
 * sees a duplicate, and a hedge that wins was served by another room.
 */
export interface HedgeOptions {
  /** Delay = factor × the recent healthy p99 (healthy-latency.ts), clamped to [minDelayMs, maxDelayMs]. */
  factor: number
  minDelayMs: number
  /** Default: half the request timeout (later than that, the timeout and a retry do the job). */
  maxDelayMs: number
  /** Hedges allowed per send, on average (a token bucket), so a slow cluster is not doubled... */
  budget: number
  /** ...beyond a burst of this many, enough for every send in flight when a broker hangs. */
  burst: number
}

export const HEDGE_DEFAULTS: Omit<HedgeOptions, 'maxDelayMs'> = {
  factor: 1.5,
  minDelayMs: 10,
  budget: 0.1,
  burst: 20
}

/** The hedge delay for a recent healthy p99; null (do not hedge) while it is unknown. */
export function hedgeDelayMs(
  p99Ms: number | null,
  o: Pick<HedgeOptions, 'factor' | 'minDelayMs' | 'maxDelayMs'>
): number | null {
  if (p99Ms === null) return null
  return Math.min(o.maxDelayMs, Math.max(o.minDelayMs, o.factor * p99Ms))
}

/** A producer's hedging state: the hedge budget, and the healthy latency it reads the delay from. */
export class HedgePolicy {
  private tokens: number

  constructor(
    readonly opts: HedgeOptions,
    private readonly latency: HealthyLatency
  ) {
    this.tokens = opts.burst
  }

  /** A send begins: it earns a share of a hedge. */
  earn(): void {
    this.tokens = Math.min(this.opts.burst, this.tokens + this.opts.budget)
  }

  /** How long to wait before hedging a send started at `now`; null = do not hedge it. */
  delay(now: number): number | null {
    return this.tokens < 1 ? null : hedgeDelayMs(this.latency.at(now).p99Ms, this.opts)
  }

  /** Takes a hedge from the budget when the delay has passed; false = over budget, do not hedge. */
  take(): boolean {
    if (this.tokens < 1) return false
    this.tokens -= 1
    return true
  }
}

/** Settles with the first successful outcome, or the last failure if every one failed. */
export function firstOk<T extends { ok: boolean }>(attempts: readonly Promise<T>[]): Promise<T> {
  return new Promise((resolve) => {
    let left = attempts.length
    for (const a of attempts) {
      void a.then((r) => {
        left--
        if (r.ok || left === 0) resolve(r)
      })
    }
  })
}
