import { textTable } from './text-table'
import { trafficLines } from '../../../common/scenario/traffic-text'
import { headroomLine } from '../../../common/scenario/headroom'
import { formatMs } from '../../../common/scenario/duration'
import type { ScenarioReport } from '../../../common/scenario/schema'

/** The scorecard's tables: names left, figures right. */
const table = (rows: string[][]): string[] => textTable(rows, (i) => i > 0)

function delayedLines(d: NonNullable<ScenarioReport['delayed']>): string[] {
  const l = d.latenessMs
  const lines = [
    `delayed messages: broker timer (TIMER_DELIVER_MS), due ${formatMs(d.delayMs)} after each send, ` +
      `${formatMs(d.precisionMs)} precision`,
    `  ${d.delivered} of ${d.acked} acknowledged delivered, ${d.neverDelivered} never, ` +
      `${d.early} early, ${d.duplicates} duplicate deliveries (${d.storedAgain} messages stored twice by the broker)`,
    `  lateness (first delivery minus due time): p50 ${formatMs(l.p50)}, p99 ${formatMs(l.p99)}, max ${formatMs(l.max)}`
  ]
  for (const l of d.lanes) {
    const ll = l.latenessMs
    lines.push(
      `  ${l.lane}: ${l.delivered} of ${l.acked} delivered, ${l.neverDelivered} never, ${l.early} early, ` +
        `${l.duplicates} duplicates; lateness p50 ${formatMs(ll.p50)}, p99 ${formatMs(ll.p99)}, max ${formatMs(ll.max)}`
    )
  }
  if (d.latest.length && d.latest[0]!.latenessMs > d.precisionMs) {
    lines.push(
      '  latest: ' +
        d.latest
          .map((m) => `${m.key} ${formatMs(m.latenessMs)} (${m.brokerRoom ?? '?'})`)
          .join(', ')
    )
  }
  return lines
}

function orderLines(o: NonNullable<ScenarioReport['order']>): string[] {
  const rows = [
    ['lane', 'policy', 'keys', 'acked', 'violations', 'reroutes', 'longest stall', 'where (from)']
  ]
  for (const l of o.lanes) {
    rows.push([
      l.lane,
      l.orderPolicy ?? '-',
      String(l.keys),
      String(l.acked),
      `${l.violations}${l.violatedKeyCount ? ` (${l.violatedKeyCount} keys)` : ''}`,
      `${l.reroutes}${l.reroutedKeyCount ? ` (${l.reroutedKeyCount} keys)` : ''}`,
      formatMs(l.maxStallMs),
      l.stall ? `${l.stall.brokerName}#${l.stall.queueId} (${formatMs(l.stall.fromMs)})` : '-'
    ])
  }
  const lines = [
    `ordered messages: ${o.orderKeys} keys per producer, each key to one queue, consumed orderly (under broker locks; a gRPC lane's through a FIFO group)`,
    ...table(rows).map((r) => `  ${r}`)
  ]
  for (const l of o.lanes) {
    if (l.violatedKeys.length)
      lines.push(`  ${l.lane} keys out of order: ${l.violatedKeys.join(', ')}`)
    if (l.storedUnacked) {
      lines.push(
        `  ${l.lane}: ${l.storedUnacked} message(s) whose send was reported failed were stored and delivered anyway (judged too)`
      )
    }
  }
  return lines
}

/** How the brokers' check-back was timed, in words (an attached cluster's is its own). */
function checkBackText(t: NonNullable<ScenarioReport['transactions']>): string {
  return t.checkIntervalMs === null
    ? 'check-backs on the cluster’s own schedule (transactionCheckInterval, 30 s by default in RocketMQ 5): they may take that long'
    : `brokers check back half messages older than ${formatMs(t.checkAfterMs)} every ${formatMs(t.checkIntervalMs)}`
}

