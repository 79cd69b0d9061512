/**
 * Hedged sends: a broker that hangs (SIGSTOP, a stuck disk, a GC storm) keeps its socket open, so
 * only the request timeout notices it. A hedge sends the same message (same key) through another
 * room's broker once the first attempt has taken clearly longer than healthy sends do, and the
 * send completes with whichever answers first. The price: when both copies are stored the consumer
 * sees a duplicate, and a hedge that wins was served by another room.
 */
export interface HedgeOptions {
  /** Quantile of recent healthy attempt latency the delay is derived from. */
  quantile: number
  /** Delay = factor × that quantile, clamped to [minDelayMs, maxDelayMs]. */
  factor: number
  minDelayMs: number
  /** Default: half the request timeout (later than that, the timeout and a retry do the job). */
  maxDelayMs: number
  /** Healthy attempts remembered. */
  window: number
  /** No hedging until this many healthy attempts were seen (the delay would be a guess). */
  minSamples: number
  /** Hedges allowed per send, on average (a token bucket), so a slow cluster is not doubled... */
  budget: number
  /** ...beyond a burst of this many, enough for every send in flight when a broker hangs. */
  burst: number
}

export const HEDGE_DEFAULTS: Omit<HedgeOptions, 'maxDelayMs'> = {
  quantile: 0.99,
  factor: 1.5,
  minDelayMs: 10,
  window: 200,
  minSamples: 20,
  budget: 0.1,
  burst: 20
}

/** The hedge delay for a set of recent healthy latencies; null when there are too few. */
export function hedgeDelayMs(
  samples: readonly number[],
  o: Pick<HedgeOptions, 'quantile' | 'factor' | 'minDelayMs' | 'maxDelayMs' | 'minSamples'>
): number | null {
  if (samples.length < o.minSamples) return null
  const sorted = [...samples].sort((a, b) => a - b)
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(o.quantile * sorted.length)))
  const q = sorted[rank - 1]!
  return Math.min(o.maxDelayMs, Math.max(o.minDelayMs, o.factor * q))
}

/** A producer's hedging state: recent healthy latencies and the hedge budget. */
export class HedgePolicy {
  private readonly samples: number[] = []
  private next = 0
  private tokens: number

  constructor(readonly opts: HedgeOptions) {
    this.tokens = opts.burst
  }

  /** A first attempt that succeeded, and how long it took. */
  observe(latencyMs: number): void {
    if (this.samples.length < this.opts.window) this.samples.push(latencyMs)
    else this.samples[this.next] = latencyMs
    this.next = (this.next + 1) % this.opts.window
  }

  /** A send begins: it earns a share of a hedge. */
  earn(): void {
    this.tokens = Math.min(this.opts.burst, this.tokens + this.opts.budget)
  }

  /** How long to wait before hedging this send; null = do not hedge it. */
  delay(): number | null {
    return this.tokens < 1 ? null : hedgeDelayMs(this.samples, this.opts)
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
