import { mkdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { CounterSample } from '../../../common/scenario/metrics'
import { LedgerWriter } from '../ledger/ledger-writer'
import { openDatabase, Recorder } from '../ledger/recorder'

/** The recorded run the report tests use: a real transactional run (see its `source`). */
export const RECORDED_RUN_FIXTURE = resolve(
  import.meta.dirname,
  '../../../test/golden/report/transactional-run.json'
)

/**
 * Records the fixture's run into a data folder's ledger as a finished run (its report, topology
 * and client counters), as the app would have; returns its run id. For tests of what reads runs;
 * `edit` changes the report first (a second run that differs from the first).
 */
export function seedRecordedRun(
  dataDir: string,
  edit: (report: Record<string, unknown> & { passed: boolean }) => void = () => {},
  fixture = RECORDED_RUN_FIXTURE
): number {
  const raw = JSON.parse(readFileSync(fixture, 'utf8')) as {
    report: Record<string, unknown> & { scenario: string; topology: string; passed: boolean }
    topology: unknown
    counters: CounterSample[]
  }
  edit(raw.report)
  mkdirSync(dataDir, { recursive: true })
  const recorder = new Recorder(openDatabase(join(dataDir, 'drstudio.db')))
  try {
    const id = recorder.startRun({
      kind: 'scenario',
      topologyName: raw.report.topology,
      topologyJson: JSON.stringify(raw.topology),
      scenarioName: raw.report.scenario
    })
    const ledger = new LedgerWriter(recorder.db, id)
    for (const c of raw.counters) {
      ledger.event('counters', c.clientId, null, c.values as never, c.atMs)
    }
    ledger.close()
    recorder.endRun(id, raw.report.passed ? 'passed' : 'failed', { ...raw.report, runId: id })
    return id
  } finally {
    recorder.close()
  }
}
