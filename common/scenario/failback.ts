import type { FailbackReport } from './schema'

/** One delivery as the ledger has it. */
export interface DeliveryAt {
  key: string
  /** The consumer it went to: its lane's topic tells apart queues of one broker and id. */
  clientId: string
  brokerName: string
  queueId: number
  queueOffset: number
  deliveredAt: number
}

export interface FailbackJudgement {
  /** The first repair of the run (restart, resume, start, heal), epoch ms; null: none. */
  repairAt: number | null
  /** The workload's start: times are reported from it. */
  originMs: number
  /** How many queues to list, those with the most re-read first. */
  worst?: number
  /**
   * The lane of a consumer (each lane reads its own topic, so one broker's queue 0 of two lanes
   * are two queues); absent: one lane.
   */
  laneOf?: (clientId: string) => string | null
}

const byTime = (a: DeliveryAt, b: DeliveryAt): number =>
  a.deliveredAt - b.deliveredAt || a.queueOffset - b.queueOffset

/**
 * The fail-back checker. Duplicates (deliveries beyond a message's first) are split at the first
 * repair: before it they are the failover's, after it the fail-back's (a repaired broker serving
 * stale offsets again, apache/rocketmq#1094, #1440, #7790). A rewind is a queue's consumption going
 * backwards: a message delivered again from below the highest offset already delivered from that
 * queue, counted once per episode, with how many positions it went back.
 */
export function judgeFailback(
  deliveries: readonly DeliveryAt[],
  opts: FailbackJudgement
): FailbackReport {
  const sorted = [...deliveries].sort(byTime)
  const seen = new Set<string>()
  let before = 0
  let after = 0
  const queues = new Map<
    string,
    {
      lane: string | null
      brokerName: string
      queueId: number
      high: number
      inRewind: boolean
      rewinds: number
      maxBack: number
      firstAt: number | null
    }
  >()
  for (const d of sorted) {
    const again = seen.has(d.key)
    if (again) {
      if (opts.repairAt !== null && d.deliveredAt >= opts.repairAt) after++
      else before++
    } else seen.add(d.key)
    const lane = opts.laneOf?.(d.clientId) ?? null
    const qk = `${lane ?? ''}|${d.brokerName}#${d.queueId}`
    let q = queues.get(qk)
    if (!q) {
      q = {
        lane,
        brokerName: d.brokerName,
        queueId: d.queueId,
        high: -1,
        inRewind: false,
        rewinds: 0,
        maxBack: 0,
        firstAt: null
      }
      queues.set(qk, q)
    }
    // Only a message delivered again counts: a consumer's threads finishing out of order, or a new
    // master reusing the offsets its predecessor lost, deliver new messages below the high mark.
    if (again && d.queueOffset < q.high) {
      if (!q.inRewind) {
        q.inRewind = true
        q.rewinds++
        q.firstAt ??= d.deliveredAt
        q.maxBack = Math.max(q.maxBack, q.high - d.queueOffset)
      }
    } else if (d.queueOffset >= q.high) {
      q.inRewind = false
      q.high = d.queueOffset
    }
  }
  const rewound = [...queues.values()]
    .filter((q) => q.rewinds > 0)
    .sort(
      (a, b) =>
        b.maxBack - a.maxBack || a.brokerName.localeCompare(b.brokerName) || a.queueId - b.queueId
    )
  return {
    repairAtMs: opts.repairAt === null ? null : Math.round(opts.repairAt - opts.originMs),
    duplicatesBeforeRepair: before,
    duplicatesAfterRepair: after,
    rewinds: rewound.reduce((n, q) => n + q.rewinds, 0),
    rewoundQueues: rewound.slice(0, opts.worst ?? 5).map((q) => ({
      lane: q.lane,
      brokerName: q.brokerName,
      queueId: q.queueId,
      rewinds: q.rewinds,
      maxBack: q.maxBack,
      firstAtMs: Math.round((q.firstAt ?? opts.originMs) - opts.originMs)
    }))
  }
}
