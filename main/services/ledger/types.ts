import type { LedgerEventData, LedgerEventKind } from '../../../common/scenario/events'
import type { TxDecision, TxEnd } from '../../../common/scenario/transactions'

/** One message a producer sent, final outcome only (retries are events). */
export interface SendRecord {
  key: string
  clientId: string
  clientRoom: string
  namesrvId: string | null
  namesrvRoom: string | null
  brokerName: string | null
  brokerRoom: string | null
  queueId: number | null
  queueOffset: number | null
  startedAt: number
  /**
   * When the open-loop schedule wanted this send made (epoch ms). Latency from here, not from
   * startedAt, is safe from coordinated omission: a stalled sender cannot hide its own stall.
   */
  scheduledAt?: number | null
  /** Delayed messages: when the broker's timer was asked to deliver it (epoch ms); else null. */
  dueAt?: number | null
  /** Ordered messages: the sharding key and the message's sequence number within it; else null. */
  orderKey?: string | null
  orderSeq?: number | null
  /** Transactional messages: what the local transaction decided and how the broker was told; else null. */
  txDecision?: TxDecision | null
  txEnd?: TxEnd | null
  /** Start of the attempt that succeeded (or the last one). */
  attemptStartedAt: number | null
  endedAt: number
  status: 'acked' | 'failed'
  attempts: number
  error: string | null
}

/** One delivery of a message to a consumer; duplicates are several rows with one key. */
export interface DeliveryRecord {
  key: string
  clientId: string
  clientRoom: string
  namesrvRoom: string | null
  brokerName: string
  brokerRoom: string | null
  queueId: number
  queueOffset: number
  bornAt: number | null
  deliveredAt: number
}

/** What clients write to; the scenario's LedgerWriter implements it, tests use a recording fake. */
export interface LedgerPort {
  event<K extends LedgerEventKind>(
    kind: K,
    clientId: string | null,
    room: string | null,
    data: LedgerEventData[K],
    atMs?: number
  ): void
  send(record: SendRecord): void
  delivery(record: DeliveryRecord): void
}

/** A ledger that drops everything, for clients used outside a run. */
export const NULL_LEDGER: LedgerPort = {
  event: () => {},
  send: () => {},
  delivery: () => {}
}
