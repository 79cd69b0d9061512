import { formatBytes, formatCost } from '../../../common/scenario/traffic-text'
import { headroomParts } from '../../../common/scenario/headroom'
import type {
  DelayedLaneReport,
  DelayedReport,
  FailoverReport,
  ScenarioReport
} from '../../../common/scenario/schema'
import { reportSchema } from '../../../common/scenario/schema'
import type { CounterSample } from '../../../common/scenario/metrics'
import { countersToRates } from '../../../common/scenario/metrics'
import { describeNetworkFault, networkOfFaultRow } from './network-text'

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
  /** What it marks: a fault (default), or what the order checker found (a stall, a violation). */
  kind?: 'fault' | 'order'
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
    .map((e) => {
      const network = networkOfFaultRow(e.data)
      return {
        x: round3((e.atMs - originMs) / 1000),
        label:
          (network && describeNetworkFault(network)) ??
          `${typeof e.data.action === 'string' ? e.data.action : 'fault'} ${nodesOf(e.data)}`.trim()
      }
    })
  if (fromEvents.length || !report) return fromEvents.sort((a, b) => a.x - b.x)
  // Report fault times are already relative to the origin.
  return report.faults
    .map((f) => ({ x: round3(f.atMs / 1000), label: `${f.action} ${f.nodes.join(', ')}`.trim() }))
    .sort((a, b) => a.x - b.x)
}

/** Stalls shorter than this are lock handoffs, not worth a line across the plots. */
const STALL_MARKER_MS = 1000

/**
 * Markers for what the order checker found, per lane: where its longest stall began (when a
 * second or longer) and its first order violation, so the plots show them beside the faults.
 */
export function orderMarkers(report: ScenarioReport | null): FaultMarker[] {
  if (!report?.order) return []
  const out: FaultMarker[] = []
  for (const l of report.order.lanes) {
    if (l.stall && l.maxStallMs !== null && l.maxStallMs >= STALL_MARKER_MS) {
      out.push({
        x: round3(l.stall.fromMs / 1000),
        label: `${l.lane} stall ${(l.maxStallMs / 1000).toFixed(1)} s (${l.stall.brokerName}#${l.stall.queueId})`,
        kind: 'order'
      })
    }
    if (l.firstViolationAtMs !== null) {
      out.push({
        x: round3(l.firstViolationAtMs / 1000),
        label: `${l.lane} out of order ×${l.violations}`,
        kind: 'order'
      })
    }
  }
  return out.sort((a, b) => a.x - b.x)
}

function end(room: string | null | undefined, name: string | null | undefined): string {
  if (room && name && name !== room) return `${room} (${name})`
  return room ?? name ?? '?'
}

/**
 * A failover as an operator reads it, e.g. "producer-1: sends moved from room1 (broker-a) to
 * room2 (broker-b), recovered in 23 ms" or "consumer-1 (room1) took over room2's queues, first
 * message after 120 ms". A takeover's fromRoom is the room whose queues were taken.
 */
export function failoverLine(f: FailoverReport): string {
  if (f.kind === 'consumer-takeover') {
    const own = f.toRoom ? ` (${f.toRoom})` : ''
    const after =
      f.durationMs === null
        ? 'nothing consumed yet'
        : `first message after ${Math.round(f.durationMs)} ms`
    return `${f.clientId}${own} took over ${f.fromRoom ?? '?'}'s queues, ${after}`
  }
  const recovered =
    f.durationMs === null ? 'not recovered' : `recovered in ${Math.round(f.durationMs)} ms`
  const what = f.kind === 'broker' ? 'sends moved' : 'name server moved'
  if (!f.to && !f.toRoom) {
    const lost = f.kind === 'broker' ? 'lost its broker' : 'lost its name server'
    return `${f.clientId}: ${lost} ${end(f.fromRoom, f.from)}, ${recovered}`
  }
  return `${f.clientId}: ${what} from ${end(f.fromRoom, f.from)} to ${end(f.toRoom, f.to)}, ${recovered}`
}

