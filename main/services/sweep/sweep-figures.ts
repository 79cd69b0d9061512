import type { ClientPlan } from '../../../common/scenario/client-plan'
import type { ScenarioReport } from '../../../common/scenario/schema'
import type { SweepSummary } from '../../../common/scenario/sweep-summary'
import { formatSweepFigure, SWEEP_FIGURES } from '../../../common/scenario/sweep-summary'
import type { SweepCombination } from './sweep-plan'

/** What one combination did in one run. Lower is better for every figure. */
export interface SweepFigures {
  /** Worst recovery of its producers (ms); 0 when none saw a failure; Infinity when one never recovered. */
  rtoMs: number
  failedSends: number
  duplicates: number
  /** Acknowledged sends stored by another room's broker, of all its acknowledged sends. */
  crossRoomShare: number
  /** Worst producer's p99 send latency from the schedule (ms). */
  sendP99Ms: number
}

export interface SweepRow {
  combination: SweepCombination
  /** Medians over the runs. */
  figures: SweepFigures
  runs: number
  runIds: number[]
}

export interface SweepResult {
  scenario: string
  rows: SweepRow[]
  /** Per figure: the combination(s) with the lowest median. */
  best: { figure: keyof SweepFigures; names: string[] }[]
  /** What the fastest recovery costs elsewhere, in words (null when it is best everywhere). */
  tradeOff: string | null
}

/** One combination's figures in one run's report, from the clients of its lane variant. */
export function figuresOf(
  report: ScenarioReport,
  plans: readonly ClientPlan[],
  combination: SweepCombination
): SweepFigures {
  const ids = new Set(
    plans.filter((p) => p.role === 'producer' && p.laneName === combination.name).map((p) => p.id)
  )
  const producers = report.clients.filter((c) => ids.has(c.id))
  const rtos = producers.flatMap((c) => c.rtoMs)
  const selections = report.selections.filter((s) => ids.has(s.clientId))
  const roomOf = new Map(producers.map((c) => [c.id, c.room]))
  const sends = selections.reduce((n, s) => n + s.count, 0)
  const crossed = selections
    .filter((s) => s.brokerRoom !== null && s.brokerRoom !== roomOf.get(s.clientId))
    .reduce((n, s) => n + s.count, 0)
  return {
    rtoMs: rtos.some((v) => v === null) ? Infinity : Math.max(0, ...(rtos as number[])),
    failedSends: producers.reduce((n, c) => n + c.failed, 0),
    duplicates: producers.reduce((n, c) => n + c.duplicates, 0),
    crossRoomShare: sends > 0 ? crossed / sends : 0,
    sendP99Ms: Math.max(0, ...producers.map((c) => c.p99SendLatencyMs ?? 0))
  }
}

/** Medians per combination, the best of each figure, and the trade-off of the fastest recovery. */
export function summarizeSweep(
  scenario: string,
  runs: readonly { combination: SweepCombination; runId: number; figures: SweepFigures }[]
): SweepResult {
  const byName = new Map<string, typeof runs>()
  for (const r of runs)
    byName.set(r.combination.name, [...(byName.get(r.combination.name) ?? []), r])
  const rows: SweepRow[] = [...byName.values()].map((list) => ({
    combination: list[0]!.combination,
    runs: list.length,
    runIds: list.map((r) => r.runId),
    figures: Object.fromEntries(
      SWEEP_FIGURES.map((f) => [f.key, median(list.map((r) => r.figures[f.key]))])
    ) as unknown as SweepFigures
  }))
  // Ties as the table shows them: 20.3 % and 20.3 % are the same, whatever the next digit.
  const best = SWEEP_FIGURES.map((f) => {
    const low = formatSweepFigure(Math.min(...rows.map((r) => r.figures[f.key])), f.unit)
    return {
      figure: f.key,
      names: rows
        .filter((r) => formatSweepFigure(r.figures[f.key], f.unit) === low)
        .map((r) => r.combination.name)
    }
  })
  return { scenario, rows, best, tradeOff: tradeOffOf(rows, best) }
}

function tradeOffOf(rows: readonly SweepRow[], best: SweepResult['best']): string | null {
  const fastest = best.find((b) => b.figure === 'rtoMs')!.names
  if (rows.length < 2 || fastest.length !== 1) return null
  const f = rows.find((r) => r.combination.name === fastest[0])!
  const worse = SWEEP_FIGURES.filter((x) => x.key !== 'rtoMs').flatMap((x) => {
    const b = best.find((y) => y.figure === x.key)!
    if (b.names.includes(f.combination.name)) return []
    const other = rows.find((r) => r.combination.name === b.names[0])!
    return [
      `${x.label} ${formatSweepFigure(f.figures[x.key], x.unit)} against ${formatSweepFigure(other.figures[x.key], x.unit)} with ${other.combination.label}`
    ]
  })
  if (worse.length === 0) return `${f.combination.label} is best on every figure`
  return `${f.combination.label} recovers fastest (RTO ${formatSweepFigure(f.figures.rtoMs, 'ms')}) but costs ${worse.join('; ')}`
}

/** The sweep as stored with its runs' reports (a recovery that never came is null, not Infinity). */
export function toSweepSummary(r: SweepResult): SweepSummary {
  return {
    scenario: r.scenario,
    rows: r.rows.map((row) => ({
      name: row.combination.name,
      label: row.combination.label,
      lane: row.combination.lane,
      runs: row.runs,
      runIds: row.runIds,
      figures: {
        ...row.figures,
        rtoMs: row.figures.rtoMs === Infinity ? null : row.figures.rtoMs
      }
    })),
    best: r.best,
    tradeOff: r.tradeOff
  }
}

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}
