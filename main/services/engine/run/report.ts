import { computeRto, localShare, percentile } from '../../../../common/scenario/metrics'
import { isAttachedCluster, listNodes } from '../../../../common/topology/model'
import { TRANSACTION_CHECK_AFTER_MS, TRANSACTION_CHECK_INTERVAL_MS } from '../../sandbox/config'
import type {
  ClientReport,
  FaultReport,
  FailoverReport,
  ReplicationTraffic,
  ScenarioReport,
  SelectionReport
} from '../../../../common/scenario/schema'
import type { RunSnapshot, SnapshotQuery } from '../../ledger/run-snapshot'
import { pairKey, takeRunSnapshot } from '../../ledger/run-snapshot'
import { evaluateGates } from '../../../../common/scenario/gates'
import { headroomOf } from '../../../../common/scenario/headroom'
import { delayOf } from '../../../../common/scenario/schema'
import type { SelectionPhase } from '../../../../common/scenario/schema'
import type { ClientPlan } from '../../../../common/scenario/client-plan'
import type { RunPlan } from '../../../../common/scenario/run-plan'
import { controllerReportOf } from './controller-report'
import { delayedReportOf } from './delayed-report'
import { orderReportOf } from './order-report'
import { transactionsReportOf } from './transactions-report'
import { failbackReportOf } from './failback-report'
import { trafficReportOf } from './traffic-report'
import type { DrainResult } from './drain'
import type { AppliedStep, RunContext } from './run-context'
import { FAULT_ACTIONS, REPAIR_ACTIONS } from './fault'
import type { WorkloadResult } from './workload'

export interface RunTimes {
  tStart: number
  tSettle: number
  t0: number
  tWorkEnd: number
  tDrainEnd: number
  end: number
}

/** Everything a report is made of: the run's plan and what happened, and the ledger snapshot. */
export interface ReportInput {
  plan: Pick<RunPlan, 'loaded' | 'runId' | 'clients' | 'topics' | 'consumerGroups'>
  applied: AppliedStep[]
  notes: string[]
  times: RunTimes
  startedAt: Date
  endedAt: Date
  workload: Pick<WorkloadResult, 'scheduled' | 'skipped'> | null
  drain: Pick<DrainResult, 'graceMs' | 'lateDeliveries' | 'drainedAt'> | null
  /** Why the abort block stopped the workload early (the run then fails), if it did. */
  aborted?: string | null
  snapshot: RunSnapshot
  /** What replication moved between rooms over the workload and drain, when it could be read. */
  replication?: ReplicationTraffic[] | null
}

const round1 = (n: number): number => Math.round(n * 10) / 10

/** RocketMQ's timerPrecisionMs default, which the sandbox keeps (attached clusters usually do too). */
const TIMER_PRECISION_MS = 1000

/** The faults in time order, and the first one that took something out of service. */
export function faultBoundaries(applied: readonly AppliedStep[]): {
  steps: AppliedStep[]
  firstFault: number | null
} {
  const steps = [...applied].sort((a, b) => a.atAbs - b.atAbs)
  const firstFault =
    steps.find((s) => FAULT_ACTIONS.has(s.report.action))?.atAbs ?? steps[0]?.atAbs ?? null
  return { steps, firstFault }
}

/**
 * Each fault that took something out, from when it hit to the first repair of it (or `endAbs`,
 * the workload end): the windows headroom is read over. A repair of something else (a broker
 * restarted while the rooms are still cut) does not end another fault's window.
 */
export function faultWindowsOf(
  applied: readonly AppliedStep[],
  endAbs: number
): { fault: string; atMs: number; untilMs: number }[] {
  const { steps } = faultBoundaries(applied)
  return steps
    .filter((s) => FAULT_ACTIONS.has(s.report.action) && s.atAbs < endAbs)
    .map((s) => ({
      fault: `${s.report.action} ${s.report.target.join(', ')}`.trim(),
      atMs: s.atAbs,
      untilMs: Math.min(
        endAbs,
        steps.find((r) => r.atAbs > s.atAbs && repairs(r.report, s.report))?.atAbs ?? endAbs
      )
    }))
}

