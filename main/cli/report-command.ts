import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import type { ScenarioReport } from '../../common/scenario/schema'
import { reportSchema } from '../../common/scenario/schema'
import { defaultDataDir } from '../services/ledger/data-dir'
import { openDatabase, Recorder } from '../services/ledger/recorder'
import { runReportHtml } from '../services/report-html/run-report-html'
import { compareReports } from '../../common/scenario/compare'
import { formatComparison } from '../services/scenario/compare-text'

export interface ReportCommandOptions {
  /** Write the run's self-contained HTML report here (one run). */
  html?: string
  /** Print the runs side by side (two or more). */
  compare?: boolean
  /** With --compare: the comparison as JSON. */
  json?: boolean
  dataDir?: string
  stdout?: { write(text: string): unknown }
  stderr?: { write(text: string): unknown }
}

/**
 * `drstudio report <run> --html FILE` (one recorded run as a self-contained HTML file) and
 * `drstudio report <run> <run>… --compare` (runs side by side). Exit 0 done, 2 when a run, the
 * data folder or the options are unusable.
 */
export function runReportCommand(
  runs: string | readonly string[],
  options: ReportCommandOptions = {}
): number {
  const out = options.stdout ?? process.stdout
  const err = options.stderr ?? process.stderr
  const fail = (message: string): number => {
    err.write(`drstudio report: ${message}\n`)
    return 2
  }
  const list = typeof runs === 'string' ? [runs] : runs
  const ids: number[] = []
  for (const run of list) {
    const id = Number(run)
    if (!Number.isSafeInteger(id) || id <= 0)
      return fail(`"${run}" is not a run id; give the number the Runs panel shows (e.g. 12)`)
    ids.push(id)
  }
  if (options.compare && ids.length < 2) return fail('--compare needs two or more runs')
  if (!options.compare && !options.html)
    return fail('say what to write, e.g. --html run-12.html, or --compare with several runs')
  if (options.html && ids.length !== 1) return fail('--html writes one run; name one run id')
  if (options.html && options.compare)
    return fail('--html and --compare do one thing each; run them one at a time')
  if (options.json && !options.compare) return fail('--json goes with --compare')
  const dbFile = join(options.dataDir ?? defaultDataDir(), 'drstudio.db')
  if (!existsSync(dbFile)) return fail(`no runs recorded yet (${dbFile} does not exist)`)
  const recorder = new Recorder(openDatabase(dbFile))
  try {
    if (options.compare) {
      const comparison = compareReports(ids.map((id) => reportOf(recorder, id)))
      out.write(
        options.json ? JSON.stringify(comparison, null, 2) + '\n' : formatComparison(comparison)
      )
      return 0
    }
    const html = runReportHtml(recorder, ids[0]!)
    const file = resolve(options.html!)
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, html)
    out.write(`wrote ${file}\n`)
    return 0
  } catch (e) {
    return fail((e as Error).message)
  } finally {
    recorder.close()
  }
}

function reportOf(recorder: Recorder, id: number): ScenarioReport {
  const parsed = reportSchema.safeParse(recorder.getRunReport(id))
  if (!parsed.success)
    throw new Error(
      `run ${id} has no report (unknown, interrupted or still running); pick finished runs`
    )
  return parsed.data
}
