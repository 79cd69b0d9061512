import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { reportSchema } from '../../common/scenario'
import { readTopologyFile } from '../services/documents/documents'
import type { LatestResults } from '../services/export'
import { latestResultsFromReports } from '../services/export/results'
import { defaultDataDir, openDatabase, Recorder } from '../services/ledger'

/** The latest scenario results the local store holds for a topology, or null when none were run. */
export function recordedResults(topologyPath: string): LatestResults | null {
  const dbFile = join(defaultDataDir(), 'drstudio.db')
  if (!existsSync(dbFile)) return null
  let name: string
  try {
    name = readTopologyFile(topologyPath).name
  } catch {
    return null
  }
  const recorder = new Recorder(openDatabase(dbFile))
  try {
    const reports = recorder
      .scenarioReports(name)
      .map((r) => reportSchema.safeParse(r))
      .flatMap((r) => (r.success ? [r.data] : []))
    return reports.length ? latestResultsFromReports(name, reports) : null
  } finally {
    recorder.close()
  }
}
