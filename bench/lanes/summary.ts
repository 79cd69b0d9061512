// Per case and lane, the runs of the lane benchmark reduced to the figures the README quotes:
// pooled over runs where a figure is a distribution (RTO, waits), medians where it is a count per
// run, totals for loss and duplicates. ∞ stays ∞ everywhere.
import type { LaneRun } from './figures'
import { episodeRtos } from './episodes'
import type { RtoSummary } from './stats'
import { medianInterval, medianKeepingInfinity, rankPercentile, summarizeRecoveries } from './stats'

/** A median with its 95 % bootstrap interval and sample size. */
export interface Interval {
  median: number
  lo: number
  hi: number
  n: number
}

/** The lane's failover episodes over every run (episodes.ts): the RTO it is ranked on, and its parts. */
export interface EpisodeSummary {
  episodes: number
  recovered: number
  unrecovered: number
  unaffected: number
  /** Episodes with a request to a hit broker in flight at the fault (the rest waited for their next send). */
  inFlight: number
  /** Fault → first acknowledgement elsewhere; unrecovered ranked ∞. */
  rto: Interval | null
  /** Medians of the parts, ms after the fault command (recovered episodes). */
  parts: {
    inPlaceMs: number | null
    detectMs: number | null
    retryMs: number | null
    ackMs: number | null
  }
  /** Share of recoveries that were the retry of a hit send (the rest: a send begun after). */
  retryShare: number | null
}

/** Takeover over runs: a time when the lane took queues over, or how much it already shared. */
export type TakeoverSummary =
  | { kind: 'takeover'; first: Interval | null; allMedianMs: number | null; runs: number }
  | { kind: 'always-shared'; crossRoomShare: number | null; runs: number }

export interface LaneSummary {
  lane: string
  runs: number
  rto: RtoSummary
  failedSendsMedian: number | null
  faultWindow: { sends: number; p99Ms: number | null; maxMs: number | null }
  /**
   * p99 of every send's schedule lag, due → started (pooled): how long the lane's process made its
   * sends wait for a CPU or its own event loop, the stand-in for event-loop delay and JVM pauses.
   */
  scheduleLagP99Ms: number | null
  /** Fault-window p99 minus the same lane's pre-fault p99 (pooled over runs). */
  p99DeltaMs: number | null
  episodes: EpisodeSummary
  /** Producers measured; of them, never left, and in runs whose repaired node was not back in time. */
  backHome: { producers: number; stayed: number; notServed: number; medianMs: number | null }
  healthyCrossRoomShare: number | null
  healthyWait: {
    sends: number
    p50Ms: number | null
    p99Ms: number | null
    lagP99Ms: number | null
    sendP99Ms: number | null
  }
  duplicates: number
  lost: number
  takeover: TakeoverSummary | null
  hedges: number
  hedgesWon: number
  /** Healthy case: share of the lane's messages stored by room 2's brokers (their queue offsets). */
  brokerCrossRoomShare?: number | null
}

const r1 = (x: number | null): number | null =>
  x === null || !Number.isFinite(x) ? x : Math.round(x * 10) / 10

