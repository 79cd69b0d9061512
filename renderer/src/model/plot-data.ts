import type { FailoverReport, ScenarioReport } from '../../../common/scenario/schema'
import { reportSchema } from '../../../common/scenario/schema'
import type { CounterSample } from '../../../common/scenario/metrics'
import { countersToRates } from '../../../common/scenario/metrics'

/** A stored ledger event as `runs:get` returns it (epoch `atMs`). */
export interface StoredEvent {
  id?: number
  atMs: number
  kind: string
  clientId: string | null
  room: string | null
  data: Record<string, unknown>
}

/** Series sharing one x axis (seconds since the run's origin), as uPlot wants them. */
export interface TimeSeriesData {
  xs: number[]
  series: { clientId: string; values: (number | null)[] }[]
}

export interface FaultMarker {
  /** Seconds since the origin. */
  x: number
  label: string
}

export interface BarData {
  labels: string[]
  values: (number | null)[]
}

/** The report, if the engine stored a valid one; older or partial runs have none. */
export function parseReport(raw: unknown): ScenarioReport | null {
  const parsed = reportSchema.safeParse(raw)
  return parsed.success ? parsed.data : null
}

/** Epoch ms every plot is relative to: the workload start when known, else the run start. */
export function plotOrigin(report: ScenarioReport | null, runStartedAt: number): number {
  return report && report.originMs > 0 ? report.originMs : runStartedAt
}

const round3 = (v: number): number => Math.round(v * 1000) / 1000

/**
 * Per-client rate of one counter (e.g. `sent`, `failed`) over time, in messages per second.
 *
 * Clients are those whose counter ever grows, plus `include` (so a failures plot can show the
 * same producers at zero); a client has null where it has no sample at that x.
 */
export function rateSeries(
  counters: readonly CounterSample[],
  originMs: number,
  metric: string,
  include: readonly string[] = []
): TimeSeriesData {
  const rates = countersToRates(counters)
  const last = new Map<string, number>()
  for (const s of counters) {
    const v = s.values[metric]
    if (v !== undefined) last.set(s.clientId, Math.max(last.get(s.clientId) ?? 0, v))
  }
  const clients = [
    ...new Set([...include, ...[...last].filter(([, v]) => v > 0).map(([id]) => id)])
  ].sort()
  const wanted = new Set(clients)
  const xsSet = new Set<number>()
  const points = new Map<string, Map<number, number>>()
  for (const p of rates) {
    if (!wanted.has(p.clientId)) continue
    const x = round3((p.atMs - originMs) / 1000)
    xsSet.add(x)
    const m = points.get(p.clientId) ?? new Map<number, number>()
    m.set(x, round3(p.rates[metric] ?? 0))
    points.set(p.clientId, m)
  }
  const xs = [...xsSet].sort((a, b) => a - b)
  return {
    xs,
    series: clients.map((clientId) => {
      const m = points.get(clientId)
      return { clientId, values: xs.map((x) => m?.get(x) ?? null) }
    })
  }
}

function nodesOf(data: Record<string, unknown>): string {
  const list = Array.isArray(data.nodes) && data.nodes.length ? data.nodes : data.target
  return Array.isArray(list) ? list.map(String).join(', ') : ''
}

/** Vertical markers for the timeline's faults (kill, pause, …), from ledger events of kind `fault`. */
export function faultMarkers(
  events: readonly StoredEvent[],
  originMs: number,
  report: ScenarioReport | null = null
): FaultMarker[] {
  const fromEvents = events
    .filter((e) => e.kind === 'fault')
    .map((e) => ({
      x: round3((e.atMs - originMs) / 1000),
      label:
        `${typeof e.data.action === 'string' ? e.data.action : 'fault'} ${nodesOf(e.data)}`.trim()
    }))
  if (fromEvents.length || !report) return fromEvents.sort((a, b) => a.x - b.x)
  // Report fault times are already relative to the origin.
  return report.faults
    .map((f) => ({ x: round3(f.atMs / 1000), label: `${f.action} ${f.nodes.join(', ')}`.trim() }))
    .sort((a, b) => a.x - b.x)
}

const KIND_WORD: Record<FailoverReport['kind'], string> = {
  broker: 'broker',
  namesrv: 'name server',
  'consumer-takeover': 'queues'
}

/** "producer-1: broker room1 → room2, 23 ms". */
export function failoverLine(f: FailoverReport): string {
  const from = f.fromRoom ?? f.from ?? '?'
  const to = f.toRoom ?? f.to ?? 'none'
  const ms = f.durationMs === null ? 'not recovered' : `${Math.round(f.durationMs)} ms`
  return `${f.clientId}: ${KIND_WORD[f.kind]} ${from} → ${to}, ${ms}`
}

/** One bar per failover: its RTO (null when the client never recovered). */
export function failoverBars(report: ScenarioReport | null): BarData {
  const list = [...(report?.failovers ?? [])].sort((a, b) => a.atMs - b.atMs)
  return {
    labels: list.map(
      (f) => `${f.clientId} ${KIND_WORD[f.kind]} ${f.fromRoom ?? '?'}→${f.toRoom ?? '?'}`
    ),
    values: list.map((f) => (f.durationMs === null ? null : Math.round(f.durationMs)))
  }
}

/** A client's RTOs for the scorecard: "23 ms", "23 / 41 ms", "never" or "–". */
export function formatRto(rtoMs: readonly (number | null)[]): string {
  if (!rtoMs.length) return '–'
  if (rtoMs.every((v) => v === null)) return 'never'
  return `${rtoMs.map((v) => (v === null ? 'never' : String(Math.round(v)))).join(' / ')} ms`
}

/** A gate value for the scorecard table. */
export function formatGateValue(v: number | string | null): string {
  if (v === null) return '–'
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toFixed(3)
  return v
}
