import type { ScenarioReport } from '../../../common/scenario/schema'
import { reportSchema } from '../../../common/scenario/schema'
import type { LatestResults, ScenarioResult } from './types'
import { latestResultsSchema } from './types'

/** One README row from a scenario report: worst per-client RTO, totals, pass/fail. */
export function resultFromReport(report: ScenarioReport): ScenarioResult {
  const rtos = report.clients.flatMap((c) => c.rtoMs)
  const recovered = rtos.filter((r): r is number => r !== null)
  return {
    scenario: report.scenario,
    verdict: report.passed ? 'pass' : 'fail',
    rtoMs: recovered.length ? Math.max(...recovered) : null,
    ...(rtos.some((r) => r === null) ? { unrecovered: true } : {}),
    lost: report.totals.lost,
    duplicates: report.totals.duplicates,
    runId: report.runId,
    endedAt: Date.parse(report.endedAt)
  }
}

/** Keeps the latest report of each scenario run against the topology. */
export function latestResultsFromReports(
  topologyName: string,
  reports: ScenarioReport[]
): LatestResults {
  const latest = new Map<string, ScenarioResult>()
  for (const r of reports) {
    if (r.topology !== topologyName) continue
    const row = resultFromReport(r)
    const prev = latest.get(row.scenario)
    if (!prev || row.endedAt > prev.endedAt) latest.set(row.scenario, row)
  }
  return { topologyName, scenarios: [...latest.values()] }
}

/** Accepts a LatestResults document, one scenario report or an array of reports. */
export function parseResults(
  value: unknown,
  topologyName: string
): LatestResults | { error: string } {
  const direct = latestResultsSchema.safeParse(value)
  if (direct.success) return direct.data
  const reports = reportSchema.array().safeParse(Array.isArray(value) ? value : [value])
  if (reports.success) return latestResultsFromReports(topologyName, reports.data)
  const issue = direct.error.issues[0]
  return {
    error: `expected {"scenarios": [...]} or scenario report(s) (${issue?.path.join('.') || '$'}: ${issue?.message})`
  }
}
