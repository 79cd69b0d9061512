import { describeNetworkFault, networkOfFaultRow } from './network-text'

/** A ledger event as the timeline shows it. */
export interface LedgerLine {
  kind: string
  clientId: string | null
  room: string | null
  data: Record<string, unknown>
}

function s(v: unknown, fallback = '?'): string {
  return typeof v === 'string' || typeof v === 'number' ? String(v) : fallback
}

function ms(v: unknown): string {
  return typeof v === 'number' ? `, ${Math.round(v)} ms` : ''
}

function where(name: unknown, room: unknown): string {
  return room ? `${s(name)} (${s(room)})` : s(name)
}

/** One human line per ledger event kind, e.g. "broker broker-a (room1) → broker-b (room2), 23 ms". */
export function describeLedgerEvent(e: LedgerLine): string {
  const d = e.data
  switch (e.kind) {
    case 'namesrv-list': {
      // The available ones: a list that shrinks is how a client sees a cut or a dead name server.
      const ids = Array.isArray(d.available)
        ? (d.available as { id?: unknown }[]).map((n) => s(n?.id))
        : null
      return `name-server list from ${s(d.managementRoom)}${d.fallback ? ' (fallback)' : ''}${ids ? `: ${ids.join(', ') || 'none available'}` : ''}`
    }
    case 'management-fallback':
      return `management ${s(d.fromRoom)} unreachable, asked ${s(d.toRoom, 'none')}: ${s(d.reason, '')}`
    case 'namesrv-choice':
      return `chose name server ${where(d.namesrvId, d.namesrvRoom)}: ${s(d.reason, '')}`
    case 'namesrv-failover':
      return `name server ${where(d.from, d.fromRoom)} → ${where(d.to, d.toRoom)}${ms(d.durationMs)}`
    case 'route-updated':
      return `route from ${s(d.namesrvId)}: ${Array.isArray(d.brokers) ? d.brokers.length : 0} broker(s)`
    case 'route-failed':
      return `route from ${s(d.namesrvId)} failed: ${s(d.reason, '')}`
    case 'broker-choice':
      return `chose broker ${where(d.brokerName, d.brokerRoom)}: ${s(d.reason, '')}`
    case 'broker-failover':
      return `broker ${where(d.from, d.fromRoom)} → ${where(d.to, d.toRoom)}${ms(d.durationMs)}`
    case 'broker-isolated':
      return `isolated broker ${where(d.brokerName, d.brokerRoom)}: ${s(d.reason, '')}`
    case 'broker-recovered':
      return `broker ${where(d.brokerName, d.brokerRoom)} back${ms(d.isolatedMs)}`
    case 'send-attempt-failed':
      return `send to ${where(d.brokerName, d.brokerRoom)} failed: ${s(d.reason, '')}`
    case 'request-timeout':
      return `request timeout ${s(d.previousMs)} → ${s(d.timeoutMs)} ms${typeof d.p99Ms === 'number' ? ` (healthy p99 ${Math.round(d.p99Ms)} ms over ${s(d.samples)} answers)` : ' (too few answers: the floor)'}`
    case 'send-failed':
      return `message ${s(d.key)} failed after ${s(d.attempts)} attempt(s): ${s(d.reason, '')}`
    case 'rebalance':
      return `rebalance (${s(d.trigger)}): +${s(d.added, '0')} −${s(d.removed, '0')} queues`
    case 'consumer-takeover':
      // fromRoom is the room whose queues were taken; toRoom is the consumer's own room.
      return `took over ${s(d.queues)} queue(s) of ${s(d.fromRoom)} for ${s(d.toRoom)}: ${s(d.reason, '')}`
    case 'consumer-ids-changed':
      return `consumer group changed${d.brokerName ? ` on ${s(d.brokerName)}` : ''}`
    case 'pull-failed':
      return `${typeof d.queueId === 'number' ? `queue ${s(d.queueId)} of ${where(d.brokerName, d.brokerRoom)} stalled: pull` : `pull from ${where(d.brokerName, d.brokerRoom)}`} failed: ${s(d.reason, '')}`
    case 'pull-resumed':
      return `queue ${s(d.queueId)} of ${where(d.brokerName, d.brokerRoom)} answers pulls again${ms(d.stalledMs)}`
    case 'queue-lock-wait':
      return `queue ${s(d.queueId)} of ${where(d.brokerName, d.brokerRoom)} stalled: lock refused (${s(d.reason, '')})`
    case 'queue-locked':
      return `queue ${s(d.queueId)} of ${where(d.brokerName, d.brokerRoom)} locked${ms(d.waitedMs)}${Array.isArray(d.freedFrom) && d.freedFrom.length ? ` (freed from departed ${d.freedFrom.join(', ')})` : ''}`
    case 'transaction-checked':
      return `broker ${s(d.brokerName, '?')} checked back transaction ${s(d.key)}: ${d.answer === 'unknown' ? 'not one of this producer’s, left unanswered' : s(d.answer)}${d.error ? ` (${s(d.error)})` : ''}`
    case 'transaction-end-lost':
      return `END_TRANSACTION (${s(d.decision)}) of ${s(d.key)} could not reach ${s(d.brokerName)}: ${s(d.reason, '')}; the check-back decides`
    case 'fault': {
      const failed = d.ok === false ? ` failed: ${s(d.error, '')}` : ''
      const network = networkOfFaultRow(d)
      const text = network ? describeNetworkFault(network) : null
      if (text) return `${text}${failed}`
      const nodes = Array.isArray(d.nodes) ? d.nodes.join(', ') : ''
      return `${s(d.action)} ${nodes}${failed}`
    }
    case 'counters':
      return `sent ${s(d.sent, '0')}, acked ${s(d.acked, '0')}, failed ${s(d.failed, '0')}, consumed ${s(d.consumed, '0')}`
    case 'client-started':
      return `${s(d.role)} started`
    case 'client-stopped':
      return `${s(d.role)} stopped (${s(d.mode)})`
    case 'phase':
      return `phase ${s(d.phase)}${d.detail ? `: ${s(d.detail)}` : ''}`
    case 'node-state':
      return `${s(d.nodeId)} ${s(d.state)}${d.detail ? `: ${s(d.detail)}` : ''}`
    case 'broker-load':
      return `${s(d.nodeId)} CPU ${d.cpuPct === null ? '–' : `${String(d.cpuPct)} %`}, send queue ${d.sendQueue === null ? '–' : String(d.sendQueue)}`
    case 'namesrv-view':
      return d.error
        ? `${s(d.namesrvId)} did not answer: ${s(d.error, '')}`
        : `${s(d.namesrvId)} lists ${Array.isArray(d.brokers) ? d.brokers.length : 0} broker(s)`
    case 'network-fault': {
      const ends = [d.target, d.peer].filter(Array.isArray).map((x) => (x as unknown[]).join(', '))
      const figures = [
        typeof d.delayMs === 'number'
          ? `${d.delayMs} ms${typeof d.jitterMs === 'number' && d.jitterMs ? ` ± ${d.jitterMs}` : ''}`
          : '',
        typeof d.lossPercent === 'number' ? `${d.lossPercent} %` : '',
        typeof d.bandwidthKbit === 'number' ? `${d.bandwidthKbit / 1000} Mbit/s` : ''
      ].filter(Boolean)
      return `network ${s(d.action)} ${ends.join(' ~ ')}${figures.length ? ` ${figures.join(' ')}` : ''}${d.ok === false ? ` failed: ${s(d.error, '')}` : ''}`
    }
    case 'network-heal': {
      const ends = [d.target, d.peer].filter(Array.isArray).map((x) => (x as unknown[]).join(', '))
      return `network healed ${ends.length ? ends.join(' ~ ') : 'everywhere'}${d.reason ? ` (${s(d.reason)})` : ''}`
    }
    default:
      return Object.entries(d)
        .slice(0, 4)
        .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
        .join(' ')
  }
}

/** Events worth drawing attention to in the timeline. */
export function ledgerSeverity(kind: string): 'fault' | 'failover' | 'error' | 'info' {
  if (kind === 'fault' || kind === 'network-fault') return 'fault'
  if (kind.endsWith('failover') || kind === 'consumer-takeover' || kind === 'management-fallback')
    return 'failover'
  if (kind.endsWith('failed') || kind === 'broker-isolated') return 'error'
  return 'info'
}