function transactionLines(t: NonNullable<ScenarioReport['transactions']>): string[] {
  const rows = [
    [
      'lane',
      'acked',
      'commit',
      'rollback',
      'client rollback',
      'via check',
      'end lost',
      'checked back',
      'mismatches',
      'unresolved',
      'duplicates'
    ]
  ]
  for (const l of t.lanes) {
    rows.push([
      l.lane,
      `${l.acked}/${l.sent}`,
      String(l.committed),
      String(l.rolledBack),
      String(l.clientRollbacks),
      String(l.viaCheck),
      l.endLost === null ? 'n/a' : String(l.endLost),
      `${l.checkedBack}${l.checkedAfterEnd ? ` (${l.checkedAfterEnd} after an end)` : ''}`,
      `${l.mismatches}${l.mismatches ? ` (${l.committedUndelivered} committed never delivered, ${l.rolledBackDelivered} rolled back delivered)` : ''}`,
      String(l.unresolved),
      String(l.duplicates)
    ])
  }
  const lines = [
    `transactional messages: ${Math.round(t.commitShare * 100)} % commit, ${Math.round(t.checkShare * 100)} % answered only by check-back; ${checkBackText(t)}`,
    ...table(rows).map((r) => `  ${r}`)
  ]
  for (const l of t.lanes) {
    if (l.storedWithWarning)
      lines.push(
        `  ${l.lane}: ${l.storedWithWarning} half message(s) stored with a warning (a synchronous master without its slave); ` +
          (l.clientRollbacks
            ? `the client rolled ${l.clientRollbacks} back without running the local transaction (apache/rocketmq#3885)`
            : 'their local transactions ran and decided')
      )
    if (l.checkedElsewhere)
      lines.push(
        `  ${l.lane}: ${l.checkedElsewhere} transaction(s) were also checked back by another broker, where a timed-out attempt had left a second half message`
      )
    if (l.checkedAfterEnd)
      lines.push(
        `  ${l.lane}: ${l.checkedAfterEnd} transaction(s) the producer had ended were checked back again (the broker lost the end); a commit answered again is delivered again`
      )
    if (l.mismatchedKeys.length)
      lines.push(`  ${l.lane} mismatched: ${l.mismatchedKeys.join(', ')}`)
  }
  return lines
}

function failbackLines(f: NonNullable<ScenarioReport['failback']>): string[] {
  const lines = [
    `fail-back: first repair at ${formatMs(f.repairAtMs)}; duplicates ${f.duplicatesBeforeRepair} before it ` +
      `(the failover's), ${f.duplicatesAfterRepair} after it (the fail-back's); ${f.rewinds} queue offset rewind(s)`
  ]
  for (const l of f.lanes) {
    lines.push(
      `  ${l.lane}: duplicates ${l.duplicatesBeforeRepair} before, ${l.duplicatesAfterRepair} after; ${l.rewinds} rewind(s)`
    )
  }
  for (const q of f.rewoundQueues) {
    lines.push(
      `  ${q.lane ? `${q.lane} ` : ''}${q.brokerName}#${q.queueId}: ${q.rewinds} rewind(s), up to ${q.maxBack} message(s) back, first at ${formatMs(q.firstAtMs)}`
    )
  }
  return lines
}

function controllerLines(c: NonNullable<ScenarioReport['controller']>): string[] {
  const lines = [
    `controller mode: RPO ${c.rpo.lostWithOldMaster} acknowledged messages lost with a replaced master ` +
      `(${c.rpo.neverConsumed} never consumed, ${c.rpo.unreplicatedAtFault} unreplicated at the fault); ` +
      `${c.leaderChanges} leader change(s)`
  ]
  for (const g of c.groups) {
    lines.push(
      `  ${g.group}: ${g.switches} master switch(es), at most ${g.maxMasters} acting master(s) at once` +
        `${g.maxMasters > 1 ? ' (split brain)' : ''}, lost with the old master ${g.lostWithOldMaster} ` +
        `(never consumed ${g.neverConsumed}, unreplicated at the fault ${g.unreplicatedAtFault})`
    )
    for (const m of g.lostBy) {
      lines.push(
        `    lost with ${m.master} (${m.room ?? '?'}, epoch ${m.epoch ?? '?'}): ${m.messages} acknowledged ` +
          `${formatMs(m.firstAtMs)}–${formatMs(m.lastAtMs)}` +
          (m.afterSuccessor
            ? `, ${m.afterSuccessor} after its successor was master (split brain)`
            : '') +
          ` (${m.keys.join(', ')}${m.messages > m.keys.length ? ', …' : ''})`
      )
    }
  }
  for (const t of c.takeovers) {
    const lost = `${t.group}: master ${t.master} (${t.masterRoom ?? '?'}) ${t.fault}`
    lines.push(
      `  ${formatMs(t.atMs).padStart(8)}  ${lost} → ` +
        (t.to === null
          ? `no new master: ${t.reason}`
          : `${t.to} (${t.toRoom ?? '?'}) after ${formatMs(t.afterMs)}`)
    )
  }
  for (const e of c.elections) {
    lines.push(
      `  ${formatMs(e.atMs).padStart(8)}  ${e.group}: ${e.from ?? 'none'} (${e.fromRoom ?? '?'}) → ${e.to ?? 'none'} (${e.toRoom ?? '?'}), epoch ${e.epoch}`
    )
  }
  return lines
}

/** A plain-text scorecard of a report, for the CLI. */
/** " (2 stored twice by retried sends, 1 redelivered)"; nothing for reports older than the split. */
function duplicateCauses(t: ScenarioReport['totals']): string {
  if (t.duplicates === 0 || t.storedAgain === undefined || t.redelivered === undefined) return ''
  return ` (${t.storedAgain} stored twice by retried sends, ${t.redelivered} redelivered)`
}

