import type { ScenarioReport } from './schema'
import { formatBytes } from './traffic-text'

/** One figure across the compared runs; `differs` when not every run has the same value. */
export interface ComparisonRow {
  figure: string
  values: string[]
  differs: boolean
}

export interface Comparison {
  runs: { runId: number; scenario: string }[]
  rows: ComparisonRow[]
}

/**
 * Runs side by side (`drstudio report A B --compare`, Runs ▸ Compare in the app): verdict, totals, the worst recovery, send
 * latency, cross-room traffic and every gate any of them has, in one row per figure. A gate a
 * run did not have reads `—`.
 */
export function compareReports(reports: readonly ScenarioReport[]): Comparison {
  const rows: ComparisonRow[] = []
  const add = (figure: string, value: (r: ScenarioReport) => string) => {
    const values = reports.map(value)
    rows.push({ figure, values, differs: new Set(values).size > 1 })
  }
  add('scenario', (r) => r.scenario)
  add('verdict', (r) => (r.aborted ? 'ABORTED' : r.passed ? 'PASSED' : 'FAILED'))
  add('sent', (r) => String(r.totals.sent))
  add('acknowledged', (r) => String(r.totals.acked))
  add('failed sends', (r) => String(r.totals.failed))
  add('lost', (r) => String(r.totals.lost))
  add('duplicates', (r) => String(r.totals.duplicates))
  add('worst RTO', (r) => worstRto(r))
  for (const scope of ['same-room', 'cross-room'] as const) {
    add(`send p99 ${scope}`, (r) => {
      const l = r.latency?.find((x) => x.scope === scope)
      return l && l.p99Ms !== null ? `${l.p99Ms} ms` : '—'
    })
  }
  add('cross-room bytes', (r) =>
    r.traffic
      ? `${formatBytes(r.traffic.crossRoomBytes)} (${r.traffic.crossRoomShare === null ? '–' : `${(r.traffic.crossRoomShare * 100).toFixed(1)} %`})`
      : '—'
  )
  const gates = [...new Set(reports.flatMap((r) => r.gates.map((g) => g.name)))]
  for (const name of gates) {
    add(`gate: ${name}`, (r) => {
      const g = r.gates.find((x) => x.name === name)
      return g ? `${g.passed ? 'pass' : 'FAIL'} ${g.actual ?? '—'}` : '—'
    })
  }
  return { runs: reports.map((r) => ({ runId: r.runId, scenario: r.scenario })), rows }
}

function worstRto(r: ScenarioReport): string {
  const all = r.clients.flatMap((c) => c.rtoMs)
  if (all.length === 0) return '—'
  if (all.some((v) => v === null)) return 'never recovered'
  return `${Math.round(Math.max(...(all as number[])))} ms`
}
