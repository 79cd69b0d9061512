import { create } from 'zustand'
import type { RequestOutput, RunRowView } from '../../../common/contract'
import type { Comparison } from '../../../common/scenario/compare'
import { compareReports } from '../../../common/scenario/compare'
import type { ScenarioReport } from '../../../common/scenario/schema'
import { invoke } from '../lib/bridge'
import type { ComparedRun } from '../model/compare-plots'
import { parseReport } from '../model/plot-data'
import { toast, useUiStore } from './ui-store'

type RunDetailRaw = RequestOutput<'runs:get'>

export interface RunDetail {
  run: RunRowView
  report: ScenarioReport | null
  events: RunDetailRaw['events']
  counters: RunDetailRaw['counters']
}

/** Runs side by side: their figures, and what the overlaid plots read. */
export interface RunComparison {
  runs: ComparedRun[]
  table: Comparison
}

/** How many runs one comparison shows (one colour each). */
export const MAX_COMPARED = 6

export interface RunsState {
  open: boolean
  rows: RunRowView[]
  loading: boolean
  error: string | null
  detail: RunDetail | null
  detailLoading: number | null
  /** Runs ticked for Compare, in the order ticked. */
  selected: number[]
  comparison: RunComparison | null
  compareLoading: boolean
  toggleSelected(id: number): void
  /** Loads the ticked runs and shows them side by side (two or more, each with a report). */
  compareSelected(): Promise<void>
  closeCompare(): void
  setOpen(open: boolean): void
  refresh(): Promise<void>
  openRun(id: number): Promise<void>
  closeRun(): void
  deleteRun(id: number): Promise<void>
  exportRun(id: number): Promise<void>
  /** Saves the run as one self-contained HTML report. */
  exportRunHtml(id: number): Promise<void>
  /** `runs:changed`: refresh the list when it is shown, and drop a deleted run's detail. */
  applyChanged(runId: number | null): void
}

/** Saves text as a file through the browser's download (works in Electron too). */
function download(fileName: string, text: string, type = 'application/json'): void {
  const url = URL.createObjectURL(new Blob([text], { type }))
  const a = document.createElement('a')
  a.href = url
  a.download = fileName
  document.body.append(a)
  a.click()
  a.remove()
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

/** Past runs: the list, the opened run (report, events, counters), delete and export. */
export const useRunsStore = create<RunsState>()((set, get) => ({
  open: false,
  rows: [],
  loading: false,
  error: null,
  detail: null,
  detailLoading: null,
  selected: [],
  comparison: null,
  compareLoading: false,

  toggleSelected(id) {
    const { selected } = get()
    if (selected.includes(id)) set({ selected: selected.filter((x) => x !== id) })
    else if (selected.length >= MAX_COMPARED)
      toast('info', `Compare shows up to ${MAX_COMPARED} runs; untick one first`)
    else set({ selected: [...selected, id] })
  },

  async compareSelected() {
    const ids = get().selected
    if (ids.length < 2) return
    set({ compareLoading: true })
    try {
      const got = await Promise.all(ids.map((id) => invoke('runs:get', { id })))
      const runs = got.map((r) => ({
        runId: r.run.id,
        startedAt: r.run.startedAt,
        report: parseReport(r.report),
        events: r.events,
        counters: r.counters
      }))
      const missing = runs.filter((r) => !r.report).map((r) => r.runId)
      if (missing.length) {
        toast(
          'error',
          `Run ${missing.join(', ')} has no report (still running, or stopped before one was written); untick it to compare the rest`
        )
        return
      }
      set({ comparison: { runs, table: compareReports(runs.map((r) => r.report!)) } })
    } catch (err) {
      toast('error', `Could not compare runs ${ids.join(', ')}: ${(err as Error).message}`)
    } finally {
      set({ compareLoading: false })
    }
  },

  closeCompare() {
    set({ comparison: null })
  },

  setOpen(open) {
    set({ open, ...(open ? {} : { detail: null, comparison: null }) })
    if (open) void get().refresh()
  },

  async refresh() {
    set({ loading: true })
    try {
      set({ rows: await invoke('runs:list', {}), error: null })
    } catch (err) {
      set({ error: (err as Error).message })
    } finally {
      set({ loading: false })
    }
  },

  async openRun(id) {
    set({ detailLoading: id })
    try {
      const r = await invoke('runs:get', { id })
      if (get().detailLoading !== id) return
      set({
        detail: {
          run: r.run,
          report: parseReport(r.report),
          events: r.events,
          counters: r.counters
        }
      })
    } catch (err) {
      toast('error', `Could not open run ${id}: ${(err as Error).message}`)
    } finally {
      if (get().detailLoading === id) set({ detailLoading: null })
    }
  },

  closeRun() {
    set({ detail: null, detailLoading: null })
  },

  async deleteRun(id) {
    const answer = await useUiStore.getState().ask({
      title: `Delete run ${id}?`,
      message:
        'Its report, events and counters are removed from this machine. This cannot be undone.',
      confirmLabel: 'Delete'
    })
    if (answer !== 'confirm') return
    try {
      const { deleted } = await invoke('runs:delete', { id })
      if (get().detail?.run.id === id) set({ detail: null })
      set({
        rows: get().rows.filter((r) => r.id !== id),
        selected: get().selected.filter((x) => x !== id)
      })
      toast(
        deleted ? 'success' : 'info',
        deleted ? `Run ${id} deleted` : `Run ${id} was already gone`
      )
    } catch (err) {
      toast('error', `Could not delete run ${id}: ${(err as Error).message}`)
    }
  },

  async exportRun(id) {
    try {
      const { fileName, json } = await invoke('runs:export', { id })
      download(fileName, json)
      toast('success', `Run ${id} exported as ${fileName}`)
    } catch (err) {
      toast('error', `Could not export run ${id}: ${(err as Error).message}`)
    }
  },

  async exportRunHtml(id) {
    try {
      const { fileName, html } = await invoke('runs:export-html', { id })
      download(fileName, html, 'text/html')
      toast('success', `Run ${id} saved as ${fileName}`)
    } catch (err) {
      toast('error', `Could not export run ${id} as HTML: ${(err as Error).message}`)
    }
  },

  applyChanged(runId) {
    if (runId !== null && get().detail?.run.id === runId) {
      // The opened run changed (finished or deleted): reload it, or drop it if it is gone.
      void invoke('runs:get', { id: runId })
        .then((r) =>
          set({
            detail: {
              run: r.run,
              report: parseReport(r.report),
              events: r.events,
              counters: r.counters
            }
          })
        )
        .catch(() => set({ detail: null }))
    }
    if (get().open) void get().refresh()
  }
}))