/** The fault kinds each repair brings back; `heal` lifts every network fault. */
const REPAIRED_BY: Record<string, readonly string[]> = {
  restart: ['kill', 'stop'],
  start: ['kill', 'stop'],
  resume: ['pause'],
  heal: ['isolate', 'partition', 'loss', 'delay', 'bandwidth'],
  'observed-up': ['observed-down']
}

/**
 * Whether `repair` brings back what `fault` took out: the matching kind, on a node or room the
 * fault hit (a repair naming no node, like a plain `heal`, repairs them all).
 */
export function repairs(repair: FaultReport, fault: FaultReport): boolean {
  if (!REPAIR_ACTIONS.has(repair.action)) return false
  if (!(REPAIRED_BY[repair.action] ?? []).includes(fault.action)) return false
  if (repair.nodes.length === 0 || fault.nodes.length === 0) return true
  return repair.nodes.some((n) => fault.nodes.includes(n))
}

/** Reads the snapshot a run's report needs; `workEnd` closes fault windows nothing repaired. */
export function snapshotFor(ctx: RunContext, t0: number, workEnd = Infinity): RunSnapshot {
  const { firstFault } = faultBoundaries(ctx.applied)
  const gates = ctx.plan.loaded.scenario.gates
  const query: SnapshotQuery = {
    runId: ctx.plan.runId,
    t0,
    firstFault,
    producerIds: ctx.plan.clients.filter((p) => p.role === 'producer').map((p) => p.id),
    sendsVia: gates.sendsAfterFault ?? [],
    consumedAcross: gates.consumedAcross ?? [],
    delayed: ctx.plan.loaded.scenario.workload.messages === 'delayed',
    ordered: ctx.plan.loaded.scenario.workload.messages === 'ordered',
    transactional: ctx.plan.loaded.scenario.workload.messages === 'transactional',
    ...(Number.isFinite(workEnd) ? { faultWindows: faultWindowsOf(ctx.applied, workEnd) } : {})
  }
  const { replicaGroups: groups, names } = ctx.plan
  if (groups.length > 0) {
    query.controller = {
      groups,
      clientTopics: Object.fromEntries(ctx.plan.clients.map((p) => [p.id, names.topicOf(p.topic)]))
    }
  }
  return takeRunSnapshot(ctx.reader, query)
}

