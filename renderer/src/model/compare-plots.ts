import type { CounterSample } from '../../../common/scenario/metrics'
import { countersToRates } from '../../../common/scenario/metrics'
import type { ScenarioReport } from '../../../common/scenario/schema'
import type { FaultMarker, StoredEvent, TimeSeriesData } from './plot-data'
import { faultMarkers, plotOrigin } from './plot-data'

/** One run as Runs ▸ Compare reads it. */
export interface ComparedRun {
  runId: number
  startedAt: number
  report: ScenarioReport | null
  events: readonly StoredEvent[]
  counters: readonly CounterSample[]
}

/** Where a run's time axis is zero when runs are compared: its first fault, else its workload start. */
export interface Anchor {
  atMs: number
  at: 'first fault' | 'start'
  /** The first fault's caption, when there is one. */
  label: string | null
}

export function anchorOf(run: ComparedRun): Anchor {
  const origin = plotOrigin(run.report, run.startedAt)
  const first = faultMarkers(run.events, origin, run.report)[0]
  return first
    ? { atMs: origin + first.x * 1000, at: 'first fault', label: first.label }
    : { atMs: origin, at: 'start', label: null }
}

/**
 * One line per run: the rate of `metric` summed over its clients, in bins of `binS` seconds on
 * one axis whose zero is each run's anchor (its first fault), so the same fault lines up. A
 * client's rate in a bin is the mean of its samples there; a bin no client sampled is a gap.
 */
export function overlaidRates(
  runs: readonly ComparedRun[],
  metric: string,
  binS = 1
): TimeSeriesData {
  const perRun = runs.map((run) => {
    const anchor = anchorOf(run).atMs
    const bins = new Map<number, Map<string, number[]>>()
    for (const p of countersToRates(run.counters)) {
      // A rate point closes its interval: one ending at 1 s is the bin [0, 1).
      const x = (Math.ceil((p.atMs - anchor) / 1000 / binS) - 1) * binS
      const clients = bins.get(x) ?? new Map<string, number[]>()
      clients.set(p.clientId, [...(clients.get(p.clientId) ?? []), p.rates[metric] ?? 0])
      bins.set(x, clients)
    }
    const totals = new Map<number, number>()
    for (const [x, clients] of bins) {
      let sum = 0
      for (const rates of clients.values()) sum += rates.reduce((a, b) => a + b, 0) / rates.length
      totals.set(x, Math.round(sum * 1000) / 1000)
    }
    return totals
  })
  const xs = [...new Set(perRun.flatMap((t) => [...t.keys()]))].sort((a, b) => a - b)
  return {
    xs,
    series: runs.map((run, i) => ({
      clientId: `run ${run.runId}`,
      values: xs.map((x) => perRun[i]!.get(x) ?? null)
    }))
  }
}

/** The shared zero, marked when at least one run had a fault there. */
export function anchorMarkers(runs: readonly ComparedRun[]): FaultMarker[] {
  const faulted = runs.filter((r) => anchorOf(r).at === 'first fault')
  if (!faulted.length) return []
  const labels = [...new Set(faulted.map((r) => anchorOf(r).label))]
  return [{ x: 0, label: labels.length === 1 ? `first fault: ${labels[0]}` : 'first fault' }]
}
