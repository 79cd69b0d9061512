import { create } from 'zustand'
import type { EventPayload, RequestOutput } from '../../../common/contract'
import type { ScenarioReport } from '../../../common/scenario/schema'
import { invoke } from '../lib/bridge'
import { parseReport } from '../model/plot-data'
import { toast } from './ui-store'

export type BuiltinScenario = RequestOutput<'scenario:list'>[number]
export type KubeContexts = RequestOutput<'kubernetes:contexts'>
export type ScenarioProgress = EventPayload<'scenario:progress'>

const MAX_PROGRESS = 200

export interface ScenarioState {
  scenarios: BuiltinScenario[]
  loaded: boolean
  running: boolean
  /** Name (or id) of the scenario running or last run. */
  scenario: string | null
  runId: number | null
  busy: 'starting' | 'cancelling' | null
  progress: ScenarioProgress[]
  report: ScenarioReport | null
  /** The scenario whose Sweep dialog is open. */
  sweepFor: string | null
  /** The user's kubeconfig contexts (null until read), for the run target selector. */
  contexts: KubeContexts | null
  /** Where Run runs: null for this machine, else a kubeconfig context's name. */
  target: string | null
  load(): Promise<void>
  /** Reads the kubeconfig's contexts again (the selector's list). */
  loadContexts(): Promise<void>
  setTarget(context: string | null): void
  /**
   * Starts a built-in scenario, as a what-if sweep with `sweep`. Resolves with why it could not
   * start (also toasted for a plain run), or null.
   */
  run(id: string, sweep?: { vary: string[]; runs: number }): Promise<string | null>
  openSweep(id: string | null): void
  cancel(): Promise<void>
  applyState(state: EventPayload<'scenario:state'>): void
  applyProgress(batch: readonly ScenarioProgress[]): void
  applyReport(payload: EventPayload<'scenario:report'>): void
}

/** Built-in scenarios, the one that runs, its progress and its scorecard. */
export const useScenarioStore = create<ScenarioState>()((set, get) => ({
  scenarios: [],
  loaded: false,
  running: false,
  scenario: null,
  runId: null,
  busy: null,
  progress: [],
  report: null,
  sweepFor: null,
  contexts: null,
  target: null,

  async load() {
    try {
      set({ scenarios: await invoke('scenario:list', {}), loaded: true })
    } catch (err) {
      set({ loaded: true })
      toast('error', `Could not list scenarios: ${(err as Error).message}`)
    }
  },

  async loadContexts() {
    try {
      const contexts = await invoke('kubernetes:contexts', {})
      const target = get().target
      // A context that is gone from the file is no longer a target.
      const kept = target && contexts.contexts.some((c) => c.name === target) ? target : null
      set({ contexts, target: kept })
    } catch (err) {
      toast('error', `Could not read the kubeconfig: ${(err as Error).message}`)
    }
  },

  setTarget(context) {
    set({ target: context })
  },

  async run(id, sweep) {
    if (get().running || get().busy) return 'a scenario is already running'
    const name = get().scenarios.find((s) => s.id === id)?.name ?? id
    set({ busy: 'starting', progress: [], report: null, scenario: name })
    try {
      const context = sweep ? null : get().target
      const r = await invoke(
        'scenario:run',
        sweep
          ? { id, ...sweep }
          : context
            ? { id, target: { kind: 'kubernetes', context } }
            : { id }
      )
      set({ running: true, scenario: r.scenario, sweepFor: null })
      toast(
        'info',
        `${sweep ? 'Sweep of' : 'Scenario'} ${r.scenario} started${context ? ` on Kubernetes context ${context}` : ''}`
      )
      return null
    } catch (err) {
      const message = (err as Error).message
      // The Sweep dialog stays open and shows it next to what to fix.
      if (!sweep) toast('error', `Scenario ${name} failed to start: ${message}`)
      return message
    } finally {
      set({ busy: null })
    }
  },

  openSweep(id) {
    set({ sweepFor: id })
  },

  async cancel() {
    if (!get().running || get().busy) return
    set({ busy: 'cancelling' })
    try {
      const { cancelled } = await invoke('scenario:cancel', {})
      toast('info', cancelled ? 'Scenario cancelled' : 'No scenario was running')
    } catch (err) {
      toast('error', `Cancel failed: ${(err as Error).message}`)
    } finally {
      set({ busy: null })
    }
  },

  applyState(state) {
    const starting = state.running && !get().running
    set({
      running: state.running,
      scenario: state.scenario ?? get().scenario,
      runId: state.runId,
      ...(starting ? { progress: [], report: null } : {})
    })
  },

  applyProgress(batch) {
    if (!batch.length) return
    set({ progress: [...get().progress, ...batch].slice(-MAX_PROGRESS) })
  },

  applyReport(payload) {
    const report = parseReport(payload.report)
    if (!report) {
      toast('warning', 'The scenario finished but its report could not be read')
      return
    }
    set({ report, runId: report.runId })
    toast(
      report.passed ? 'success' : 'error',
      `Scenario ${report.scenario} ${report.passed ? 'passed' : 'failed'}`
    )
  }
}))
