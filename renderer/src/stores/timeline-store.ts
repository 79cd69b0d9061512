import { create } from 'zustand'
import type { EventPayload } from '../../../common/contract'

export type TimelineEvent = EventPayload<'ledger:event'> & { seq: number }

/** The timeline keeps the newest events only; older ones stay in the run's ledger. */
export const TIMELINE_CAP = 500

export interface TimelineState {
  runId: number | null
  events: TimelineEvent[]
  /** Events dropped from the front because of the cap. */
  dropped: number
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

  applyLedgerEvents(batch) {
    let { runId, events, dropped } = get()
    let changed = false
    for (const e of batch) {
      // Periodic rows would bury the decisions: counters feed the plots, name-server samples the swimlanes.
      if (e.kind === 'counters' || e.kind === 'namesrv-view') continue
      if (e.runId === runId && isNetworkTwin(e, events)) continue
      if (e.runId !== runId) {
        // A new run starts a new timeline.
        runId = e.runId
        events = []
        dropped = 0
      }
      if (!changed) events = [...events]
      changed = true
      events.push({ ...e, seq: ++seq })
    }
    if (!changed && runId === get().runId) return
    if (events.length > TIMELINE_CAP) {
      dropped += events.length - TIMELINE_CAP
      events = events.slice(-TIMELINE_CAP)
    }
    set({ runId, events, dropped })
  },

  clear() {
    set({ runId: null, events: [], dropped: 0 })
  }
}))
