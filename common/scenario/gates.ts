import type {
  ExpectedElection,
  FailbackReport,
  FailoverReport,
  GateResult,
  Gates,
  HeadroomReport,
  OrderLaneReport,
  TransactionsLaneReport,
  Takeover
} from './schema'
import { worstHeadroomShare } from './headroom'

/** Measured facts of a run that gates are judged against. */
export interface GateFacts {
  lost: number
  duplicates: number
  /** Deliveries of a stored message beyond its first; absent in hand-made facts (no gate reads it then). */
  redelivered?: number
  sent: number
  acked: number
  /** Every producer RTO episode of the run; null = never recovered. */
  rtoMs: (number | null)[]
  /** Share of sends / consumptions before the first fault served entirely in the client's room. */
  localSendShare: number | null
  localConsumeShare: number | null
  /** The same shares from the first fault on; null when nothing was served after it. */
  localSendShareAfterFault?: number | null
  localConsumeShareAfterFault?: number | null
  sendsVia(fromRoom: string, viaRoom: string): number
  consumedAcross(brokerRoom: string, consumerRoom: string): number
  failovers: readonly FailoverReport[]
  /** Clients that fell back from their room's management node to another room's. */
  managementFallbacks(fromRoom: string, toRoom: string | undefined): number
  /** Controller mode: messages lost with a replaced master; null when the run had no such groups. */
  rpoMessages?: number | null
  /** Controller mode: every fault that took a group's master out; null when the run had no such groups. */
  takeovers?: readonly Takeover[] | null
  /** Delayed workloads: the latest delivery after its due time; null = none delivered or not delayed. */
  maxDelayLatenessMs?: number | null
  /** Ordered workloads: the order checker's figures per lane; null = not an ordered run. */
  order?: readonly OrderLaneReport[] | null
  /** Transactional workloads: the transactions checker's figures per lane; null = not transactional. */
  transactions?: readonly TransactionsLaneReport[] | null
  /** The fail-back checker's figures; absent in hand-made facts (the gates then read none). */
  failback?: FailbackReport
  /** Offered against carried load per fault window; absent in hand-made facts. */
  headroom?: readonly HeadroomReport[]
}

const round = (n: number, digits = 4): number => Math.round(n * 10 ** digits) / 10 ** digits

