import { memo, useMemo } from 'react'
import type { FaultMark, NamesrvSample } from '../../../common/replay/divergence'
import {
  divergenceWindows,
  longestWindowPerFault,
  namesrvLanes
} from '../../../common/replay/divergence'

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`

/**
 * One lane per name server showing what it listed over the run, with the windows in which name
 * servers of different rooms disagreed highlighted across the lanes, and the longest such window
 * per fault.
 */
export const NamesrvSwimlanes = memo(function NamesrvSwimlanes({
  samples,
  faults,
  originMs,
  endMs,
  cursorMs
}: {
  samples: readonly NamesrvSample[]
  faults: readonly FaultMark[]
  originMs: number
  endMs?: number
  /** The replay's playhead, drawn as a line. */
  cursorMs?: number
}) {
  const view = useMemo(() => {
    const windows = divergenceWindows(samples)
    const last = Math.max(endMs ?? 0, samples[samples.length - 1]?.atMs ?? originMs)
    return {
      lanes: namesrvLanes(samples, last),
      windows,
      perFault: longestWindowPerFault(windows, faults),
      span: Math.max(1, last - originMs)
    }
  }, [samples, faults, originMs, endMs])
  if (!samples.length) {
    return <p className="muted">No name-server samples were recorded for this run.</p>
  }
  const pct = (t: number) =>
    `${(Math.min(Math.max(t - originMs, 0), view.span) / view.span) * 100}%`
  const width = (a: number, b: number) =>
    `${(Math.max(0, Math.min(b, originMs + view.span) - Math.max(a, originMs)) / view.span) * 100}%`
  return (
    <div className="swimlanes">
      <div className="swimlane-tracks" role="group" aria-label="Name-server views over time">
        {view.lanes.map((lane) => (
          <div key={lane.namesrvId} className="swimlane">
            <span className="swimlane-name mono">
              {lane.namesrvId} <span className="muted">({lane.room})</span>
            </span>
            <ol className="swimlane-track" aria-label={`${lane.namesrvId} (${lane.room})`}>
              {lane.segments.map((seg) => {
                const text = seg.error
                  ? `did not answer from ${secs(seg.startMs - originMs)}`
                  : `lists ${seg.brokers.join(', ') || 'no broker'} from ${secs(seg.startMs - originMs)}`
                return (
                  <li
                    key={seg.startMs}
                    className={`swimlane-seg${seg.error ? ' is-error' : ''}`}
                    style={{ left: pct(seg.startMs), width: width(seg.startMs, seg.endMs) }}
                    title={text}
                  >
                    <span className="swimlane-seg-text">
                      {seg.error ? 'no answer' : seg.brokers.join(' ')}
                    </span>
                    <span className="sr-only">{text}</span>
                  </li>
                )
              })}
            </ol>
          </div>
        ))}
        <div className="swimlane-overlay" aria-hidden="true">
          {view.windows.map((w) => (
            <div
              key={w.startMs}
              className="swimlane-window"
              style={{ left: pct(w.startMs), width: width(w.startMs, w.endMs) }}
            />
          ))}
          {cursorMs !== undefined && (
            <div className="swimlane-cursor" style={{ left: pct(cursorMs) }} />
          )}
        </div>
      </div>
      <table
        className="grid-table swimlane-summary"
        aria-label="Longest name-server disagreement per fault"
      >
        <thead>
          <tr>
            <th scope="col">Fault</th>
            <th scope="col" className="num">
              Longest disagreement
            </th>
            <th scope="col">About</th>
          </tr>
        </thead>
        <tbody>
          {view.perFault.map((g, i) => (
            <tr key={i}>
              <td>
                {g.fault
                  ? `${g.fault.label} at ${secs(g.fault.atMs - originMs)}`
                  : 'before any fault'}
              </td>
              <td className="num mono">
                {g.longest
                  ? `${g.longest.durationMs} ms${g.longest.open ? ' (still open)' : ''}`
                  : 'none'}
              </td>
              <td>
                {g.longest
                  ? g.longest.brokers
                      .map(
                        (b) =>
                          `${b.brokerName}${b.scope === 'cluster' ? '' : ` (route of ${b.scope})`}: listed by ${b.listedBy.join(', ')}, not by ${b.missingFrom.join(', ')}`
                      )
                      .join('; ')
                  : '–'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
})
