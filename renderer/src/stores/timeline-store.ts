import { create } from 'zustand'
import type { EventPayload } from '../../../common/contract'

export type TimelineEvent = EventPayload<'ledger:event'> & {
  seq: number
  /** How many events this row stands for (repeats folded into it), when more than one. */
  repeats?: number
  /** When the last of them happened. */
  lastAtMs?: number
}

/** The timeline keeps the newest events only; older ones stay in the run's ledger. */
export const TIMELINE_CAP = 500

/**
 * Kinds a failing broker repeats for every send or pull while it is down: at load they pushed the
 * decisions (failovers, faults, phases) past the cap within a minute.
 */
const REPEATING = new Set([
  'send-attempt-failed',
  'send-failed',
  'pull-failed',
  'pull-resumed',
  'broker-isolated',
  'broker-recovered'
])
/** A repeat folds into a row among the newest this many, at most this long after its last one. */
const FOLD_ROWS = 30
const FOLD_MS = 5000

const foldKey = (e: Pick<TimelineEvent, 'kind' | 'clientId' | 'data'>): string => {
  const d = e.data as { brokerName?: unknown }
  return `${e.kind}|${e.clientId ?? ''}|${String(d.brokerName ?? '')}`
}

/**
 * The row a repeating event folds into: the newest row among the last FOLD_ROWS of the same kind,
 * client and broker whose last repeat is at most FOLD_MS old; -1 when it starts a row of its own.
 */
export function foldTarget(
  e: Pick<TimelineEvent, 'kind' | 'clientId' | 'data' | 'atMs'>,
  events: readonly TimelineEvent[]
): number {
  if (!REPEATING.has(e.kind)) return -1
  const key = foldKey(e)
  for (let i = events.length - 1; i >= Math.max(0, events.length - FOLD_ROWS); i--) {
    const r = events[i]!
    if (foldKey(r) !== key) continue
    return e.atMs - (r.lastAtMs ?? r.atMs) <= FOLD_MS ? i : -1
  }
  return -1
}

export interface TimelineState {
  runId: number | null
  events: TimelineEvent[]
  /** Events dropped from the front because of the cap. */
  dropped: number
  /** Events folded into an earlier row as repeats (counted there, not shown as rows). */
  folded: number
  applyLedgerEvents(batch: readonly EventPayload<'ledger:event'>[]): void
  clear(): void
}

let seq = 0

/**
 * A `network-fault` / `network-heal` row repeats the `fault` row the engine writes with it (same
 * time, the form replays read); the Timeline shows the `fault` row only, which says more.
 */
export function isNetworkTwin(
  e: Pick<TimelineEvent, 'kind' | 'atMs'>,
  recent: readonly Pick<TimelineEvent, 'kind' | 'atMs' | 'data'>[]
): boolean {
  if (e.kind !== 'network-fault' && e.kind !== 'network-heal') return false
  for (let i = recent.length - 1; i >= Math.max(0, recent.length - 4); i--) {
    const r = recent[i]!
    if (r.kind === 'fault' && r.atMs === e.atMs && r.data.network) return true
  }
  return false
}

/** Ledger events of the live run, newest last (counters are left to the plots). */
export const useTimelineStore = create<TimelineState>()((set, get) => ({
  runId: null,
  events: [],
  dropped: 0,
  folded: 0,

  applyLedgerEvents(batch) {
    let { runId, events, dropped, folded } = get()
    let changed = false
    for (const e of batch) {
      // Periodic rows would bury the decisions: counters feed the plots, name-server samples the swimlanes.
      if (e.kind === 'counters' || e.kind === 'namesrv-view' || e.kind === 'broker-load') continue
      if (e.runId === runId && isNetworkTwin(e, events)) continue
      if (e.runId !== runId) {
        // A new run starts a new timeline.
        runId = e.runId
        events = []
        dropped = 0
        folded = 0
      }
      if (!changed) events = [...events]
      changed = true
      const into = foldTarget(e, events)
      if (into >= 0) {
        const row = events[into]!
        events[into] = { ...row, repeats: (row.repeats ?? 1) + 1, lastAtMs: e.atMs }
        folded++
      } else events.push({ ...e, seq: ++seq })
    }
    if (!changed && runId === get().runId) return
    if (events.length > TIMELINE_CAP) {
      dropped += events.length - TIMELINE_CAP
      events = events.slice(-TIMELINE_CAP)
    }
    set({ runId, events, dropped, folded })
  },

  clear() {
    set({ runId: null, events: [], dropped: 0, folded: 0 })
  }
}))
