import { ChevronDown, ChevronRight, Pause, Play, SkipBack, SkipForward, X } from 'lucide-react'
import type { KeyboardEvent as ReactKeyboardEvent } from 'react'
import { memo, useEffect, useMemo, useState } from 'react'
import { failoverLine, layoutMarkerLabels } from '../model/plot-data'
import { REPLAY_SPEEDS, REPLAY_STEP_MS, useReplayStore } from '../stores/replay-store'
import { NamesrvSwimlanes } from './namesrv-swimlanes'

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`
/** A mark's width along the scrub bar, in thousandths of it (about 10 px on a wide bar). */
const MARK_WIDTH_PERMILLE = 12
const MARK_ROWS = 6
const MARK_ROW_PX = 13

/** Space, ←/→, Home/End and +/-: the replay's keys, wherever focus is outside a text field. */
export function replayKey(
  key: string
): 'toggle' | 'back' | 'forward' | 'start' | 'end' | 'faster' | 'slower' | null {
  switch (key) {
    case ' ':
    case 'Spacebar':
      return 'toggle'
    case 'ArrowLeft':
      return 'back'
    case 'ArrowRight':
      return 'forward'
    case 'Home':
      return 'start'
    case 'End':
      return 'end'
    case '+':
    case '=':
      return 'faster'
    case '-':
    case '_':
      return 'slower'
    default:
      return null
  }
}

function runKey(action: NonNullable<ReturnType<typeof replayKey>>): void {
  const r = useReplayStore.getState()
  switch (action) {
    case 'toggle':
      return r.toggle()
    case 'back':
      return r.step(-1)
    case 'forward':
      return r.step(1)
    case 'start':
      return r.seek(r.startMs)
    case 'end':
      return r.seek(r.endMs)
    case 'faster':
      return r.faster()
    case 'slower':
      return r.slower()
  }
}

/** Whether a key press belongs to a field that uses it itself. */
function ownsKeys(el: EventTarget | null): boolean {
  if (!(el instanceof HTMLElement)) return false
  if (el.isContentEditable) return true
  if (el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) return true
  return el instanceof HTMLInputElement && el.type !== 'range'
}

function useReplayKeys(active: boolean): void {
  useEffect(() => {
    if (!active) return
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || ownsKeys(e.target)) return
      // Space on a button activates it; leave buttons their own Space.
      if (e.key === ' ' && e.target instanceof HTMLButtonElement) return
      const action = replayKey(e.key)
      if (!action) return
      e.preventDefault()
      e.stopPropagation()
      runKey(action)
    }
    window.addEventListener('keydown', onKey, true)
    return () => window.removeEventListener('keydown', onKey, true)
  }, [active])
}

/** The scrub bar: a slider with the run's faults and failovers marked along it. */
const Scrubber = memo(function Scrubber() {
  const startMs = useReplayStore((s) => s.startMs)
  const endMs = useReplayStore((s) => s.endMs)
  const t = useReplayStore((s) => s.t)
  const markers = useReplayStore((s) => s.markers)
  const span = Math.max(1, endMs - startMs)
  // Marks close together (a fault and the failovers it causes) stack in rows, so each stays clickable.
  const rows = useMemo(
    () =>
      layoutMarkerLabels(
        markers.map((m) => ((m.atMs - startMs) / span) * 1000),
        markers.map(() => MARK_WIDTH_PERMILLE),
        MARK_ROWS,
        1
      ).map((p) => (p.shown ? p.row : MARK_ROWS - 1)),
    [markers, startMs, span]
  )
  const height = (Math.max(0, ...rows) + 1) * MARK_ROW_PX
  const onKeyDown = (e: ReactKeyboardEvent<HTMLInputElement>) => {
    // The slider's own arrows would move by one step of its range; the replay's keys apply instead.
    const action = replayKey(e.key)
    if (action) {
      e.preventDefault()
      e.stopPropagation()
      runKey(action)
    }
  }
  return (
    <div className="replay-scrub" style={{ paddingBottom: height + 2 }}>
      <input
        type="range"
        className="replay-range"
        aria-label="Replay position"
        min={0}
        max={span}
        step={100}
        value={Math.round(t - startMs)}
        aria-valuetext={`${secs(t - startMs)} of ${secs(span)}`}
        onChange={(e) => useReplayStore.getState().seek(startMs + Number(e.currentTarget.value))}
        onKeyDown={onKeyDown}
      />
      <ol className="replay-marks" aria-label="Faults and failovers" style={{ height }}>
        {markers.map((m, i) => (
          <li
            key={i}
            className={`replay-mark mark-${m.kind}`}
            style={{ left: `${((m.atMs - startMs) / span) * 100}%`, top: rows[i]! * MARK_ROW_PX }}
          >
            <button
              type="button"
              className="replay-mark-btn"
              aria-label={`Jump to ${m.label} at ${secs(m.atMs - startMs)}`}
              title={`${m.label} at ${secs(m.atMs - startMs)}`}
              onClick={() => useReplayStore.getState().seek(m.atMs)}
            />
          </li>
        ))}
      </ol>
    </div>
  )
})

/** What happened so far: failovers and faults in effect at the playhead. */
const ReplayFacts = memo(function ReplayFacts() {
  const failovers = useReplayStore((s) => s.failovers)
  const faults = useReplayStore((s) => s.faults)
  const networkFaults = useReplayStore((s) => s.networkFaults)
  const startMs = useReplayStore((s) => s.startMs)
  return (
    <div className="replay-facts">
      <div>
        <h3 className="replay-facts-title">Faults in effect</h3>
        {faults.length + networkFaults.length ? (
          <ul aria-label="Faults in effect" className="replay-list">
            {faults.map((f) => (
              <li key={f.nodeId}>
                {f.action} {f.nodeId} <span className="muted">since {secs(f.at - startMs)}</span>
              </li>
            ))}
            {networkFaults.map((f) => (
              <li key={f.key}>
                network {f.action}{' '}
                {[f.target.join(', '), f.peer.join(', ')].filter(Boolean).join(' ↔ ')}{' '}
                <span className="muted">since {secs(f.at - startMs)}</span>
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">none</p>
        )}
      </div>
      <div>
        <h3 className="replay-facts-title">Failovers so far</h3>
        {failovers.length ? (
          <ol aria-label="Failovers so far" className="replay-list">
            {failovers.map((f, i) => (
              <li key={i}>
                <span className="mono muted">{secs(f.at - startMs)}</span>{' '}
                {failoverLine({
                  atMs: f.at,
                  clientId: f.clientId,
                  kind: f.kind,
                  from: f.from,
                  fromRoom: f.fromRoom,
                  to: f.to,
                  toRoom: f.toRoom,
                  reason: '',
                  durationMs: f.durationMs
                })}
              </li>
            ))}
          </ol>
        ) : (
          <p className="muted">none</p>
        )}
      </div>
    </div>
  )
})

function Lanes() {
  const samples = useReplayStore((s) => s.samples)
  const markers = useReplayStore((s) => s.markers)
  const startMs = useReplayStore((s) => s.startMs)
  const endMs = useReplayStore((s) => s.endMs)
  const t = useReplayStore((s) => s.t)
  const faults = useMemo(
    () =>
      markers.filter((m) => m.kind !== 'failover').map((m) => ({ atMs: m.atMs, label: m.label })),
    [markers]
  )
  return (
    <NamesrvSwimlanes
      samples={samples}
      faults={faults}
      originMs={startMs}
      endMs={endMs}
      cursorMs={t}
    />
  )
}

/** Runs ▸ Replay: the controls under the canvas while a recorded run plays on it. */
export const ReplayBar = memo(function ReplayBar() {
  const active = useReplayStore((s) => s.active)
  const run = useReplayStore((s) => s.run)
  const playing = useReplayStore((s) => s.playing)
  const speed = useReplayStore((s) => s.speed)
  const t = useReplayStore((s) => s.t)
  const startMs = useReplayStore((s) => s.startMs)
  const endMs = useReplayStore((s) => s.endMs)
  const usingOpenDocument = useReplayStore((s) => s.usingOpenDocument)
  const hasSamples = useReplayStore((s) => s.samples.length > 0)
  const [details, setDetails] = useState(false)
  useReplayKeys(active)
  if (!active || !run) return null
  const r = useReplayStore.getState()
  return (
    <section className="replay-bar" aria-label={`Replay of run ${run.id}`}>
      <div className="replay-controls">
        <button
          type="button"
          className="icon-btn"
          aria-label="Back to start"
          title="Back to start (Home)"
          aria-keyshortcuts="Home"
          onClick={() => r.seek(startMs)}
        >
          <SkipBack size={16} aria-hidden="true" />
        </button>
        <button
          type="button"
          className="btn btn-small btn-primary replay-play"
          aria-label={playing ? 'Pause' : 'Play'}
          title={`${playing ? 'Pause' : 'Play'} (Space)`}
          aria-keyshortcuts="Space"
          onClick={() => r.toggle()}
        >
          {playing ? <Pause size={14} aria-hidden="true" /> : <Play size={14} aria-hidden="true" />}
          {playing ? 'Pause' : 'Play'}
        </button>
        <button
          type="button"
          className="icon-btn"
          aria-label="To the end"
          title="To the end (End)"
          aria-keyshortcuts="End"
          onClick={() => r.seek(endMs)}
        >
          <SkipForward size={16} aria-hidden="true" />
        </button>
        <label className="replay-speed">
          <span>Speed</span>
          <select
            aria-label="Playback speed"
            aria-keyshortcuts="+ -"
            value={speed}
            onChange={(e) => r.setSpeed(Number(e.currentTarget.value))}
          >
            {REPLAY_SPEEDS.map((v) => (
              <option key={v} value={v}>
                {v}×
              </option>
            ))}
          </select>
        </label>
        <output className="replay-time mono" aria-label="Replay time" aria-live="off">
          {secs(t - startMs)} / {secs(endMs - startMs)}
        </output>
        <span className="replay-title">
          Run {run.id}: {run.scenarioName ?? 'interactive'} on {run.topologyName}
          {usingOpenDocument && (
            <span className="muted">
              {' '}
              (its topology was not stored: shown on the open document)
            </span>
          )}
        </span>
        <span className="spacer" />
        <button
          type="button"
          className="btn btn-small"
          aria-expanded={details}
          onClick={() => setDetails((d) => !d)}
        >
          {details ? (
            <ChevronDown size={12} aria-hidden="true" />
          ) : (
            <ChevronRight size={12} aria-hidden="true" />
          )}
          Details
        </button>
        <button
          type="button"
          className="btn btn-small"
          aria-label="Exit replay"
          onClick={() => r.close()}
        >
          <X size={12} aria-hidden="true" /> Exit replay
        </button>
      </div>
      <Scrubber />
      <p className="sr-only">
        Keys: Space plays or pauses, left and right arrows step {REPLAY_STEP_MS / 1000} s, Home and
        End jump to the start and end, plus and minus change the speed.
      </p>
      {details && (
        <div className="replay-details">
          <ReplayFacts />
          {hasSamples && <Lanes />}
        </div>
      )}
    </section>
  )
})