export function formatScorecard(r: ScenarioReport): string {
  const lines: string[] = []
  lines.push(
    `scenario ${r.scenario} on ${r.topology} (run ${r.runId}): ${r.passed ? 'PASSED' : 'FAILED'}`
  )
  lines.push(
    `  topic ${r.topic}, group ${r.consumerGroup}; setup ${formatMs(r.timings.setupMs)}, ` +
      `workload ${formatMs(r.timings.workloadMs)}, drain ${formatMs(r.timings.drainMs)}, total ${formatMs(r.timings.totalMs)}`
  )
  lines.push(
    `  sent ${r.totals.sent}, acked ${r.totals.acked}, failed ${r.totals.failed}, consumed ${r.totals.consumed}, ` +
      `lost ${r.totals.lost}, duplicates ${r.totals.duplicates}${duplicateCauses(r.totals)}`
  )
  const notSent = r.clients.filter(
    (c) => c.notSent && c.notSent.down + c.notSent.inflightCap + c.notSent.workerLost > 0
  )
  for (const c of notSent) {
    const n = c.notSent!
    lines.push(
      `  ${c.id}: ${n.down + n.inflightCap + n.workerLost} of ${c.scheduled} scheduled sends not made ` +
        `(producer down ${n.down}, too many in flight ${n.inflightCap}, worker lost ${n.workerLost})`
    )
  }
  if (r.measurement) lines.push(`  ${r.measurement.note}`)
  const lat = (r.latency ?? []).filter((l) => l.sends > 0)
  if (lat.length) {
    lines.push(
      '  send latency (from the schedule): ' +
        lat
          .map((l) => `${l.scope} p50 ${l.p50Ms} ms, p99 ${l.p99Ms} ms (${l.sends} sends)`)
          .join('; ')
    )
  }
  if (r.traffic) lines.push(...trafficLines(r.traffic).map((l) => `  ${l}`))
  if (r.headroom?.length) {
    lines.push(
      "  headroom (msg/s offered by each room's clients, carried by each room's brokers, while a fault lasted):"
    )
    lines.push(...r.headroom.map((h) => `    ${headroomLine(h)}`))
  }
  lines.push('', 'gates')
  for (const g of r.gates) {
    lines.push(`  ${g.passed ? 'PASS' : 'FAIL'}  ${g.name}: ${g.actual ?? '—'} (limit ${g.limit})`)
  }
  if (r.faults.length) {
    lines.push('', 'timeline')
    for (const f of r.faults) {
      lines.push(
        `  ${formatMs(f.atMs).padStart(8)}  ${f.action} ${f.nodes.join(', ')}${f.ok ? '' : `  (failed: ${f.error})`}`
      )
    }
  }
  lines.push('', 'clients')
  lines.push(
    ...table([
      ['id', 'room', 'role', 'sent', 'acked', 'failed', 'consumed', 'lost', 'dups', 'RTO'],
      ...r.clients.map((c) => [
        c.id,
        c.room,
        c.role,
        String(c.sent),
        String(c.acked),
        String(c.failed),
        String(c.consumed),
        String(c.lost),
        String(c.duplicates),
        c.rtoMs.length ? c.rtoMs.map((x) => (x === null ? 'never' : formatMs(x))).join(' ') : '—'
      ])
    ]).map((l) => `  ${l}`)
  )
  if (r.failovers.length) {
    lines.push('', `failovers (${r.failovers.length})`)
    const byKey = new Map<
      string,
      { n: number; worst: number | null; first: number; reason: string }
    >()
    for (const f of r.failovers) {
      const k = `${f.clientId} ${f.kind} ${f.fromRoom ?? '?'} → ${f.toRoom ?? '?'}`
      const e = byKey.get(k) ?? { n: 0, worst: null, first: f.atMs, reason: f.reason }
      e.n++
      if (f.durationMs !== null) e.worst = Math.max(e.worst ?? 0, f.durationMs)
      byKey.set(k, e)
    }
    for (const [k, e] of byKey) {
      lines.push(
        `  ${formatMs(e.first).padStart(8)}  ${k}  ×${e.n}  (${e.reason}; worst ${formatMs(e.worst)})`
      )
    }
  }
  if (r.delayed) lines.push('', ...delayedLines(r.delayed))
  if (r.order) lines.push('', ...orderLines(r.order))
  if (r.transactions) lines.push('', ...transactionLines(r.transactions))
  // Only when there is something to say: a repair, or a queue read again from an older offset.
  if (r.failback && (r.failback.repairAtMs !== null || r.failback.rewinds > 0))
    lines.push('', ...failbackLines(r.failback))
  if (r.controller) lines.push('', ...controllerLines(r.controller))
  if (r.notes.length) lines.push('', 'notes', ...r.notes.map((n) => `  - ${n}`))
  return lines.join('\n') + '\n'
}
