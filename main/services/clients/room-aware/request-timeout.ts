import type { HealthyLatency } from './healthy-latency'

/**
 * A producer's request timeout, following its recent healthy latency (issue 23, item 5).
 *
 * A fixed 400 ms timeout sits below the healthy p99 of a loaded host (353 ms was measured in CI),
 * so a slow but healthy broker is abandoned and the send fails over to another room for nothing.
 * The timeout is therefore `factor` × the p99 of the recent healthy answers (healthy-latency.ts),
 * never below the configured `floorMs` (what an idle host gets, and what a hung broker costs at
 * best) and never above `ceilingMs` (what a hung broker costs at worst).
 */
export interface RequestTimeoutOptions {
  floorMs: number
  ceilingMs: number
  /** Headroom over the recent p99. */
  factor: number
}

export const REQUEST_TIMEOUT_DEFAULTS = {
  factor: 1.5,
  /** The ceiling, as a multiple of the floor, when none is configured. */
  ceilingFactor: 4
} as const

/** The timeout for a recent healthy p99 (null: too few answers to know): pure, for the edges. */
export function timeoutFromP99(p99Ms: number | null, o: RequestTimeoutOptions): number {
  if (p99Ms === null) return o.floorMs
  return Math.round(Math.min(o.ceilingMs, Math.max(o.floorMs, o.factor * p99Ms)))
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

/** The timeout the recent healthy latency gives, moved in logged steps only. */
export class RequestTimeout {
  private current: number

  constructor(
    private readonly opts: RequestTimeoutOptions,
    private readonly latency: HealthyLatency,
    private readonly onChange: (c: RequestTimeoutChange) => void = () => {}
  ) {
    this.current = opts.floorMs
  }

  /** The timeout for a request started at `now`. */
  timeoutMs(now: number): number {
    const { p99Ms, samples } = this.latency.at(now)
    const next = timeoutFromP99(p99Ms, this.opts)
    if (timeoutChanged(this.current, next, this.opts.floorMs)) {
      const previousMs = this.current
      this.current = next
      this.onChange({ timeoutMs: next, previousMs, p99Ms, samples })
    }
    return this.current
  }
}