/** Shapes the report of a run from its snapshot: a pure function, so every figure is testable. */
export function shapeReport(input: ReportInput): ScenarioReport {
  const { snapshot: snap, times, plan } = input
  const { scenario, topology } = plan.loaded
  const { steps, firstFault } = faultBoundaries(input.applied)
  const boundaries = steps.map((s) => s.atAbs)
  const allRto: (number | null)[] = []
  const notes = [...input.notes]
  const clients = plan.clients.map((p) => clientReport(p, input, boundaries, allRto))
  const failovers = failoverReports(snap, boundaries, times.t0)

  const roleOf = new Map(plan.clients.map((p) => [p.id, p.role]))
  const selections: SelectionReport[] = snap.selections.map((r) => ({
    clientId: r.clientId,
    role: roleOf.get(r.clientId) ?? 'producer',
    phase: r.phase,
    namesrvRoom: r.namesrvRoom,
    brokerRoom: r.brokerRoom,
    count: r.count
  }))
  const share = (
    role: 'producer' | 'consumer',
    phase: 'before-fault' | 'after-fault'
  ): number | null =>
    localShare(
      snap.selections
        .filter((r) => r.phase === phase && roleOf.get(r.clientId) === role)
        .map((r) => ({
          clientRoom: r.clientRoom,
          servedRoom: r.namesrvRoom === r.clientRoom ? r.brokerRoom : null,
          count: r.count
        }))
    )
  for (const [clientId, n] of failingOwnRoom(snap.selections)) {
    notes.push(
      `${clientId}: ${n} send(s) before the first fault went to another room while its own room ` +
        'was failing it (an own-room attempt failed and none was acknowledged since, or it kept ' +
        'an own-room broker isolated; see failovers); ' +
        'the healthy share of sends served in own room leaves them out'
    )
  }
  const loss = snap.loss
  const controller = snap.controller
    ? controllerReportOf(
        snap.controller,
        times.t0,
        Object.fromEntries(listNodes(topology).map((n) => [n.id, n.room]))
      )
    : undefined
  for (const t of controller?.takeovers ?? []) {
    if (t.reason)
      notes.push(
        `${t.group}: no new master after ${t.master} was taken out (${t.fault}): ${t.reason}`
      )
  }
  const delayed = snap.delayed
    ? delayedReportOf(snap.delayed, plan.clients, {
        mechanism: 'timer',
        delayMs: delayOf(scenario.workload),
        precisionMs: TIMER_PRECISION_MS
      })
    : undefined
  const order = snap.ordered
    ? orderReportOf(snap.ordered, plan.clients, scenario, {
        originMs: times.t0,
        endMs: times.tDrainEnd
      })
    : undefined
  const transactions = snap.transactional
    ? transactionsReportOf(
        snap.transactional,
        plan.clients,
        scenario,
        // An operator's brokers check back on their own schedule (30 s by default in RocketMQ 5), unknown here.
        isAttachedCluster(topology)
          ? { checkIntervalMs: null, checkAfterMs: null }
          : {
              checkIntervalMs: TRANSACTION_CHECK_INTERVAL_MS,
              checkAfterMs: TRANSACTION_CHECK_AFTER_MS
            }
      )
    : undefined
  // The first repair after the first fault: a client started or a link healed before anything
  // broke repairs nothing, and would make the failover's duplicates look like the fail-back's.
  const repair = steps.find(
    (s) => firstFault !== null && s.atAbs >= firstFault && REPAIR_ACTIONS.has(s.report.action)
  )
  const failback = failbackReportOf(snap.deliveries, plan.clients, {
    repairAt: repair?.atAbs ?? null,
    originMs: times.t0
  })
  const headroom = headroomOf(
    (snap.faultWindows ?? []).map((w) => ({
      ...w,
      atMs: w.atMs - times.t0,
      untilMs: w.untilMs - times.t0
    }))
  )
  const gates = evaluateGates(scenario.gates, {
    headroom,
    maxDelayLatenessMs: delayed?.latenessMs.max ?? null,
    failback,
    order: order?.lanes ?? null,
    transactions: transactions?.lanes ?? null,
    rpoMessages: controller ? controller.rpo.lostWithOldMaster : null,
    takeovers: controller ? controller.takeovers : null,
    lost: loss.lost,
    duplicates: loss.duplicates,
    redelivered: loss.redelivered,
    sent: loss.sent,
    acked: loss.acked,
    rtoMs: allRto,
    localSendShare: share('producer', 'before-fault'),
    localConsumeShare: share('consumer', 'before-fault'),
    localSendShareAfterFault: share('producer', 'after-fault'),
    localConsumeShareAfterFault: share('consumer', 'after-fault'),
    sendsVia: (from, via) => snap.sendsVia[pairKey(from, via)] ?? 0,
    consumedAcross: (b, c) => snap.consumedAcross[pairKey(b, c)] ?? 0,
    failovers,
    managementFallbacks: (fromRoom, toRoom) =>
      new Set(
        snap.managementFallbacks
          .filter((e) => {
            const d = e.data as { fromRoom?: string; toRoom?: string | null }
            return (
              d.fromRoom === fromRoom &&
              d.toRoom != null &&
              (toRoom === undefined || d.toRoom === toRoom)
            )
          })
          .map((e) => e.clientId)
      ).size
  })
  if (loss.lost > 0)
    notes.push(`lost keys (first ${loss.lostKeys.length}): ${loss.lostKeys.join(', ')}`)
  if (loss.unexpected > 0) {
    notes.push(
      `${loss.unexpected} messages whose send was reported failed (or never reported), or whose transaction was rolled back, were consumed anyway`
    )
  }
  for (const e of snap.workerExits) {
    const d = e.data as { worker?: string; reason?: string; clients?: string[] }
    notes.push(
      `${d.worker} ${d.reason}; its clients (${(d.clients ?? []).join(', ')}) went down with it`
    )
  }
  const notSent = clients.reduce(
    (n, c) => n + (c.notSent ? c.notSent.down + c.notSent.inflightCap + c.notSent.workerLost : 0),
    0
  )
  return {
    kind: 'drstudio/scenario-report',
    version: 1,
    scenario: scenario.name,
    ...(scenario.description ? { description: scenario.description } : {}),
    topology: topology.name,
    runId: plan.runId,
    passed: !input.aborted && gates.every((g) => g.passed),
    ...(input.aborted ? { aborted: input.aborted } : {}),
    topic: plan.topics.map((t) => t.name).join(','),
    consumerGroup: plan.consumerGroups.join(','),
    startedAt: input.startedAt.toISOString(),
    endedAt: input.endedAt.toISOString(),
    originMs: times.t0,
    timings: {
      setupMs: Math.round(times.tSettle - times.tStart),
      settleMs: Math.round(times.t0 - times.tSettle),
      workloadMs: Math.round(times.tWorkEnd - times.t0),
      drainMs: Math.round(times.tDrainEnd - times.tWorkEnd),
      totalMs: Math.round(times.end - times.tStart)
    },
    totals: {
      sent: loss.sent,
      acked: loss.acked,
      failed: loss.failed,
      consumed: loss.deliveries,
      lost: loss.lost,
      duplicates: loss.duplicates,
      storedAgain: loss.storedAgain,
      redelivered: loss.redelivered,
      ...(input.workload ? { notSent } : {})
    },
    ...(input.drain ? { measurement: measurementOf(input.drain) } : {}),
    gates,
    clients,
    failovers,
    selections,
    faults: steps.map((s) => ({ ...s.report, atMs: s.atAbs - times.t0 })),
    latency: latencyOf(snap.sendLatency),
    ...(controller ? { controller } : {}),
    ...(delayed ? { delayed } : {}),
    ...(order ? { order } : {}),
    ...(transactions ? { transactions } : {}),
    failback,
    ...(headroom.length ? { headroom } : {}),
    traffic: trafficReportOf(
      snap.roomFlows,
      plan.clients,
      times.tDrainEnd - times.t0,
      input.replication ?? null,
      topology.settings.pricePerGb ?? null
    ),
    notes
  }
}

