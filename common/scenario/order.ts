import type { OrderPolicy } from '../topology/schema'
import type { OrderLaneReport } from './schema'

/** One acknowledged ordered message as the ledger has it. */
export interface OrderedMessage {
  key: string
  producerId: string
  orderKey: string
  orderSeq: number
  /** Where the broker stored it. */
  brokerName: string
  queueId: number
  queueOffset: number
  /**
   * When its producer had the acknowledgement (epoch ms); null: its send was reported failed (a
   * timeout) and the broker stored it anyway, so consumers saw it.
   */
  ackedAt: number | null
  /**
   * Its first delivery to any consumer (epoch ms); null: never delivered (counted by maxLost, and
   * here as a stall of its queue until the end of the measurement when `endMs` is given).
   */
  firstDeliveredAt: number | null
}

export interface OrderJudgement {
  lane: string
  orderPolicy: OrderPolicy | null
  /** The workload's start: stalls are reported from it. */
  originMs: number
  /**
   * The end of the measurement (the drain's end): an acknowledged message never delivered kept its
   * queue stalled until then. Absent: such messages are left out of the stalls.
   */
  endMs?: number
  /** How many keys to name. */
  worst?: number
}

type Delivered = OrderedMessage & { firstDeliveredAt: number }
type AckedAndDelivered = Delivered & { ackedAt: number }

const queueOf = (m: Pick<OrderedMessage, 'brokerName' | 'queueId'>): string =>
  `${m.brokerName}#${m.queueId}`

function groupBy<T>(items: readonly T[], keyOf: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>()
  for (const t of items) {
    const k = keyOf(t)
    const list = out.get(k)
    if (list) list.push(t)
    else out.set(k, [t])
  }
  return out
}

/**
 * Delivery order: by first delivery, and within one pulled batch (one timestamp) by the queue
 * position, so messages of one queue delivered together keep their stored order.
 */
function byDelivery(a: Delivered, b: Delivered): number {
  return (
    a.firstDeliveredAt - b.firstDeliveredAt ||
    a.brokerName.localeCompare(b.brokerName) ||
    a.queueId - b.queueId ||
    a.queueOffset - b.queueOffset
  )
}

/** When each first delivery of a key's message came after a later one of the key was delivered. */
function violationsOf(messages: readonly Delivered[]): number[] {
  let highest = -Infinity
  const at: number[] = []
  for (const m of [...messages].sort(byDelivery)) {
    if (m.orderSeq < highest) at.push(m.firstDeliveredAt)
    else highest = m.orderSeq
  }
  return at
}

/**
 * Messages stored outside the key's queue: the one its first message went to (sent while every
 * broker was up, before any fault), however long an outage kept the key elsewhere.
 */
function reroutesOf(messages: readonly OrderedMessage[]): number {
  let first = messages[0]
  for (const m of messages) if (first && m.orderSeq < first.orderSeq) first = m
  if (!first) return 0
  const home = queueOf(first)
  return messages.filter((m) => queueOf(m) !== home).length
}

/**
 * The longest time the queue held acknowledged, not yet delivered messages and delivered none:
 * a sweep over acknowledgements and first deliveries, each gap starting at the later of the last
 * delivery and the acknowledgement that left the queue non-empty. A delivery seen before its
 * acknowledgement counts at the acknowledgement.
 */
function longestStall(messages: readonly AckedAndDelivered[]): { ms: number; from: number } | null {
  const events = messages.flatMap((m) => [
    { at: m.ackedAt, ack: true },
    { at: Math.max(m.firstDeliveredAt, m.ackedAt), ack: false }
  ])
  // An acknowledgement and a delivery at one instant: the acknowledgement first.
  events.sort((a, b) => a.at - b.at || Number(b.ack) - Number(a.ack))
  let pending = 0
  let since = 0
  let best: { ms: number; from: number } | null = null
  for (const e of events) {
    if (e.ack) {
      if (pending++ === 0) since = e.at
      continue
    }
    const gap = e.at - since
    if (!best || gap > best.ms) best = { ms: gap, from: since }
    since = e.at
    pending--
  }
  return best
}

/**
 * The order checker: per key, sequence regressions among first deliveries (`violations`: a
 * redelivery of a message already seen is a duplicate, not a violation), messages stored outside
 * the key's queue (`reroutes`), and per queue the longest stall with messages waiting.
 */
export function judgeOrder(
  messages: readonly OrderedMessage[],
  opts: OrderJudgement
): OrderLaneReport {
  const delivered = messages.filter((m): m is Delivered => m.firstDeliveredAt !== null)
  const keys = groupBy(messages, (m) => m.orderKey)
  const deliveredByKey = groupBy(delivered, (m) => m.orderKey)
  const violated: [string, number][] = []
  let violations = 0
  let firstViolation: number | null = null
  for (const [key, list] of deliveredByKey) {
    const at = violationsOf(list)
    violations += at.length
    if (at.length > 0) violated.push([key, at.length])
    for (const t of at) firstViolation = Math.min(t, firstViolation ?? t)
  }
  violated.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
  let reroutes = 0
  let reroutedKeyCount = 0
  for (const list of keys.values()) {
    const n = reroutesOf(list)
    reroutes += n
    if (n > 0) reroutedKeyCount++
  }
  let stall: OrderLaneReport['stall'] = null
  let maxStallMs: number | null = null
  // Never delivered: the queue sat on it until the end of the measurement (a lock nobody gave
  // back, a broker that never came back), which a stall over delivered messages alone would hide.
  const timed = messages.flatMap((m): AckedAndDelivered[] =>
    m.ackedAt === null
      ? []
      : m.firstDeliveredAt !== null
        ? [m as AckedAndDelivered]
        : opts.endMs !== undefined
          ? [{ ...m, ackedAt: m.ackedAt, firstDeliveredAt: opts.endMs }]
          : []
  )
  for (const list of groupBy(timed, queueOf).values()) {
    const s = longestStall(list)
    if (s && (maxStallMs === null || s.ms > maxStallMs)) {
      maxStallMs = s.ms
      const q = list[0]!
      stall = {
        brokerName: q.brokerName,
        queueId: q.queueId,
        fromMs: Math.round(s.from - opts.originMs)
      }
    }
  }
  return {
    lane: opts.lane,
    orderPolicy: opts.orderPolicy,
    keys: keys.size,
    acked: messages.filter((m) => m.ackedAt !== null).length,
    delivered: delivered.length,
    storedUnacked: messages.filter((m) => m.ackedAt === null).length,
    violations,
    violatedKeys: violated.slice(0, opts.worst ?? 5).map(([k]) => k),
    violatedKeyCount: violated.length,
    firstViolationAtMs: firstViolation === null ? null : Math.round(firstViolation - opts.originMs),
    reroutes,
    reroutedKeyCount,
    maxStallMs: maxStallMs === null ? null : Math.round(maxStallMs),
    stall
  }
}