/** Judges each configured gate; the run passes only if all pass. */
export function evaluateGates(gates: Gates, f: GateFacts): GateResult[] {
  const out: GateResult[] = []
  out.push({
    name: 'lost messages',
    passed: f.lost <= gates.maxLost,
    actual: f.lost,
    limit: gates.maxLost
  })
  if (gates.maxDuplicates !== undefined) {
    out.push({
      name: 'duplicate deliveries',
      passed: f.duplicates <= gates.maxDuplicates,
      actual: f.duplicates,
      limit: gates.maxDuplicates
    })
  }
  if (gates.maxRedeliveries !== undefined) {
    out.push({
      name: 'redeliveries (a stored message delivered again)',
      passed: f.redelivered !== undefined && f.redelivered <= gates.maxRedeliveries,
      actual: f.redelivered ?? 'not measured',
      limit: gates.maxRedeliveries
    })
  }
  if (gates.maxRtoMs !== undefined) {
    const never = f.rtoMs.some((r) => r === null)
    const worst = Math.max(0, ...f.rtoMs.filter((r): r is number => r !== null))
    out.push({
      name: 'max producer RTO (ms)',
      passed: !never && worst <= gates.maxRtoMs,
      actual: never ? 'never recovered' : round(worst, 1),
      limit: gates.maxRtoMs
    })
  }
  if (gates.minAckedShare !== undefined) {
    const share = f.sent === 0 ? null : f.acked / f.sent
    out.push({
      name: 'acknowledged share of sends',
      passed: share !== null && share >= gates.minAckedShare,
      actual: share === null ? null : round(share),
      limit: gates.minAckedShare
    })
  }
  if (gates.minLocalShare !== undefined) {
    for (const [name, share] of [
      ['sends served in own room (healthy)', f.localSendShare],
      ['consumptions served in own room (healthy)', f.localConsumeShare]
    ] as const) {
      out.push({
        name,
        passed: share !== null && share >= gates.minLocalShare,
        actual: share === null ? null : round(share),
        limit: gates.minLocalShare
      })
    }
  }
  if (gates.minLocalShareAfterFault !== undefined) {
    for (const [name, share] of [
      ['sends served in own room (from the first fault on)', f.localSendShareAfterFault ?? null],
      [
        'consumptions served in own room (from the first fault on)',
        f.localConsumeShareAfterFault ?? null
      ]
    ] as const) {
      out.push({
        name,
        passed: share !== null && share >= gates.minLocalShareAfterFault,
        actual: share === null ? null : round(share),
        limit: gates.minLocalShareAfterFault
      })
    }
  }
  for (const g of gates.sendsAfterFault ?? []) {
    const n = f.sendsVia(g.fromRoom, g.viaRoom)
    out.push({
      name: `${g.fromRoom} producers' sends acknowledged by ${g.viaRoom} after the fault`,
      passed: n >= g.min,
      actual: n,
      limit: `>= ${g.min}`
    })
  }
  for (const g of gates.consumedAcross ?? []) {
    const n = f.consumedAcross(g.brokerRoom, g.consumerRoom)
    out.push({
      name: `${g.brokerRoom} messages consumed by ${g.consumerRoom} consumers after the fault`,
      passed: n >= g.min,
      actual: n,
      limit: `>= ${g.min}`
    })
  }
  for (const g of gates.failovers ?? []) {
    const n = f.failovers.filter(
      (x) =>
        x.kind === g.kind &&
        (g.fromRoom === undefined || x.fromRoom === g.fromRoom) &&
        (g.toRoom === undefined || x.toRoom === g.toRoom)
    ).length
    out.push({
      name: `${g.kind} failovers ${g.fromRoom ?? 'any'} → ${g.toRoom ?? 'any'}`,
      passed: n >= g.min,
      actual: n,
      limit: `>= ${g.min}`
    })
  }
  if (gates.maxRpoMessages !== undefined) {
    const rpo = f.rpoMessages ?? null
    out.push({
      name: 'acknowledged messages lost with a replaced master (RPO)',
      passed: rpo !== null && rpo <= gates.maxRpoMessages,
      actual: rpo === null ? 'no controller-mode group in this run' : rpo,
      limit: gates.maxRpoMessages
    })
  }
  for (const g of gates.elections ?? []) out.push(electionGate(g, f.takeovers ?? null))
  if (gates.maxDelayLatenessMs !== undefined) {
    const late = f.maxDelayLatenessMs ?? null
    out.push({
      name: 'latest delayed delivery after its due time (ms)',
      passed: late !== null && late <= gates.maxDelayLatenessMs,
      actual: late === null ? 'no delayed message delivered' : late,
      limit: gates.maxDelayLatenessMs
    })
  }
  out.push(...orderGates(gates, f.order ?? null))
  if (gates.maxTxMismatches !== undefined) {
    const lanes = f.transactions ?? []
    const committed = lanes.reduce((n, l) => n + l.committed, 0)
    // No committed transaction means nothing was there to arrive: the gate cannot pass on that.
    const total = committed > 0 ? lanes.reduce((n, l) => n + l.mismatches, 0) : null
    out.push({
      name: 'transactions whose outcome differs from the local decision (all lanes)',
      passed: total !== null && total <= gates.maxTxMismatches,
      actual:
        total ??
        (lanes.length
          ? 'no transaction committed in this run'
          : 'no transactional message in this run'),
      limit: gates.maxTxMismatches
    })
  }
  if (gates.minThroughputDuringFault !== undefined) {
    const worst = worstHeadroomShare(f.headroom ?? [])
    out.push({
      name: 'acknowledged share of the offered rate during faults (worst window)',
      passed: worst !== null && worst >= gates.minThroughputDuringFault,
      actual: worst ?? 'no fault window in this run',
      limit: gates.minThroughputDuringFault
    })
  }
  if (gates.maxTxClientRollbacks !== undefined) {
    const lanes = f.transactions ?? []
    const total = lanes.length ? lanes.reduce((n, l) => n + l.clientRollbacks, 0) : null
    out.push({
      name: 'transactions rolled back by the client unrun (all lanes)',
      passed: total !== null && total <= gates.maxTxClientRollbacks,
      actual: total ?? 'no transactional message in this run',
      limit: gates.maxTxClientRollbacks
    })
  }
  if (gates.maxFailbackDuplicates !== undefined) {
    const fb = f.failback
    const n = fb && fb.repairAtMs !== null ? fb.duplicatesAfterRepair : null
    out.push({
      name: 'duplicates after the first repair (fail-back)',
      passed: n !== null && n <= gates.maxFailbackDuplicates,
      actual: n ?? 'nothing was repaired in this run',
      limit: gates.maxFailbackDuplicates
    })
  }
  if (gates.maxOffsetRewinds !== undefined) {
    const n = f.failback?.rewinds ?? 0
    out.push({
      name: 'queue offset rewinds',
      passed: n <= gates.maxOffsetRewinds,
      actual: n,
      limit: gates.maxOffsetRewinds
    })
  }
  for (const g of gates.managementFallbacks ?? []) {
    const n = f.managementFallbacks(g.fromRoom, g.toRoom)
    out.push({
      name: `${g.fromRoom} clients falling back to ${g.toRoom ?? 'another room'}'s management node`,
      passed: n >= g.min,
      actual: n,
      limit: `>= ${g.min}`
    })
  }
  return out
}