/** A failover's short label for the bar chart's key. */
export function failoverShort(f: FailoverReport): string {
  if (f.kind === 'consumer-takeover') return `${f.clientId} takes ${f.fromRoom ?? '?'}'s queues`
  const what = f.kind === 'broker' ? 'broker' : 'name server'
  return `${f.clientId} ${what} ${f.fromRoom ?? '?'} → ${f.toRoom ?? 'none'}`
}

/** One bar per failover: its RTO (null when the client never recovered). */
export function failoverBars(report: ScenarioReport | null): BarData {
  const list = [...(report?.failovers ?? [])].sort((a, b) => a.atMs - b.atMs)
  return {
    labels: list.map(failoverShort),
    values: list.map((f) => (f.durationMs === null ? null : Math.round(f.durationMs)))
  }
}

/** A marker caption placed on a row (0 = top) so it does not overlap its neighbours. */
export interface PlacedLabel {
  row: number
  /** False when every row was taken near it: only the dashed line is drawn, the caption is left to the list. */
  shown: boolean
}

/**
 * Rows for fault-marker captions: each caption starts at its marker's x and is `widths[i]` wide;
 * a caption goes on the first row where it does not overlap the previous caption there.
 */
export function layoutMarkerLabels(
  xs: readonly number[],
  widths: readonly number[],
  maxRows = 3,
  gap = 6
): PlacedLabel[] {
  const order = xs.map((x, i) => ({ x, i })).sort((a, b) => a.x - b.x)
  const rowEnd: number[] = Array.from({ length: maxRows }, () => -Infinity)
  const out: PlacedLabel[] = xs.map(() => ({ row: 0, shown: false }))
  for (const { x, i } of order) {
    const row = rowEnd.findIndex((e) => e + gap <= x)
    if (row === -1) continue
    rowEnd[row] = x + widths[i]!
    out[i] = { row, shown: true }
  }
  return out
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

/** One figure of a scorecard section: its label, its text, and whether it is a bad sign. */
export interface ScorecardFact {
  label: string
  value: string
  bad: boolean
}

/** One lane's row of the scorecard's Order table; `bad` marks the cells worth a look. */
export interface OrderRow {
  lane: string
  policy: string
  keys: number
  violations: string
  reroutes: string
  stall: string
  bad: { violations: boolean; reroutes: boolean }
}

/** The Order section's rows: violations, reroutes and the longest stall per lane. */
export function orderRows(o: NonNullable<ScenarioReport['order']>): OrderRow[] {
  return o.lanes.map((l) => ({
    lane: l.lane,
    policy: l.orderPolicy ?? '–',
    keys: l.keys,
    violations: `${l.violations}${l.violatedKeys.length ? ` (${l.violatedKeys.join(', ')}${l.violatedKeyCount > l.violatedKeys.length ? ', …' : ''})` : ''}`,
    reroutes: `${l.reroutes}${l.reroutedKeyCount ? ` over ${l.reroutedKeyCount} keys` : ''}`,
    stall:
      l.maxStallMs === null
        ? '–'
        : `${l.maxStallMs} ms${l.stall ? ` on ${l.stall.brokerName}#${l.stall.queueId} from ${l.stall.fromMs} ms` : ''}`,
    bad: { violations: l.violations > 0, reroutes: l.reroutes > 0 }
  }))
}

/** One lane's row of the scorecard's Transactions table; `bad` marks the cells worth a look. */
export interface TransactionRow {
  lane: string
  acked: string
  committed: number
  rolledBack: string
  checks: string
  /** 'n/a' on lanes that cannot see a lost end (the Java client's oneway end). */
  endLost: string
  mismatches: string
  unresolved: number
  duplicates: number
  bad: { mismatches: boolean; unresolved: boolean; duplicates: boolean; rolledBack: boolean }
}

/** The Transactions section's rows: local decisions against what the consumers received, per lane. */
export function transactionRows(t: NonNullable<ScenarioReport['transactions']>): TransactionRow[] {
  return t.lanes.map((l) => ({
    lane: l.lane,
    acked: `${l.acked} of ${l.sent}${l.storedWithWarning ? ` (${l.storedWithWarning} without their slave)` : ''}`,
    committed: l.committed,
    rolledBack: `${l.rolledBack}${l.clientRollbacks ? ` + ${l.clientRollbacks} by the client` : ''}`,
    checks: `${l.checkedBack} (${l.viaCheck} planned${l.checkedAfterEnd ? `, ${l.checkedAfterEnd} after an end` : ''}${l.checkedElsewhere ? `, ${l.checkedElsewhere} from another broker` : ''})`,
    endLost: l.endLost === null ? 'n/a' : String(l.endLost),
    mismatches: `${l.mismatches}${l.mismatches ? ` (${l.committedUndelivered} committed undelivered, ${l.rolledBackDelivered} rolled back delivered${l.mismatchedKeys.length ? `: ${l.mismatchedKeys.slice(0, 3).join(', ')}${l.mismatches > 3 ? ', …' : ''}` : ''})` : ''}`,
    unresolved: l.unresolved,
    duplicates: l.duplicates,
    bad: {
      mismatches: l.mismatches > 0,
      unresolved: l.unresolved > 0,
      duplicates: l.duplicates > 0,
      rolledBack: l.clientRollbacks > 0
    }
  }))
}

/** How the brokers' check-back was timed, in words (an attached cluster keeps its own). */
export function checkBackText(t: NonNullable<ScenarioReport['transactions']>): string {
  return t.checkIntervalMs === null
    ? 'Check-backs run on the cluster’s own schedule (transactionCheckInterval, 30 s by default in RocketMQ 5) and may take that long.'
    : `Brokers check back half messages older than ${t.checkAfterMs} ms every ${t.checkIntervalMs} ms.`
}

/**
 * The Controller section's facts: the RPO, and per group the most masters at once and who
 * acknowledged what was lost (the replica, its room and epoch; after its successor = split brain).
 */
export function controllerFacts(c: ScenarioReport['controller']): ScorecardFact[] {
  if (!c) return []
  const facts: ScorecardFact[] = [
    {
      label: 'lost with a replaced master (RPO)',
      value: `${c.rpo.lostWithOldMaster} (${c.rpo.neverConsumed} never consumed, ${c.rpo.unreplicatedAtFault} unreplicated at the fault)`,
      bad: c.rpo.lostWithOldMaster > 0
    },
    { label: 'leader changes', value: String(c.leaderChanges), bad: false }
  ]
  for (const g of c.groups) {
    facts.push({
      label: `${g.group}: most masters at once`,
      value: `${g.maxMasters}${g.maxMasters > 1 ? ' (split brain)' : ''}, ${g.switches} switch(es)`,
      bad: g.maxMasters > 1
    })
    for (const m of g.lostBy) {
      facts.push({
        label: `${g.group}: lost with ${m.master}`,
        value:
          `${m.messages} acknowledged in ${m.room ?? '?'}, epoch ${m.epoch ?? '?'}, ${m.firstAtMs}–${m.lastAtMs} ms` +
          (m.afterSuccessor ? `; ${m.afterSuccessor} after its successor was master` : ''),
        bad: true
      })
    }
  }
  return facts
}

/** The Fail-back section's facts; none for a run that repaired nothing and never read back. */
/** The Cross-room traffic section: the summary and each direction between rooms. */
export function trafficFacts(t: ScenarioReport['traffic']): ScorecardFact[] {
  if (!t) return []
  const share = t.crossRoomShare === null ? '–' : `${(t.crossRoomShare * 100).toFixed(1)} %`
  return [
    {
      label: 'crossed rooms',
      value: `${formatBytes(t.crossRoomBytes)} of ${formatBytes(t.totalBytes)} (${share})`,
      bad: false
    },
    ...(t.crossRoomBytesPerHour === null
      ? []
      : [
          { label: 'at this pace', value: `${formatBytes(t.crossRoomBytesPerHour)}/h`, bad: false }
        ]),
    ...(t.costPerHour == null || t.pricePerGb == null
      ? []
      : [
          {
            label: 'cost',
            value: `${formatCost(t.costPerHour)} per hour at ${t.pricePerGb} per GiB`,
            bad: false
          }
        ]),
    ...t.links.map((l) => ({
      label: `${l.fromRoom} → ${l.toRoom}`,
      value: `produce ${formatBytes(l.produce.bytes)}, consume ${formatBytes(l.consume.bytes)}`,
      bad: false
    })),
    ...(t.replication ?? [])
      .filter((r) => r.fromRoom !== r.toRoom)
      .map((r) => ({
        label: `${r.fromRoom} → ${r.toRoom} replication`,
        value: `${formatBytes(r.bytes)} (${r.pairs.map((p) => `${p.master} → ${p.slave}`).join(', ')})`,
        bad: false
      }))
  ]
}

/** Below this carried share of the offered rate a fault window's fact is marked. */
const HEADROOM_WARN_SHARE = 0.9

/** The Headroom section: per fault window, the load offered against what the rooms left carried. */
export function headroomFacts(h: ScenarioReport['headroom']): ScorecardFact[] {
  return (h ?? []).map((w) => ({
    ...headroomParts(w),
    bad: w.share !== null && w.share < HEADROOM_WARN_SHARE
  }))
}

export function failbackFacts(f: ScenarioReport['failback']): ScorecardFact[] {
  if (!f || (f.repairAtMs === null && f.rewinds === 0)) return []
  const worst = f.rewoundQueues[0]
  return [
    {
      label: 'first repair',
      value: f.repairAtMs === null ? '–' : `${f.repairAtMs} ms`,
      bad: false
    },
    {
      label: 'duplicates before it',
      value: String(f.duplicatesBeforeRepair),
      bad: f.duplicatesBeforeRepair > 0
    },
    {
      label: 'duplicates after it',
      value: String(f.duplicatesAfterRepair),
      bad: f.duplicatesAfterRepair > 0
    },
    {
      label: 'offset rewinds',
      value: worst
        ? `${f.rewinds} (up to ${worst.maxBack} back on ${worst.brokerName}#${worst.queueId})`
        : String(f.rewinds),
      bad: f.rewinds > 0
    },
    // Several lanes: duplicates before / after the repair, and rewinds, each.
    ...f.lanes.map((l) => ({
      label: l.lane,
      value: `duplicates ${l.duplicatesBeforeRepair} / ${l.duplicatesAfterRepair}, rewinds ${l.rewinds}`,
      bad: l.duplicatesAfterRepair > 0 || l.rewinds > 0
    }))
  ]
}

/** The Delayed section: what the brokers' timer did with the run's acknowledged delayed messages. */
export function delayedFacts(
  d: DelayedReport & { lanes?: readonly DelayedLaneReport[] }
): ScorecardFact[] {
  const ms = (v: number | null): string => (v === null ? '–' : `${v} ms`)
  const late = (v: number | null): boolean => v !== null && v > d.precisionMs
  // In a run of several lanes, each lane's figures beside the run's.
  const lanes = (d.lanes ?? []).map((l) => ({
    label: `${l.lane}`,
    value: `${l.delivered} of ${l.acked} delivered, ${l.early} early, ${l.duplicates} duplicates, lateness max ${ms(l.latenessMs.max)}`,
    bad: l.delivered < l.acked || l.early > 0 || late(l.latenessMs.max)
  }))
  return [
    { label: 'delay', value: `${d.delayMs} ms (timer, ${d.precisionMs} ms slots)`, bad: false },
    { label: 'delivered', value: `${d.delivered} of ${d.acked}`, bad: d.delivered < d.acked },
    { label: 'never delivered', value: String(d.neverDelivered), bad: d.neverDelivered > 0 },
    { label: 'early', value: String(d.early), bad: d.early > 0 },
    { label: 'duplicates', value: String(d.duplicates), bad: d.duplicates > 0 },
    { label: 'stored twice by the broker', value: String(d.storedAgain), bad: d.storedAgain > 0 },
    { label: 'lateness p50', value: ms(d.latenessMs.p50), bad: late(d.latenessMs.p50) },
    { label: 'lateness p99', value: ms(d.latenessMs.p99), bad: late(d.latenessMs.p99) },
    { label: 'lateness max', value: ms(d.latenessMs.max), bad: late(d.latenessMs.max) },
    ...lanes
  ]
}
