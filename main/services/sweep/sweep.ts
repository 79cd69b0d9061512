import { checkScenario, planClients } from '../../../common/scenario/client-plan'
import type { LoadedScenario } from '../../../common/scenario/run-plan'
import type { ScenarioReport } from '../../../common/scenario/schema'
import type { Run, RunDeps } from '../engine/run/run'
import { runScenario } from '../engine/scenario-driver'
import type { SweepFigures, SweepResult } from './sweep-figures'
import { figuresOf, summarizeSweep, toSweepSummary } from './sweep-figures'
import { sweepTable } from '../../../common/scenario/sweep-summary'
import type { SweepCombination } from './sweep-plan'
import { batchesOf, laneEntriesOf, parseVary, sweepCombinations } from './sweep-plan'
import { textTable } from '../scenario/text-table'

/** Lanes per run: each lane is a worker per room and a topic, and this machine has two cores. */
export const LANES_PER_RUN = 4

export interface SweepOptions {
  /** Runs of every combination (medians are taken over them); default 1. */
  runs?: number
  /** Each run as it opens, with where it is in the sweep (`run 2 of 4: s1, s2`). */
  onOpen?: (run: Run, label: string) => void
  /**
   * Each run's report once, as soon as it is made; the last one once the sweep's summary is in it
   * (every report carries the summary in the database by then).
   */
  onReport?: (report: ScenarioReport) => void
  /** Cancels the run in progress; the sweep ends with its error. */
  signal?: AbortSignal
  /** Live figures for the canvas while each run lasts. */
  liveMetrics?: boolean
}

/** What a sweep runs: its combinations, and how many runs of each. */
export interface SweepPlan {
  combos: SweepCombination[]
  runs: number
}

/**
 * A sweep of `loaded` from the `--vary` flags (`lane=a,b`, `client.<setting>=v1,v2`) and a run
 * count, every batch checked before anything boots. Throws naming the flag and the fix.
 */
export function planSweep(
  loaded: LoadedScenario,
  vary: readonly string[],
  runs: number = 1
): SweepPlan {
  if (!Number.isInteger(runs) || runs < 1 || runs > 20) {
    throw new Error(`--runs ${runs}: give a whole number from 1 to 20`)
  }
  const combos = sweepCombinations(parseVary(vary), loaded.scenario.workload.lane ?? 'remoting')
  for (const batch of batchesOf(combos, LANES_PER_RUN)) sweepScenario(loaded, batch)
  return { combos, runs }
}

/** The scenario with one batch of combinations as its lanes (each its own topic and group). */
export function sweepScenario(
  loaded: LoadedScenario,
  batch: readonly SweepCombination[]
): LoadedScenario {
  const { lane: _lane, ...workload } = loaded.scenario.workload
  const scenario = { ...loaded.scenario, workload: { ...workload, lanes: laneEntriesOf(batch) } }
  const problems = checkScenario(scenario, loaded.topology)
  if (problems.length) {
    throw new Error(`the sweep cannot run this scenario:\n  - ${problems.join('\n  - ')}`)
  }
  return { ...loaded, scenario }
}

/**
 * A what-if sweep: the scenario's fault script once per run, every combination a lane variant of
 * the same run where they fit (LANES_PER_RUN), so they meet each fault at the same instant on one
 * boot of the deployment; repeated `runs` times. Checks every batch before the first run starts.
 * The sweep's summary is stored with every one of its runs' reports, so Runs shows it from any.
 */
export async function runSweep(
  deps: RunDeps,
  loaded: LoadedScenario,
  combos: readonly SweepCombination[],
  opts: SweepOptions = {}
): Promise<{ result: SweepResult; reports: ScenarioReport[] }> {
  const batches = batchesOf(combos, LANES_PER_RUN).map((batch) => ({
    batch,
    loaded: sweepScenario(loaded, batch)
  }))
  const measured: { combination: SweepCombination; runId: number; figures: SweepFigures }[] = []
  const reports: ScenarioReport[] = []
  const total = (opts.runs ?? 1) * batches.length
  for (let i = 0; i < (opts.runs ?? 1); i++) {
    for (const { batch, loaded: l } of batches) {
      // "run 3 of 4": where a long sweep is (its runs are a minute each, a sweep up to 20 of them).
      const label = `run ${reports.length + 1} of ${total}: ${batch.map((c) => c.name).join(', ')}`
      const report = await runScenario(deps, l, {
        ...(opts.onOpen ? { onOpen: (run: Run) => opts.onOpen!(run, label) } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.liveMetrics ? { liveMetrics: true } : {})
      })
      reports.push(report)
      if (reports.length < total) opts.onReport?.(report)
      const plans = planClients(l.scenario, l.topology)
      for (const c of batch) {
        measured.push({ combination: c, runId: report.runId, figures: figuresOf(report, plans, c) })
      }
    }
  }
  const result = summarizeSweep(loaded.scenario.name, measured)
  const sweep = toSweepSummary(result)
  for (const report of reports) {
    report.sweep = sweep
    deps.recorder.setRunReport(report.runId, report)
  }
  opts.onReport?.(reports.at(-1)!)
  return { result, reports }
}

/** The sweep as a table: a row per combination, the best of each figure starred, then the verdict. */
export function formatSweep(r: SweepResult): string {
  const t = sweepTable(toSweepSummary(r))
  const body = t.rows.map((row) => [
    row.name,
    row.label,
    ...row.cells.map((c) => `${c.text}${c.best ? ' *' : ''}`),
    row.runIds.join(',')
  ])
  return [
    `sweep of ${r.scenario} (medians; * best)`,
    ...textTable([['', 'setting', ...t.head, 'run ids'], ...body]),
    '',
    ...t.best,
    ...(t.tradeOff ? [`trade-off: ${t.tradeOff}`] : []),
    ''
  ].join('\n')
}