function latencyOf(l: RunSnapshot['sendLatency']): NonNullable<ScenarioReport['latency']> {
  const row = (scope: 'same-room' | 'cross-room', values: number[]) => ({
    scope,
    sends: values.length,
    p50Ms: nullableRound(percentile(values, 50)),
    p99Ms: nullableRound(percentile(values, 99)),
    maxMs: values.length ? round1(values.reduce((m, v) => (v > m ? v : m), -Infinity)) : null
  })
  return [row('same-room', l.sameRoom), row('cross-room', l.crossRoom)]
}

const nullableRound = (n: number | null): number | null => (n === null ? null : round1(n))

function measurementOf(d: NonNullable<ReportInput['drain']>): ScenarioReport['measurement'] {
  return {
    duplicateGraceMs: d.graceMs,
    lateDeliveries: d.lateDeliveries,
    note:
      d.drainedAt === null
        ? 'the drain timed out, so some acknowledged messages count as lost and duplicates are a lower bound'
        : `duplicates are deliveries beyond the first per key, counted until ${d.graceMs} ms after ` +
          `every acknowledged message had been consumed (${d.lateDeliveries} arrived in that time); ` +
          'redeliveries after it are not counted'
  }
}

function clientReport(
  p: ClientPlan,
  input: ReportInput,
  boundaries: number[],
  allRto: (number | null)[]
): ClientReport {
  const snap = input.snapshot
  if (p.role === 'consumer') {
    const s = snap.consumers.find((c) => c.clientId === p.id)
    return {
      id: p.id,
      room: p.room,
      role: p.role,
      sent: 0,
      acked: 0,
      failed: 0,
      consumed: s?.consumed ?? 0,
      lost: 0,
      duplicates: s?.duplicates ?? 0,
      rtoMs: []
    }
  }
  const s = snap.producers.find((c) => c.clientId === p.id)
  const rto = computeRto(snap.sendOps[p.id] ?? [], boundaries).map((e) =>
    e.rtoMs === null ? null : round1(e.rtoMs)
  )
  allRto.push(...rto)
  const sent = s?.sent ?? 0
  const report: ClientReport = {
    id: p.id,
    room: p.room,
    role: p.role,
    sent,
    acked: s?.acked ?? 0,
    failed: s?.failed ?? 0,
    consumed: 0,
    lost: s?.lost ?? 0,
    duplicates: s?.duplicates ?? 0,
    rtoMs: rto,
    maxSendLatencyMs:
      s?.maxLatencyMs === null || s?.maxLatencyMs === undefined ? null : round1(s.maxLatencyMs),
    p99SendLatencyMs: nullableRound(percentile(snap.sendLatency.byClient[p.id] ?? [], 99))
  }
  if (!input.workload) return report
  const scheduled = input.workload.scheduled[p.id] ?? 0
  const skipped = snap.skipped[p.id] ?? { down: 0, inflightCap: 0 }
  // What the schedule asked for but no row, skip count or live worker accounts for.
  const workerLost = Math.max(0, scheduled - sent - skipped.down - skipped.inflightCap)
  return { ...report, scheduled, notSent: { ...skipped, workerLost } }
}

