import { create } from 'zustand'
import type { RequestOutput } from '../../../common/contract'
import type { Topology } from '../../../common/topology'
import { invoke } from '../lib/bridge'

export type LintFinding = RequestOutput<'topology:lint'>['findings'][number]

export interface LintState {
  /** Production-readiness findings (`drstudio lint`), separate from validation problems. */
  findings: LintFinding[]
  lint(document: Topology): Promise<void>
}

let seq = 0

/** Lint findings of the open document; only the newest request's answer is kept. */
export const useLintStore = create<LintState>()((set) => ({
  findings: [],
  async lint(document) {
    const mine = ++seq
    try {
      const { findings } = await invoke('topology:lint', { document })
      if (mine === seq) set({ findings })
    } catch {
      // An engine without lint (or one that is offline) shows none.
      if (mine === seq) set({ findings: [] })
    }
  }
}))
