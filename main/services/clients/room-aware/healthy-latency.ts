import { percentile } from '../../../../common/scenario/metrics'

/**
 * A producer's recent healthy latency: how long its successful attempts took over the last
 * `windowMs`. Both answers to "is this attempt slow?" read it: the request timeout (when to give up
 * on a broker, request-timeout.ts) and the hedge delay (when to race a copy through another room,
 * hedge.ts). Failed attempts are not samples: a hung broker must not stretch what reveals it.
 */
export interface HealthyLatencyOptions {
  /** How far back answers count. */
  windowMs: number
  /** Fewer answers than this in the window: unknown (p99 null). */
  minSamples: number
  /** How often the p99 is recomputed from the window (it sorts the window). */
  recomputeMs: number
}

export const HEALTHY_LATENCY_DEFAULTS: HealthyLatencyOptions = {
  windowMs: 30_000,
  minSamples: 20,
  recomputeMs: 1000
}

export interface LatencySummary {
  /** The p99 of the window (interpolated, as reports compute it); null with too few answers. */
  p99Ms: number | null
  samples: number
}

/** The p99 of a window of answers, or null with fewer than `minSamples`: pure, for the edges. */
export function summarizeLatencies(
  latenciesMs: readonly number[],
  minSamples: number
): LatencySummary {
  const samples = latenciesMs.length
  return { p99Ms: samples < minSamples ? null : percentile(latenciesMs, 99), samples }
}

export class HealthyLatency {
  private readonly samples: { at: number; ms: number }[] = []
  private summary: LatencySummary = { p99Ms: null, samples: 0 }
  private computedAt = -Infinity

  constructor(private readonly opts: HealthyLatencyOptions = HEALTHY_LATENCY_DEFAULTS) {}

  /** A successful attempt that took `ms`, answered at `now`. */
  record(now: number, ms: number): void {
    this.samples.push({ at: now, ms })
  }

  /** The window's p99 at `now`, recomputed at most once per `recomputeMs`. */
  at(now: number): LatencySummary {
    if (now - this.computedAt < this.opts.recomputeMs) return this.summary
    this.computedAt = now
    const from = now - this.opts.windowMs
    let drop = 0
    while (drop < this.samples.length && this.samples[drop]!.at < from) drop++
    if (drop > 0) this.samples.splice(0, drop)
    this.summary = summarizeLatencies(
      this.samples.map((s) => s.ms),
      this.opts.minSamples
    )
    return this.summary
  }
}