function failoverReports(snap: RunSnapshot, boundaries: number[], t0: number): FailoverReport[] {
  return snap.failovers.map((e) => {
    const d = e.data as Record<string, unknown>
    const str = (k: string): string | null => (typeof d[k] === 'string' ? (d[k] as string) : null)
    if (e.kind === 'consumer-takeover') {
      const fault = [...boundaries].reverse().find((b) => b <= e.atMs) ?? null
      const first = snap.takeoverFirstDelivery[e.id] ?? null
      return {
        atMs: e.atMs - t0,
        clientId: e.clientId ?? '',
        kind: 'consumer-takeover' as const,
        fromRoom: str('fromRoom'),
        toRoom: str('toRoom'),
        from: null,
        to: e.clientId,
        reason: str('reason') ?? 'takeover',
        durationMs: fault !== null && first !== null ? round1(first - fault) : null
      }
    }
    return {
      atMs: e.atMs - t0,
      clientId: e.clientId ?? '',
      kind: e.kind === 'broker-failover' ? ('broker' as const) : ('namesrv' as const),
      fromRoom: str('fromRoom'),
      toRoom: str('toRoom'),
      from: str('from'),
      to: str('to'),
      reason: str('reason') ?? 'failure',
      durationMs: typeof d.durationMs === 'number' ? round1(d.durationMs) : null
    }
  })
}

/** Per client, sends acknowledged before the first fault while its own room was failing it. */
function failingOwnRoom(
  rows: readonly { clientId: string; phase: SelectionPhase; count: number }[]
): Map<string, number> {
  const out = new Map<string, number>()
  for (const r of rows)
    if (r.phase === 'own-room-failing') out.set(r.clientId, (out.get(r.clientId) ?? 0) + r.count)
  return out
}
