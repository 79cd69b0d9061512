import type { Stalls } from '../../../common/replay/stalls'
import { create } from 'zustand'
import type { RunRowView } from '../../../common/contract'
import type {
  ActiveFault,
  ActiveNetworkFault,
  CanvasNodeState,
  ReplayChoice,
  ReplayEvent,
  ReplayFailover,
  ReplayMarker,
  ReplayTopology
} from '../../../common/replay'
import {
  ReplayCursor,
  compareEvents,
  replayChoices,
  replayMarkers,
  replayNodeStates,
  replayTopology
} from '../../../common/replay'
import type { NamesrvSample } from '../../../common/replay/divergence'
import { namesrvSamples } from '../../../common/replay/divergence'
import type { Topology } from '../../../common/topology'
import { validateTopology } from '../../../common/topology'
import { invoke } from '../lib/bridge'
import type { LinkFault } from '../model/network-links'
import { networkShapesOf, replayLinkFaults } from '../model/network-links'
import type { EditorState } from './editor-store'
import { useEditorStore } from './editor-store'
import { toast } from './ui-store'

/** Speeds the control offers, slowest first. */
export const REPLAY_SPEEDS = [0.5, 1, 2, 4, 8] as const
/** How far ← and → move the playhead. */
export const REPLAY_STEP_MS = 1000
/** Rows asked for per `runs:get` page. */
const PAGE = 5000
/** A replayed failover flashes its client's edges this long (replay time). */
const REPLAY_FLASH_MS = 1600

export interface ReplayViewState {
  active: boolean
  loading: boolean
  run: RunRowView | null
  /** Where the run starts and ends (epoch ms of its first and last rows). */
  startMs: number
  endMs: number
  t: number
  playing: boolean
  speed: number
  markers: readonly ReplayMarker[]
  samples: readonly NamesrvSample[]
  /** What the canvas draws: node states and client edges at `t`. */
  nodeStates: Readonly<Record<string, CanvasNodeState>>
  choices: Readonly<Record<string, ReplayChoice>>
  flashing: ReadonlySet<string>
  failovers: readonly ReplayFailover[]
  faults: readonly ActiveFault[]
  networkFaults: readonly ActiveNetworkFault[]
  /** The network faults at `t` as the canvas's links draw them. */
  linkFaults: readonly LinkFault[]
  /** Orderly consumers' queues stalled for a lock at `t` (the canvas badge, as live). */
  stalls: Stalls
  /** True when the run's topology was not stored and the open document stands in for it. */
  usingOpenDocument: boolean
  open(runId: number): Promise<void>
  close(): void
  seek(t: number): void
  play(): void
  pause(): void
  toggle(): void
  step(direction: -1 | 1): void
  setSpeed(speed: number): void
  faster(): void
  slower(): void
}

let cursor: ReplayCursor | null = null
let topo: ReplayTopology = replayTopology(null)
/** The document that was open before the replay, put back when it ends. */
let saved: EditorState | null = null
/** Direction and mode of the run's network faults (see networkShapesOf). */
let shapes: ReadonlyMap<string, Record<string, unknown>> = new Map()
let frame: number | null = null

function sameRecord<T>(
  a: Readonly<Record<string, T>>,
  b: Record<string, T>,
  eq: (x: T, y: T) => boolean
) {
  const ka = Object.keys(a)
  return ka.length === Object.keys(b).length && ka.every((k) => k in b && eq(a[k]!, b[k]!))
}

const sameNetworkFaults = (a: readonly ActiveNetworkFault[], b: readonly ActiveNetworkFault[]) =>
  a.length === b.length && a.every((f, i) => f.key === b[i]!.key && f.at === b[i]!.at)

const sameChoice = (a: ReplayChoice, b: ReplayChoice) =>
  a.namesrvId === b.namesrvId && a.brokerId === b.brokerId && a.room === b.room

/** Every event of a run, page by page, in ledger time order. */
async function loadRun(
  runId: number
): Promise<{ run: RunRowView; topology: unknown; events: ReplayEvent[] }> {
  const first = await invoke('runs:get', { id: runId, afterId: 0, limit: PAGE })
  const events: ReplayEvent[] = [...first.events]
  let next = first.nextAfterId
  // An engine that does not page answers without nextAfterId: its first page is all there is.
  while (typeof next === 'number') {
    const page = await invoke('runs:get', { id: runId, afterId: next, limit: PAGE })
    events.push(...page.events)
    next = page.nextAfterId
  }
  return { run: first.run, topology: first.topology ?? null, events: events.sort(compareEvents) }
}

function stopFrames(): void {
  if (frame !== null) cancelAnimationFrame(frame)
  frame = null
}

/**
 * Runs ▸ Replay: plays a recorded run on the canvas from its ledger. The canvas shows the run's
 * topology read-only; node states and client edges come from the replay state at `t`.
 */
