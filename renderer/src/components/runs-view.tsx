import {
  ArrowLeft,
  Columns2,
  Download,
  FileText,
  FolderOpen,
  Loader2,
  PlayCircle,
  RefreshCw,
  Trash2
} from 'lucide-react'
import { memo, useEffect, useMemo, useRef } from 'react'
import type { RunRowView } from '../../../common/contract'
import {
  failoverBars,
  faultMarkers,
  orderMarkers,
  plotOrigin,
  rateSeries
} from '../model/plot-data'
import type { RunDetail } from '../stores/runs-store'
import { useReplayStore } from '../stores/replay-store'
import { useRunsStore } from '../stores/runs-store'
import { Dialog } from './dialog'
import { EventList } from './event-list'
import { NamesrvSwimlanes } from './namesrv-swimlanes'
import { BarPlot, TimePlot } from './plots'
import { CompareView } from './compare-view'
import { Scorecard } from './scorecard'
import { namesrvSamples } from '../../../common/replay/divergence'

/** Closes the Runs dialog and plays the run on the canvas. */
function replay(id: number): void {
  useRunsStore.getState().setOpen(false)
  void useReplayStore.getState().open(id)
}

function ReplayButton({ id, small }: { id: number; small?: boolean }) {
  const loading = useReplayStore((s) => s.loading)
  return (
    <button
      type="button"
      className={`btn btn-small${small ? '' : ' btn-primary'}`}
      aria-label={`Replay run ${id}`}
      title="Play this run again on the canvas"
      disabled={loading}
      onClick={() => replay(id)}
    >
      <PlayCircle size={12} aria-hidden="true" /> Replay
    </button>
  )
}

const MAX_EVENTS_SHOWN = 2000

function date(ms: number): string {
  return new Date(ms).toLocaleString([], { hour12: false })
}

