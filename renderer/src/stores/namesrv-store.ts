import { create } from 'zustand'
import type { NamesrvSample } from '../../../common/replay/divergence'
import { namesrvSamples } from '../../../common/replay/divergence'

/** Samples kept for the live swimlanes (about 10 minutes of 3 name servers sampled each second). */
export const NAMESRV_SAMPLE_CAP = 2000

export interface NamesrvState {
  runId: number | null
  samples: readonly NamesrvSample[]
  /** `ledger:event` batches; only `namesrv-view` rows are kept. */
  applyLedgerEvents(
    batch: readonly { runId: number; atMs: number; kind: string; data: Record<string, unknown> }[]
  ): void
  clear(): void
}

/** What each name server listed during the live run, for the Run view's swimlanes. */
export const useNamesrvStore = create<NamesrvState>()((set, get) => ({
  runId: null,
  samples: [],

  applyLedgerEvents(batch) {
    const views = batch.filter((e) => e.kind === 'namesrv-view')
    if (!views.length) return
    let { runId, samples } = get()
    const last = views[views.length - 1]!
    if (last.runId !== runId) {
      runId = last.runId
      samples = []
    }
    const next = [...samples, ...namesrvSamples(views.filter((e) => e.runId === runId))]
    set({
      runId,
      samples: next.length > NAMESRV_SAMPLE_CAP ? next.slice(-NAMESRV_SAMPLE_CAP) : next
    })
  },

  clear() {
    set({ runId: null, samples: [] })
  }
}))
