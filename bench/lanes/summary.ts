// Per case and lane, the runs of the lane benchmark reduced to the figures the README quotes:
// pooled over runs where a figure is a distribution (RTO, waits), medians where it is a count per
// run, totals for loss and duplicates. ∞ stays ∞ everywhere.
import type { LaneRun } from './figures'
import type { RtoSummary } from './stats'
import { medianKeepingInfinity, rankPercentile, summarizeRecoveries } from './stats'

export interface LaneSummary {
  lane: string
  runs: number
  rto: RtoSummary
  failedSendsMedian: number | null
  faultWindow: { sends: number; p99Ms: number | null; maxMs: number | null }
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
  takeoverMedianMs: number | null
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
    takeoverMedianMs: r1(medianKeepingInfinity(runs.map((r) => r.takeoverMs))),
    hedges: runs.reduce((s, r) => s + r.hedges, 0),
    hedgesWon: runs.reduce((s, r) => s + r.hedgesWon, 0)
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
