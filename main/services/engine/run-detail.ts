import type { RequestOutput, RequestParsed } from '../../../common/contract'
import { LedgerReader } from '../ledger'
import type { Recorder } from '../ledger'

/** Events `runs:get` returns without paging (the Runs view's list). */
export const RUN_EVENTS_SHOWN = 5000
/** Page size when the caller pages without naming one. */
export const RUN_EVENTS_PAGE = 5000

/**
 * The `runs:get` handler: the run's row, report and topology, and either its first events by time
 * (no `afterId`) or one page in ledger order (with `afterId`), as a replay reads a whole run.
 * Counters come with the first page only: they are a separate series, not paged.
 */
export function getRunDetail(
  recorder: Recorder,
  input: RequestParsed<'runs:get'>
): RequestOutput<'runs:get'> {
  const { id } = input
  const run = recorder.listRuns(100_000).find((r) => r.id === id)
  if (!run) throw new Error(`run ${id} does not exist (it may have been deleted)`)
  const reader = new LedgerReader(recorder.db)
  const base = { run, report: recorder.getRunReport(id), topology: recorder.getRunTopology(id) }
  if (input.afterId === undefined) {
    return {
      ...base,
      events: reader.events(id, {
        excludeKinds: ['counters'],
        limit: input.limit ?? RUN_EVENTS_SHOWN
      }),
      counters: reader.counters(id)
    }
  }
  const limit = input.limit ?? RUN_EVENTS_PAGE
  // One row more than asked tells whether another page follows.
  const rows = reader.eventsPage(id, {
    afterId: input.afterId,
    limit: limit + 1,
    excludeKinds: ['counters']
  })
  const events = rows.slice(0, limit)
  return {
    ...base,
    events,
    counters: input.afterId === 0 ? reader.counters(id) : [],
    nextAfterId: rows.length > limit ? events[events.length - 1]!.id : null
  }
}

/** The `runs:export` handler: one run's row, report, events and loss summary as a JSON file. */
export function exportRun(recorder: Recorder, id: number): RequestOutput<'runs:export'> {
  const run = recorder.listRuns(100_000).find((r) => r.id === id)
  if (!run) throw new Error(`run ${id} does not exist`)
  const reader = new LedgerReader(recorder.db)
  const json = JSON.stringify(
    {
      kind: 'drstudio/run-export',
      version: 1,
      run,
      report: recorder.getRunReport(id),
      events: reader.events(id, {}),
      loss: reader.lossSummary(id)
    },
    null,
    2
  )
  const stamp = new Date(run.startedAt).toISOString().replace(/[:.]/g, '-')
  return { fileName: `drstudio-run-${id}-${run.topologyName}-${stamp}.json`, json }
}
