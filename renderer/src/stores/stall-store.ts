import { create } from 'zustand'
import type { Stalls } from '../../../common/replay/stalls'
import { applyStallEvent } from '../../../common/replay/stalls'

export type { Stalls, StalledQueue } from '../../../common/replay/stalls'
export { applyStallEvent, describeStalls } from '../../../common/replay/stalls'

export interface StallState {
  stalls: Stalls
  /** Wire `ledger:event` here; only the lock and pull events (and what ends them) are read. */
  applyLedgerEvents(batch: readonly unknown[]): void
  reset(): void
}

/** Consumers' stalled queues, for the canvas badge. */
export const useStallStore = create<StallState>()((set, get) => ({
  stalls: {},
  applyLedgerEvents(batch) {
    let s = get().stalls
    for (const raw of batch) s = applyStallEvent(s, raw)
    if (s !== get().stalls) set({ stalls: s })
  },
  reset() {
    set({ stalls: {} })
  }
}))