export const useReplayStore = create<ReplayViewState>()((set, get) => {
  /** Recomputes the canvas view at t, keeping objects that did not change. */
  const show = (t: number) => {
    if (!cursor) return
    const s = get()
    const clamped = Math.min(Math.max(t, s.startMs), s.endMs)
    const state = cursor.seek(clamped)
    const nodeStates = replayNodeStates(state, topo)
    const choices = replayChoices(state)
    const flashing = new Set(
      Object.values(state.clients)
        .filter((c) => c.lastFailoverAt !== null && clamped - c.lastFailoverAt < REPLAY_FLASH_MS)
        .map((c) => c.clientId)
    )
    set({
      t: clamped,
      nodeStates: sameRecord(s.nodeStates, nodeStates, (a, b) => a === b)
        ? s.nodeStates
        : nodeStates,
      choices: sameRecord(s.choices, choices, sameChoice) ? s.choices : choices,
      flashing:
        flashing.size === s.flashing.size && [...flashing].every((id) => s.flashing.has(id))
          ? s.flashing
          : flashing,
      failovers: state.failovers.length === s.failovers.length ? s.failovers : state.failovers,
      faults: state.faults,
      networkFaults: state.networkFaults,
      stalls: state.stalls,
      ...(sameNetworkFaults(s.networkFaults, state.networkFaults)
        ? {}
        : { linkFaults: replayLinkFaults(state.networkFaults, shapes) })
    })
  }

  const tick = (last: number) => (now: number) => {
    const s = get()
    if (!s.playing || !s.active) return
    const next = s.t + (now - last) * s.speed
    show(next)
    if (next >= s.endMs) {
      set({ playing: false })
      frame = null
      return
    }
    frame = requestAnimationFrame(tick(now))
  }

  return {
    active: false,
    loading: false,
    run: null,
    startMs: 0,
    endMs: 0,
    t: 0,
    playing: false,
    speed: 1,
    markers: [],
    samples: [],
    nodeStates: {},
    choices: {},
    flashing: new Set(),
    failovers: [],
    faults: [],
    networkFaults: [],
    linkFaults: [],
    stalls: {},
    usingOpenDocument: false,

    async open(runId) {
      if (get().loading) return
      set({ loading: true })
      try {
        const { run, topology, events } = await loadRun(runId)
        const valid = topology ? validateTopology(topology) : null
        const doc: Topology | null = valid?.ok ? valid.topology : null
        if (get().active) get().close()
        const editor = useEditorStore.getState()
        saved = { ...editor }
        if (doc) editor.load(doc, { path: null, fileName: `run ${run.id} (replay)` })
        topo = replayTopology(doc ?? useEditorStore.getState().history.present)
        cursor = new ReplayCursor(events, topo)
        shapes = networkShapesOf(events)
        const span = cursor.span ?? { startMs: run.startedAt, endMs: run.endedAt ?? run.startedAt }
        set({
          active: true,
          run,
          startMs: span.startMs,
          endMs: Math.max(span.endMs, span.startMs + 1),
          playing: false,
          markers: replayMarkers(events),
          samples: namesrvSamples(events),
          nodeStates: {},
          choices: {},
          flashing: new Set(),
          failovers: [],
          usingOpenDocument: !doc
        })
        show(span.startMs)
      } catch (err) {
        toast('error', `Could not replay run ${runId}: ${(err as Error).message}`)
      } finally {
        set({ loading: false })
      }
    },

    close() {
      stopFrames()
      if (saved) useEditorStore.setState(saved)
      saved = null
      cursor = null
      topo = replayTopology(null)
      set({
        active: false,
        playing: false,
        run: null,
        markers: [],
        samples: [],
        nodeStates: {},
        choices: {},
        flashing: new Set(),
        failovers: [],
        faults: [],
        networkFaults: [],
        linkFaults: [],
        stalls: {}
      })
      shapes = new Map()
    },

    seek(t) {
      show(t)
    },

    play() {
      const s = get()
      if (!s.active || s.playing) return
      // Play from the start again once at the end.
      if (s.t >= s.endMs) show(s.startMs)
      set({ playing: true })
      stopFrames()
      frame = requestAnimationFrame((now) => {
        frame = requestAnimationFrame(tick(now))
      })
    },

    pause() {
      stopFrames()
      set({ playing: false })
    },

    toggle() {
      if (get().playing) get().pause()
      else get().play()
    },

    step(direction) {
      show(get().t + direction * REPLAY_STEP_MS)
    },

    setSpeed(speed) {
      if (REPLAY_SPEEDS.includes(speed as (typeof REPLAY_SPEEDS)[number])) set({ speed })
    },

    faster() {
      const i = REPLAY_SPEEDS.indexOf(get().speed as (typeof REPLAY_SPEEDS)[number])
      set({ speed: REPLAY_SPEEDS[Math.min(REPLAY_SPEEDS.length - 1, i + 1)]! })
    },

    slower() {
      const i = REPLAY_SPEEDS.indexOf(get().speed as (typeof REPLAY_SPEEDS)[number])
      set({ speed: REPLAY_SPEEDS[Math.max(0, i - 1)]! })
    }
  }
})
