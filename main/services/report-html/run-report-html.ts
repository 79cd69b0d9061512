import { reportSchema } from '../../../common/scenario/schema'
import { topologySchema } from '../../../common/topology/schema'
import { LedgerReader } from '../ledger/ledger-reader'
import type { Recorder } from '../ledger/recorder'
import { reportHtml } from './report-html'

/**
 * A recorded run's HTML report, from its stored report, topology and client counters. Throws
 * naming the run and what to do when the run is unknown, unfinished or kept no topology.
 */
export function runReportHtml(recorder: Recorder, runId: number): string {
  const known = recorder.db.prepare('SELECT 1 FROM runs WHERE id = ?').get(runId)
  if (!known) {
    throw new Error(`there is no run ${runId} in this data folder; the app's Runs panel lists them`)
  }
  const parsed = reportSchema.safeParse(recorder.getRunReport(runId))
  if (!parsed.success) {
    throw new Error(
      `run ${runId} has no report (it was interrupted, is still running, or predates reports); pick a finished run`
    )
  }
  const topology = topologySchema.safeParse(recorder.getRunTopology(runId))
  if (!topology.success) {
    throw new Error(`run ${runId} did not keep its topology (an older run); re-run the scenario`)
  }
  const counters = new LedgerReader(recorder.db).counters(runId)
  return reportHtml({ report: parsed.data, topology: topology.data, counters })
}