/** maxOrderViolations (summed over lanes) and maxOrderStallMs (the worst lane). */
function orderGates(gates: Gates, lanes: readonly OrderLaneReport[] | null): GateResult[] {
  const out: GateResult[] = []
  const none = 'no ordered message in this run'
  if (gates.maxOrderViolations !== undefined) {
    const total = lanes?.length ? lanes.reduce((n, l) => n + l.violations, 0) : null
    out.push({
      name: 'order violations (all lanes)',
      passed: total !== null && total <= gates.maxOrderViolations,
      actual: total ?? none,
      limit: gates.maxOrderViolations
    })
  }
  if (gates.maxOrderStallMs !== undefined) {
    const stalls = (lanes ?? []).flatMap((l) => (l.maxStallMs === null ? [] : [l.maxStallMs]))
    const worst = stalls.length ? Math.max(...stalls) : null
    out.push({
      name: 'longest ordered queue stall (ms)',
      passed: worst !== null && worst <= gates.maxOrderStallMs,
      actual: worst ?? (lanes?.length ? 'no ordered message delivered' : none),
      limit: gates.maxOrderStallMs
    })
  }
  return out
}

const secs = (ms: number): string => `${Math.round(ms / 100) / 10} s`

/**
 * "broker-a: a new master in another room within 10 s of losing its master": every takeover of
 * the group must have one; the actual value names who became master and when, or why nobody did.
 */
export function electionGate(
  g: ExpectedElection,
  takeovers: readonly Takeover[] | null
): GateResult {
  const where = g.toOtherRoom ? ' in another room' : ''
  const name = `${g.group}: a new master${where} within ${secs(g.within)} of losing its master`
  const limit = `${g.toOtherRoom ? 'another room, ' : ''}<= ${secs(g.within)}`
  if (takeovers === null) {
    return { name, passed: false, actual: 'no controller-mode group in this run', limit }
  }
  const mine = takeovers.filter((t) => t.group === g.group)
  if (mine.length === 0) {
    return { name, passed: false, actual: `no fault took ${g.group}'s master out`, limit }
  }
  const judged = mine.map((t) => judgeTakeover(g, t))
  return {
    name,
    passed: judged.every((j) => j.passed),
    actual: judged.map((j) => j.text).join('; '),
    limit
  }
}

/** One takeover against the gate: passed, and what happened in a few words. */
function judgeTakeover(g: ExpectedElection, t: Takeover): { passed: boolean; text: string } {
  const lost = `${t.master} (${t.masterRoom ?? '?'}) ${t.fault} at ${secs(t.atMs)}`
  if (t.to === null || t.afterMs === null) {
    return { passed: false, text: `${lost} → none: ${t.reason ?? 'no new master'}` }
  }
  const got = `${lost} → ${t.to} (${t.toRoom ?? '?'}) after ${secs(t.afterMs)}`
  if (g.toOtherRoom && (t.toRoom === null || t.toRoom === t.masterRoom)) {
    return { passed: false, text: `${got}, not another room` }
  }
  if (t.afterMs > g.within) return { passed: false, text: `${got}, too late` }
  return { passed: true, text: got }
}
