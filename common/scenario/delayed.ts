import { percentile } from './metrics'
import type { DelayedReport } from './schema'

/** One acknowledged delayed message as the ledger has it. */
export interface DelayedMessage {
  key: string
  /** The producer that sent it (its lane groups it in a run of several lanes). */
  producerId?: string
  /** Room of the broker that acknowledged it (whose timer held it). */
  brokerRoom: string | null
  /** When the broker's timer was asked to deliver it (epoch ms). */
  dueAt: number
  /** Its first delivery to any consumer (epoch ms); null: never delivered. */
  firstDeliveredAt: number | null
  deliveries: number
  /** Distinct queue positions (broker, queue, offset) it was delivered from. */
  positions: number
}

export interface DelayedJudgement {
  /** How the messages were delayed, for the report (which mechanism the brokers ran). */
  mechanism: DelayedReport['mechanism']
  delayMs: number
  /** The timer's slot width: a delivery up to this much before its due time is on time. */
  precisionMs: number
  /** How many of the latest messages to name (the diagnosis of a bad run starts there). */
  worst?: number
}

/**
 * The delayed-message checker: of the acknowledged delayed messages, how late (delivery minus due
 * time) the delivered ones came, how many came early (beyond the timer's precision), how many
 * never came, and how many extra deliveries there were, telling the broker's timer putting a
 * message into the topic twice (two queue offsets) from consumers reading one offset twice.
 * Lateness is signed: the timer fires at its slot, so a delivery slightly before the due time is normal.
 */
export function judgeDelayed(
  messages: readonly DelayedMessage[],
  opts: DelayedJudgement
): DelayedReport {
  // Each delivered message with its lateness, latest first: the figures and the names come from one list.
  const late = messages
    .flatMap((m) =>
      m.firstDeliveredAt === null ? [] : [{ m, latenessMs: m.firstDeliveredAt - m.dueAt }]
    )
    .sort((a, b) => b.latenessMs - a.latenessMs)
  const lateness = late.map((x) => x.latenessMs)
  const round = (v: number | null): number | null => (v === null ? null : Math.round(v))
  return {
    mechanism: opts.mechanism,
    delayMs: opts.delayMs,
    precisionMs: opts.precisionMs,
    acked: messages.length,
    delivered: late.length,
    neverDelivered: messages.length - late.length,
    early: lateness.filter((l) => l < -opts.precisionMs).length,
    duplicates: messages.reduce((n, m) => n + Math.max(0, m.deliveries - 1), 0),
    storedAgain: messages.filter((m) => m.positions > 1).length,
    latenessMs: {
      p50: round(percentile(lateness, 50)),
      p99: round(percentile(lateness, 99)),
      max: round(lateness[0] ?? null)
    },
    latest: late.slice(0, opts.worst ?? 5).map(({ m, latenessMs }) => ({
      key: m.key,
      brokerRoom: m.brokerRoom,
      latenessMs: Math.round(latenessMs)
    }))
  }
}