function duration(row: RunRowView): string {
  if (row.endedAt === null) return 'running'
  const s = Math.round((row.endedAt - row.startedAt) / 1000)
  return s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`
}

function Verdict({ row }: { row: RunRowView }) {
  const v = row.verdict ?? (row.endedAt === null ? 'running' : '–')
  const cls =
    v === 'passed' ? 'pill-ok' : v === 'failed' || v === 'error' ? 'pill-bad' : 'pill-neutral'
  return <span className={`pill ${cls}`}>{v}</span>
}

const RunsTable = memo(function RunsTable() {
  const rows = useRunsStore((s) => s.rows)
  const loading = useRunsStore((s) => s.loading)
  const error = useRunsStore((s) => s.error)
  const opening = useRunsStore((s) => s.detailLoading)
  const selected = useRunsStore((s) => s.selected)
  const { openRun, exportRun, deleteRun, toggleSelected } = useRunsStore.getState()
  if (error) {
    return (
      <p className="field-error" role="alert">
        Could not list runs: {error}
      </p>
    )
  }
  if (!rows.length) {
    return (
      <p className="muted">
        {loading ? 'Loading runs…' : 'No runs yet: start the sandbox or run a scenario.'}
      </p>
    )
  }
  return (
    <table className="grid-table runs-table" aria-label="Past runs">
      <thead>
        <tr>
          <th scope="col">
            <span className="sr-only">Compare</span>
          </th>
          <th scope="col" className="num">
            Run
          </th>
          <th scope="col">Topology</th>
          <th scope="col">Scenario</th>
          <th scope="col">Date</th>
          <th scope="col">Duration</th>
          <th scope="col">Verdict</th>
          <th scope="col">
            <span className="sr-only">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.id}>
            <td>
              <input
                type="checkbox"
                aria-label={`Select run ${r.id} to compare`}
                checked={selected.includes(r.id)}
                onChange={() => toggleSelected(r.id)}
              />
            </td>
            <td className="num mono">{r.id}</td>
            <td>{r.topologyName}</td>
            <td>{r.scenarioName ?? <span className="muted">interactive</span>}</td>
            <td className="mono">{date(r.startedAt)}</td>
            <td>{duration(r)}</td>
            <td>
              <Verdict row={r} />
            </td>
            <td className="row-actions">
              <button
                type="button"
                className="btn btn-small"
                aria-label={`Open run ${r.id}`}
                onClick={() => void openRun(r.id)}
              >
                {opening === r.id ? (
                  <Loader2 size={12} className="spin" aria-hidden="true" />
                ) : (
                  <FolderOpen size={12} aria-hidden="true" />
                )}
                Open
              </button>
              <ReplayButton id={r.id} small />
              <button
                type="button"
                className="icon-btn"
                aria-label={`Export run ${r.id}`}
                title="Export as JSON"
                onClick={() => void exportRun(r.id)}
              >
                <Download size={14} aria-hidden="true" />
              </button>
              <button
                type="button"
                className="icon-btn icon-btn-danger"
                aria-label={`Delete run ${r.id}`}
                title="Delete"
                onClick={() => void deleteRun(r.id)}
              >
                <Trash2 size={14} aria-hidden="true" />
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
})

const RunDetailView = memo(function RunDetailView({ detail }: { detail: RunDetail }) {
  const { run, report, events, counters } = detail
  const origin = plotOrigin(report, run.startedAt)
  const plots = useMemo(() => {
    const sends = rateSeries(counters, origin, 'sent')
    return {
      sends,
      failures: rateSeries(
        counters,
        origin,
        'failed',
        sends.series.map((s) => s.clientId)
      ),
      markers: [...faultMarkers(events, origin, report), ...orderMarkers(report)].sort(
        (a, b) => a.x - b.x
      ),
      bars: failoverBars(report),
      samples: namesrvSamples(events)
    }
  }, [counters, events, origin, report])
  const laneFaults = useMemo(
    () =>
      plots.markers
        .filter((m) => m.kind !== 'order')
        .map((m) => ({ atMs: origin + m.x * 1000, label: m.label })),
    [plots.markers, origin]
  )
  const shown = events.length > MAX_EVENTS_SHOWN ? events.slice(-MAX_EVENTS_SHOWN) : events
  const { closeRun, exportRun, exportRunHtml, deleteRun } = useRunsStore.getState()
  const back = useRef<HTMLButtonElement>(null)
  useEffect(() => {
    // The Open button that had focus is gone; keep focus (and Escape) inside the dialog.
    back.current?.focus()
  }, [run.id])
  return (
    <div className="run-detail">
      <div className="run-detail-bar">
        <button ref={back} type="button" className="btn btn-small" onClick={closeRun}>
          <ArrowLeft size={12} aria-hidden="true" /> All runs
        </button>
        <h3 className="run-detail-title">
          Run {run.id}: {run.scenarioName ?? 'interactive'} on {run.topologyName}
        </h3>
        <span className="muted mono">{date(run.startedAt)}</span>
        <Verdict row={run} />
        <span className="spacer" />
        <ReplayButton id={run.id} />
        <button
          type="button"
          className="btn btn-small"
          aria-label={`Export run ${run.id}`}
          onClick={() => void exportRun(run.id)}
        >
          <Download size={12} aria-hidden="true" /> Export
        </button>
        <button
          type="button"
          className="btn btn-small"
          aria-label={`Export run ${run.id} as HTML`}
          title="A self-contained report to share: opens in any browser, phones included"
          onClick={() => void exportRunHtml(run.id)}
        >
          <FileText size={12} aria-hidden="true" /> HTML
        </button>
        <button
          type="button"
          className="btn btn-small btn-danger"
          aria-label={`Delete run ${run.id}`}
          onClick={() => void deleteRun(run.id)}
        >
          <Trash2 size={12} aria-hidden="true" /> Delete
        </button>
      </div>
      {report ? (
        <Scorecard report={report} />
      ) : (
        <p className="muted">
          This run has no report{run.endedAt === null ? ' yet (it is still running)' : ''}.
        </p>
      )}
      <div className="plots">
        <TimePlot
          title="Send rate per client"
          unit="msg/s"
          data={plots.sends}
          markers={plots.markers}
        />
        <TimePlot
          title="Failed sends per client"
          unit="failures/s"
          data={plots.failures}
          markers={plots.markers}
        />
        <BarPlot title="Recovery time per failover" unit="ms" data={plots.bars} />
      </div>
      {plots.samples.length > 0 && (
        <>
          <h3 className="sub-title">Name-server views</h3>
          <NamesrvSwimlanes
            samples={plots.samples}
            faults={laneFaults}
            originMs={origin}
            {...(run.endedAt !== null ? { endMs: run.endedAt } : {})}
          />
        </>
      )}
      <h3 className="sub-title">
        Events{' '}
        <span className="muted">
          ({events.length}
          {events.length > MAX_EVENTS_SHOWN ? `, last ${MAX_EVENTS_SHOWN} shown` : ''})
        </span>
      </h3>
      {shown.length ? (
        <EventList events={shown} label={`Events of run ${run.id}`} originMs={origin} />
      ) : (
        <p className="muted">No events recorded.</p>
      )}
    </div>
  )
})

/** Past runs: list, and one run's scorecard, plots and events. */
export const RunsView = memo(function RunsView() {
  const open = useRunsStore((s) => s.open)
  const detail = useRunsStore((s) => s.detail)
  const loading = useRunsStore((s) => s.loading)
  const comparison = useRunsStore((s) => s.comparison)
  const selected = useRunsStore((s) => s.selected)
  const comparing = useRunsStore((s) => s.compareLoading)
  if (!open) return null
  const close = () => useRunsStore.getState().setOpen(false)
  return (
    <Dialog
      title="Runs"
      size="full"
      onClose={close}
      footer={
        <>
          {!detail && !comparison && (
            <button
              type="button"
              className="btn"
              title="Tick two or more runs: their figures side by side, plots aligned at the first fault"
              disabled={selected.length < 2 || comparing}
              onClick={() => void useRunsStore.getState().compareSelected()}
            >
              {comparing ? (
                <Loader2 size={14} className="spin" aria-hidden="true" />
              ) : (
                <Columns2 size={14} aria-hidden="true" />
              )}{' '}
              Compare{selected.length ? ` ${selected.length} runs` : ''}
            </button>
          )}
          {!detail && !comparison && (
            <button
              type="button"
              className="btn"
              disabled={loading}
              onClick={() => void useRunsStore.getState().refresh()}
            >
              <RefreshCw size={14} className={loading ? 'spin' : undefined} aria-hidden="true" />{' '}
              Refresh
            </button>
          )}
          <button type="button" className="btn btn-primary" onClick={close}>
            Close
          </button>
        </>
      }
    >
      {comparison ? (
        <CompareView comparison={comparison} />
      ) : detail ? (
        <RunDetailView detail={detail} />
      ) : (
        <RunsTable />
      )}
    </Dialog>
  )
})
