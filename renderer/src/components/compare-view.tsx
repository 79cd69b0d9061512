import { ArrowLeft } from 'lucide-react'
import { memo, useEffect, useMemo, useRef } from 'react'
import { anchorMarkers, anchorOf, overlaidRates } from '../model/compare-plots'
import type { RunComparison } from '../stores/runs-store'
import { useRunsStore } from '../stores/runs-store'
import { TimePlot } from './plots'

/**
 * Runs side by side (Runs ▸ tick two or more ▸ Compare): one row per figure with the ones that
 * differ marked, and the send and failure rates of every run overlaid on one axis whose zero is
 * each run's first fault.
 */
export const CompareView = memo(function CompareView({
  comparison
}: {
  comparison: RunComparison
}) {
  const { runs, table } = comparison
  const plots = useMemo(
    () => ({
      sends: overlaidRates(runs, 'sent'),
      failures: overlaidRates(runs, 'failed'),
      markers: anchorMarkers(runs),
      anchors: runs.map((r) => ({ runId: r.runId, ...anchorOf(r) }))
    }),
    [runs]
  )
  const back = useRef<HTMLButtonElement>(null)
  useEffect(() => back.current?.focus(), [runs])
  const ids = runs.map((r) => r.runId).join(', ')
  const unanchored = plots.anchors.filter((a) => a.at === 'start').map((a) => a.runId)
  const differing = table.rows.filter((r) => r.differs).length
  return (
    <div className="run-detail">
      <div className="run-detail-bar">
        <button
          ref={back}
          type="button"
          className="btn btn-small"
          onClick={() => useRunsStore.getState().closeCompare()}
        >
          <ArrowLeft size={12} aria-hidden="true" /> All runs
        </button>
        <h3 className="run-detail-title">Comparing runs {ids}</h3>
        <span className="muted">
          {differing} of {table.rows.length} figures differ
        </span>
      </div>
      <table className="grid-table compare-table" aria-label={`Runs ${ids} side by side`}>
        <thead>
          <tr>
            <th scope="col">Figure</th>
            {table.runs.map((r) => (
              <th key={r.runId} scope="col">
                Run {r.runId}
                <span className="muted"> {r.scenario}</span>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((row) => (
            <tr key={row.figure} className={row.differs ? 'compare-differs' : undefined}>
              <th scope="row">
                {row.differs && (
                  <span className="compare-mark" aria-hidden="true">
                    ≠{' '}
                  </span>
                )}
                {row.figure}
                {row.differs && <span className="sr-only"> (differs)</span>}
              </th>
              {row.values.map((v, i) => (
                <td key={table.runs[i]!.runId} className="mono">
                  {v}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">
        Plots: every run&rsquo;s clients summed, one line per run, zero at each run&rsquo;s first
        fault
        {unanchored.length
          ? ` (run ${unanchored.join(', ')} had none: zero at its workload start)`
          : ''}
        .
      </p>
      <div className="plots">
        <TimePlot
          title="Send rate per run"
          unit="msg/s"
          data={plots.sends}
          markers={plots.markers}
          xLabel="seconds since the first fault"
        />
        <TimePlot
          title="Failed sends per run"
          unit="failures/s"
          data={plots.failures}
          markers={plots.markers}
          xLabel="seconds since the first fault"
        />
      </div>
    </div>
  )
})