export function summarizeLane(lane: string, runs: readonly LaneRun[]): LaneSummary {
  const waits = runs.flatMap((r) => r.faultWindowWaits)
  const homes = runs.flatMap((r) => r.backHome)
  const away = homes.filter((h): h is number => typeof h === 'number')
  const notServed = homes.filter((h) => h === 'not-served').length
  const healthyWaits = runs.flatMap((r) => r.healthyWaits)
  const acked = runs.reduce((s, r) => s + r.healthyAcked, 0)
  const rto = summarizeRecoveries(runs.flatMap((r) => r.recoveries))
  const windowP99 = rankPercentile(waits, 99)
  const preP99 = rankPercentile(
    runs.flatMap((r) => r.preFaultWaits ?? []),
    99
  )
  return {
    lane,
    runs: runs.length,
    rto: { ...rto, p50Ms: r1(rto.p50Ms), p99Ms: r1(rto.p99Ms) },
    failedSendsMedian: medianKeepingInfinity(runs.map((r) => r.failedSends)),
    faultWindow: {
      sends: waits.length,
      p99Ms: r1(rankPercentile(waits, 99)),
      maxMs: r1(waits.length ? Math.max(...waits) : null)
    },
    scheduleLagP99Ms: r1(
      rankPercentile(
        runs.flatMap((r) => r.lags ?? []),
        99
      )
    ),
    p99DeltaMs: windowP99 === null || preP99 === null ? null : r1(windowP99 - preP99),
    episodes: summarizeEpisodes(runs),
    backHome: {
      producers: homes.length,
      stayed: homes.filter((h) => h === 'stayed').length,
      notServed,
      medianMs: r1(medianKeepingInfinity(away))
    },
    healthyCrossRoomShare: acked ? runs.reduce((s, r) => s + r.healthyCrossRoom, 0) / acked : null,
    healthyWait: {
      sends: healthyWaits.length,
      p50Ms: r1(rankPercentile(healthyWaits, 50)),
      p99Ms: r1(rankPercentile(healthyWaits, 99)),
      lagP99Ms: r1(
        rankPercentile(
          runs.flatMap((r) => r.healthyLags),
          99
        )
      ),
      sendP99Ms: r1(
        rankPercentile(
          runs.flatMap((r) => r.healthySendTimes),
          99
        )
      )
    },
    duplicates: runs.reduce((s, r) => s + r.duplicates, 0),
    lost: runs.reduce((s, r) => s + r.lost, 0),
    takeover: summarizeTakeover(runs),
    hedges: runs.reduce((s, r) => s + r.hedges, 0),
    hedgesWon: runs.reduce((s, r) => s + r.hedgesWon, 0)
  }
}

const roundInterval = (i: Interval | null): Interval | null =>
  i && { median: r1(i.median)!, lo: r1(i.lo)!, hi: r1(i.hi)!, n: i.n }

function summarizeEpisodes(runs: readonly LaneRun[]): EpisodeSummary {
  const eps = runs.flatMap((r) => r.episodes ?? [])
  const rec = eps.filter((e) => e.outcome === 'recovered')
  const part = (k: 'inPlaceMs' | 'detectMs' | 'retryMs' | 'ackMs'): number | null =>
    r1(medianKeepingInfinity(rec.map((e) => e[k])))
  return {
    episodes: eps.length,
    recovered: rec.length,
    unrecovered: eps.filter((e) => e.outcome === 'unrecovered').length,
    unaffected: eps.filter((e) => e.outcome === 'unaffected').length,
    inFlight: eps.filter((e) => e.inFlight).length,
    rto: roundInterval(medianInterval(episodeRtos(eps))),
    parts: {
      inPlaceMs: part('inPlaceMs'),
      detectMs: part('detectMs'),
      retryMs: part('retryMs'),
      ackMs: part('ackMs')
    },
    retryShare: rec.length ? rec.filter((e) => e.recoveredBy === 'retry').length / rec.length : null
  }
}

/** Always shared when any run's survivors already read every orphaned queue; else the times. */
function summarizeTakeover(runs: readonly LaneRun[]): TakeoverSummary | null {
  const ts = runs.flatMap((r) => (r.takeover ? [r.takeover] : []))
  if (ts.length === 0) return null
  const shared = ts.filter((t) => t.kind === 'always-shared')
  if (shared.length > 0)
    return {
      kind: 'always-shared',
      crossRoomShare: medianKeepingInfinity(shared.map((t) => t.crossRoomShare)),
      runs: ts.length
    }
  const taken = ts.filter((t) => t.kind === 'takeover')
  return {
    kind: 'takeover',
    first: roundInterval(medianInterval(taken.map((t) => t.firstMs))),
    allMedianMs: r1(medianKeepingInfinity(taken.map((t) => t.allMs))),
    runs: ts.length
  }
}

/** ∞ survives JSON as a string. */
export function jsonSafe(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (_k, v: unknown) =>
      typeof v === 'number' && !Number.isFinite(v) ? (v > 0 ? '∞' : '-∞') : v
    )
  )
}
