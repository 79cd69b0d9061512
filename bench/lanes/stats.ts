/**
 * The figures of the lane benchmark as pure functions of ledger-shaped rows, so how a number is
 * taken is written once, tested, and the same for every lane. Unrecovered is ∞ everywhere it is
 * ranked; "no failure" is its own outcome, never an RTO of 0.
 */

/** A producer's recovery from one fault: a time, never recovered, or no failure at all. */
export type Recovery =
  { kind: 'rto'; ms: number } | { kind: 'unrecovered' } | { kind: 'no-failure' }

/** Nearest-rank percentile (p in 0..100) that ranks ∞ last; null for no values. */
export function rankPercentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.max(1, Math.ceil((Math.min(100, Math.max(0, p)) / 100) * sorted.length))
  return sorted[rank - 1]!
}

/** Median that keeps ∞ (an unrecovered run) in the ranking; nulls (no data) are left out. */
export function medianKeepingInfinity(values: readonly (number | null)[]): number | null {
  const xs = values.filter((v): v is number => v !== null && !Number.isNaN(v))
  if (xs.length === 0) return null
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = sorted.length / 2
  if (sorted.length % 2 === 1) return sorted[Math.floor(mid)]!
  const lo = sorted[mid - 1]!
  const hi = sorted[mid]!
  return lo === Infinity || hi === Infinity ? Infinity : (lo + hi) / 2
}

/**
 * RTO summary over producers (all runs pooled): percentiles over the producers that failed, with
 * unrecovered ones ranked as ∞; how many saw no failure is said beside it.
 */
export interface RtoSummary {
  producers: number
  noFailure: number
  unrecovered: number
  p50Ms: number | null
  p99Ms: number | null
}

export function summarizeRecoveries(rs: readonly Recovery[]): RtoSummary {
  const failed = rs.filter((r) => r.kind !== 'no-failure')
  const values = failed.map((r) => (r.kind === 'rto' ? r.ms : Infinity))
  return {
    producers: rs.length,
    noFailure: rs.length - failed.length,
    unrecovered: rs.filter((r) => r.kind === 'unrecovered').length,
    p50Ms: rankPercentile(values, 50),
    p99Ms: rankPercentile(values, 99)
  }
}

/** A send as the ledger has it (epoch ms). */
export interface SendRow {
  key: string
  clientId: string
  clientRoom: string
  brokerRoom: string | null
  scheduledAt: number | null
  startedAt: number
  endedAt: number
  status: 'acked' | 'failed'
}

/** A delivery as the ledger has it. */
export interface DeliveryRow {
  key: string
  clientId: string
  clientRoom: string
  brokerName: string
  brokerRoom: string | null
  queueId: number
  deliveredAt: number
}

/** Latency the application waited, from when the schedule wanted the send (coordinated-omission safe). */
export const waited = (s: SendRow): number => s.endedAt - (s.scheduledAt ?? s.startedAt)

/** Share of acknowledged sends stored in another room than the producer's; null without sends. */
export function crossRoomShare(sends: readonly SendRow[]): number | null {
  const acked = sends.filter((s) => s.status === 'acked' && s.brokerRoom !== null)
  if (acked.length === 0) return null
  return acked.filter((s) => s.brokerRoom !== s.clientRoom).length / acked.length
}

/** p99 and max of what the application waited for sends due in [from, to). */
export function windowLatency(
  sends: readonly SendRow[],
  from: number,
  to: number
): { sends: number; p99Ms: number | null; maxMs: number | null } {
  const xs = sends
    .filter((s) => {
      const due = s.scheduledAt ?? s.startedAt
      return due >= from && due < to
    })
    .map(waited)
  return {
    sends: xs.length,
    p99Ms: rankPercentile(xs, 99),
    maxMs: xs.length ? Math.max(...xs) : null
  }
}

/**
 * How long after the repair a producer's sends were served by its own room again: the first
 * acknowledged own-room send that was due after the repair. `stayed` when every acknowledged send
 * due in the fault window was own-room (it never left), ∞ when none came back before `end`.
 */
export function backHome(
  sends: readonly SendRow[],
  fault: number,
  repair: number,
  end: number
): number | 'stayed' {
  const due = (s: SendRow): number => s.scheduledAt ?? s.startedAt
  const inFault = sends.filter((s) => s.status === 'acked' && due(s) >= fault && due(s) < repair)
  if (inFault.every((s) => s.brokerRoom === s.clientRoom)) return 'stayed'
  const home = sends
    .filter(
      (s) =>
        s.status === 'acked' && s.brokerRoom === s.clientRoom && due(s) >= repair && due(s) < end
    )
    .sort((a, b) => a.endedAt - b.endedAt)[0]
  return home ? home.endedAt - repair : Infinity
}

