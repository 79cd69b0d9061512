/**
 * Pure measurements over a run's history, shared by the scenario report, the benchmark and the
 * renderer's plots. Definitions follow OpenChaos (design/architecture.md §4).
 */

/** One operation of a client: a send attempt (producer) with when it started and ended. */
export interface Op {
  startMs: number
  endMs: number
  ok: boolean
}

/** Recovery after one timeline boundary (fault or repair) in which the client saw a failure. */
export interface RtoEpisode {
  /** The timeline step that opened the window. */
  boundaryMs: number
  /** Unavailability began: the first failed operation's start, but not before the boundary. */
  failedAtMs: number
  /** End of the first successful operation that ended after that failure; null = never. */
  recoveredAtMs: number | null
  rtoMs: number | null
}

/**
 * RTO per fault window: from the first failed (or timed-out) operation after a boundary to the
 * next success. A window is [boundary, next boundary); failures are attributed by their end, since
 * that is when the client learns of them. Windows without failures yield no episode.
 */
export function computeRto(ops: readonly Op[], boundaries: readonly number[]): RtoEpisode[] {
  const bounds = [...new Set(boundaries)].sort((a, b) => a - b)
  const ok = ops.filter((o) => o.ok).sort((a, b) => a.endMs - b.endMs)
  const failed = ops.filter((o) => !o.ok)
  const episodes: RtoEpisode[] = []
  bounds.forEach((b, i) => {
    const next = i + 1 < bounds.length ? bounds[i + 1]! : Infinity
    let first: Op | undefined
    let firstAt = Infinity
    for (const f of failed) {
      if (f.endMs < b || f.endMs >= next) continue
      const at = Math.max(f.startMs, b)
      if (at < firstAt || (at === firstAt && first !== undefined && f.endMs < first.endMs)) {
        first = f
        firstAt = at
      }
    }
    if (!first) return
    const failEnd = first.endMs
    const rec = ok.find((o) => o.endMs >= failEnd)
    episodes.push({
      boundaryMs: b,
      failedAtMs: firstAt,
      recoveredAtMs: rec ? rec.endMs : null,
      rtoMs: rec ? rec.endMs - firstAt : null
    })
  })
  return episodes
}

/** Linear-interpolated percentile (p in 0..100); null for no data. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  if (sorted.length === 1) return sorted[0]!
  const rank = (Math.min(100, Math.max(0, p)) / 100) * (sorted.length - 1)
  const lo = Math.floor(rank)
  const hi = Math.ceil(rank)
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo)
}

export interface Summary {
  count: number
  min: number | null
  p50: number | null
  p99: number | null
  max: number | null
}

export function summarize(values: readonly number[]): Summary {
  return {
    count: values.length,
    min: values.length ? Math.min(...values) : null,
    p50: percentile(values, 50),
    p99: percentile(values, 99),
    max: values.length ? Math.max(...values) : null
  }
}

/** Median of finite values; null when none. */
export function median(values: readonly (number | null)[]): number | null {
  return percentile(
    values.filter((v): v is number => v !== null && Number.isFinite(v)),
    50
  )
}

export interface LossResult {
  acked: number
  consumedDistinct: number
  lost: number
  lostKeys: string[]
  deliveries: number
  duplicates: number
  /** Deliveries of keys no acknowledged send produced (failed sends that were stored anyway). */
  unexpected: number
}

/** Lost = acknowledged keys never consumed; duplicates = deliveries beyond the first per key. */
export function computeLoss(
  ackedKeys: Iterable<string>,
  deliveredKeys: Iterable<string>,
  maxListed = 20
): LossResult {
  const acked = new Set(ackedKeys)
  const seen = new Map<string, number>()
  let deliveries = 0
  for (const k of deliveredKeys) {
    deliveries++
    seen.set(k, (seen.get(k) ?? 0) + 1)
  }
  const lostKeys: string[] = []
  let lost = 0
  for (const k of acked) {
    if (!seen.has(k)) {
      lost++
      if (lostKeys.length < maxListed) lostKeys.push(k)
    }
  }
  let unexpected = 0
  for (const k of seen.keys()) if (!acked.has(k)) unexpected++
  return {
    acked: acked.size,
    consumedDistinct: seen.size,
    lost,
    lostKeys,
    deliveries,
    duplicates: deliveries - seen.size,
    unexpected
  }
}

/** Share of items served in the client's own room; null when there is nothing to judge. */
export function localShare(
  items: readonly { clientRoom: string; servedRoom: string | null; count?: number }[]
): number | null {
  let total = 0
  let local = 0
  for (const it of items) {
    const n = it.count ?? 1
    total += n
    if (it.servedRoom === it.clientRoom) local += n
  }
  return total === 0 ? null : local / total
}

/** Which side of the first fault an instant falls on. */
export function phaseOf(
  atMs: number,
  firstFaultAtMs: number | null
): 'before-fault' | 'after-fault' {
  return firstFaultAtMs === null || atMs < firstFaultAtMs ? 'before-fault' : 'after-fault'
}

/** A cumulative per-client counter snapshot, as clients write them periodically. */
export interface CounterSample {
  atMs: number
  clientId: string
  values: Record<string, number>
}

export interface RatePoint {
  atMs: number
  clientId: string
  /** Per-second rates of each counter over the interval ending at atMs. */
  rates: Record<string, number>
}

/** Turns cumulative counters into per-second rates for plots (send rate, failures over time). */
export function countersToRates(samples: readonly CounterSample[]): RatePoint[] {
  const byClient = new Map<string, CounterSample[]>()
  for (const s of samples) {
    const list = byClient.get(s.clientId) ?? []
    list.push(s)
    byClient.set(s.clientId, list)
  }
  const out: RatePoint[] = []
  for (const [clientId, list] of byClient) {
    list.sort((a, b) => a.atMs - b.atMs)
    for (let i = 1; i < list.length; i++) {
      const prev = list[i - 1]!
      const cur = list[i]!
      const dt = (cur.atMs - prev.atMs) / 1000
      if (dt <= 0) continue
      const rates: Record<string, number> = {}
      for (const [k, v] of Object.entries(cur.values))
        rates[k] = Math.max(0, v - (prev.values[k] ?? 0)) / dt
      out.push({ atMs: cur.atMs, clientId, rates })
    }
  }
  return out.sort((a, b) => a.atMs - b.atMs || a.clientId.localeCompare(b.clientId))
}
