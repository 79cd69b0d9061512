import { percentile } from '../../../../common/scenario/metrics'

/**
 * A producer's request timeout, following its recent healthy latency (issue 23, item 5).
 *
 * A fixed 400 ms timeout sits below the healthy p99 of a loaded host (353 ms was measured in CI),
 * so a slow but healthy broker is abandoned and the send fails over to another room for nothing.
 * The timeout is therefore `factor` × the p99 of the answers of the last `windowMs`, never below
 * the configured `floorMs` (what an idle host gets, and what a hung broker costs at best) and
 * never above `ceilingMs` (what a hung broker costs at worst). Failed attempts are not samples: a
 * hung broker must not stretch the timeout that reveals it.
 */
export interface RequestTimeoutOptions {
  floorMs: number
  ceilingMs: number
  /** How far back answers count. */
  windowMs: number
  /** Headroom over the recent p99. */
  factor: number
  /** Fewer answers than this in the window: the floor. */
  minSamples: number
  /** How often the timeout is recomputed from the window (the p99 sorts it). */
  recomputeMs: number
}

export const REQUEST_TIMEOUT_DEFAULTS = {
  windowMs: 30_000,
  factor: 1.5,
  minSamples: 20,
  recomputeMs: 1000,
  /** The ceiling, as a multiple of the floor, when none is configured. */
  ceilingFactor: 4
} as const

/** The timeout for a window of healthy latencies: pure, so every edge is tested. */
export function timeoutFromLatencies(
  latenciesMs: readonly number[],
  o: RequestTimeoutOptions
): {
  timeoutMs: number
  p99Ms: number | null
} {
  const p99Ms = latenciesMs.length < o.minSamples ? null : percentile(latenciesMs, 99)
  if (p99Ms === null) return { timeoutMs: o.floorMs, p99Ms: null }
  const timeoutMs = Math.round(Math.min(o.ceilingMs, Math.max(o.floorMs, o.factor * p99Ms)))
  return { timeoutMs, p99Ms }
}

/** A change worth a ledger row: the timeout moved by a quarter or more (or back to the floor). */
export function timeoutChanged(before: number, after: number, floorMs: number): boolean {
  if (before === after) return false
  if (after === floorMs || before === floorMs) return true
  return Math.abs(after - before) >= before / 4
}

export interface RequestTimeoutChange {
  timeoutMs: number
  previousMs: number
  p99Ms: number | null
  samples: number
}

/** The window of answers and the timeout computed from it, recomputed at most once per `recomputeMs`. */
export class RequestTimeout {
  private readonly samples: { at: number; ms: number }[] = []
  private current: number
  private computedAt = -Infinity

  constructor(
    private readonly opts: RequestTimeoutOptions,
    private readonly onChange: (c: RequestTimeoutChange) => void = () => {}
  ) {
    this.current = opts.floorMs
  }

  /** A healthy answer that took `ms`, received at `now`. */
  record(now: number, ms: number): void {
    this.samples.push({ at: now, ms })
  }

  /** The timeout for a request started at `now`. */
  timeoutMs(now: number): number {
    if (now - this.computedAt < this.opts.recomputeMs) return this.current
    this.computedAt = now
    const from = now - this.opts.windowMs
    let drop = 0
    while (drop < this.samples.length && this.samples[drop]!.at < from) drop++
    if (drop > 0) this.samples.splice(0, drop)
    const next = timeoutFromLatencies(
      this.samples.map((s) => s.ms),
      this.opts
    )
    if (timeoutChanged(this.current, next.timeoutMs, this.opts.floorMs)) {
      const previousMs = this.current
      this.current = next.timeoutMs
      this.onChange({
        timeoutMs: next.timeoutMs,
        previousMs,
        p99Ms: next.p99Ms,
        samples: this.samples.length
      })
    }
    return this.current
  }
}