/**
 * Consumer takeover after the last consumer of `room` died at `kill`, measured as a takeover: a
 * queue that room's consumers read before the kill, delivered afterwards to a consumer of another
 * room that was not already reading it in the TAKEOVER_LOOKBACK_MS before the kill. `firstMs` is the first such delivery, `allMs` when every
 * such queue had one (∞ if one had none before `until`). A lane whose other-room consumers already
 * read every orphaned queue (POP consumers read all queues) did not take anything over: it is
 * `always-shared`, with the share of its pre-kill deliveries that crossed rooms. Null when the room's
 * consumers read nothing before the kill.
 */
export type Takeover =
  | { kind: 'takeover'; firstMs: number; allMs: number; queues: number }
  | { kind: 'always-shared'; crossRoomShare: number | null }

/** Who read which queue is taken from the last seconds before the kill, not the run's start-up. */
export const TAKEOVER_LOOKBACK_MS = 2000

export function takeover(
  deliveries: readonly DeliveryRow[],
  room: string,
  t0: number,
  kill: number,
  until: number
): Takeover | null {
  const qk = (d: DeliveryRow): string => `${d.brokerName}/${d.queueId}`
  const from = Math.max(t0, kill - TAKEOVER_LOOKBACK_MS)
  const before = deliveries.filter((d) => d.deliveredAt >= from && d.deliveredAt < kill)
  const orphaned = new Set(before.filter((d) => d.clientRoom === room).map(qk))
  if (orphaned.size === 0) return null
  const reading = new Set(
    before.filter((d) => d.clientRoom !== room).map((d) => `${d.clientId}|${qk(d)}`)
  )
  const takenBy = (q: string): boolean => before.some((d) => d.clientRoom !== room && qk(d) === q)
  const fresh = [...orphaned].filter((q) => !takenBy(q))
  if (fresh.length === 0) {
    // A lane that does not say which room stored a message (a proxy lane) has no share to give.
    const known = before.filter((d) => d.brokerRoom !== null)
    const crossed = known.filter((d) => d.brokerRoom !== d.clientRoom)
    return {
      kind: 'always-shared',
      crossRoomShare: known.length ? crossed.length / known.length : null
    }
  }
  const firstOf = (q: string): number =>
    deliveries
      .filter(
        (d) =>
          qk(d) === q &&
          d.clientRoom !== room &&
          d.deliveredAt >= kill &&
          d.deliveredAt < until &&
          !reading.has(`${d.clientId}|${q}`)
      )
      .reduce((m, d) => Math.min(m, d.deliveredAt), Infinity)
  const firsts = fresh.map(firstOf)
  return {
    kind: 'takeover',
    firstMs: Math.min(...firsts) - kill,
    allMs: Math.max(...firsts) - kill,
    queues: fresh.length
  }
}

/** Duplicates: deliveries beyond the first per key; lost: acknowledged keys never delivered. */
export function lossAndDuplicates(
  sends: readonly SendRow[],
  deliveries: readonly DeliveryRow[]
): { lost: number; duplicates: number } {
  const seen = new Map<string, number>()
  for (const d of deliveries) seen.set(d.key, (seen.get(d.key) ?? 0) + 1)
  let duplicates = 0
  for (const n of seen.values()) duplicates += n - 1
  const lost = sends.filter((s) => s.status === 'acked' && !seen.has(s.key)).length
  return { lost, duplicates }
}

/**
 * The median with a 95 % percentile-bootstrap interval (resampling the values with replacement),
 * seeded so a table re-derived from the same JSON reads the same. ∞ (unrecovered) stays in the
 * ranking: an interval can be open-ended.
 */
export function medianInterval(
  values: readonly number[],
  resamples = 2000,
  seed = 23
): { median: number; lo: number; hi: number; n: number } | null {
  if (values.length === 0) return null
  let state = seed >>> 0
  // mulberry32: small, fast, and enough for resampling indices.
  const random = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let x = state
    x = Math.imul(x ^ (x >>> 15), x | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
  const medians: number[] = []
  for (let i = 0; i < resamples; i++) {
    const sample = values.map(() => values[Math.floor(random() * values.length)]!)
    medians.push(medianKeepingInfinity(sample)!)
  }
  medians.sort((a, b) => a - b)
  return {
    median: medianKeepingInfinity(values)!,
    lo: medians[Math.floor(0.025 * (resamples - 1))]!,
    hi: medians[Math.ceil(0.975 * (resamples - 1))]!,
    n: values.length
  }
}
