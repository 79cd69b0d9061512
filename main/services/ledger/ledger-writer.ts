import { EventEmitter } from 'node:events'
import type { Database, Statement } from 'better-sqlite3'
import type { LedgerEvent, LedgerEventData, LedgerEventKind } from '../../../common/scenario/events'
import type { DeliveryRecord, LedgerPort, SendRecord } from './types'

export interface LedgerWriterOptions {
  /** Flush at least this often while rows are pending. */
  flushIntervalMs?: number
  /** Flush at once when this many rows are pending. */
  maxBatch?: number
  /** Epoch milliseconds (fractions allowed). */
  now?: () => number
}

export interface LedgerWriterEvents {
  /** Every event as it is recorded (before it reaches SQLite), for live views. */
  event: [LedgerEvent]
  /** A batch could not be written; rows of that batch are dropped. */
  error: [Error]
}

type Row = { t: 'e'; e: LedgerEvent } | { t: 's'; s: SendRecord } | { t: 'd'; d: DeliveryRecord }

/**
 * Batches ledger rows of one run into SQLite transactions (every 100 ms or 500 rows by default).
 * The database is in WAL mode, so readers see each committed batch while the run goes on.
 */
export class LedgerWriter extends EventEmitter<LedgerWriterEvents> implements LedgerPort {
  readonly runId: number
  private readonly db: Database
  private readonly flushIntervalMs: number
  private readonly maxBatch: number
  private readonly now: () => number
  private pending: Row[] = []
  private timer: NodeJS.Timeout | undefined
  private closed = false
  private readonly insEvent: Statement
  private readonly insSend: Statement
  private readonly insDelivery: Statement
  private counts = { events: 0, sends: 0, deliveries: 0, batches: 0 }

  constructor(db: Database, runId: number, options: LedgerWriterOptions = {}) {
    super()
    this.db = db
    this.runId = runId
    this.flushIntervalMs = options.flushIntervalMs ?? 100
    this.maxBatch = options.maxBatch ?? 500
    this.now = options.now ?? (() => performance.timeOrigin + performance.now())
    this.insEvent = db.prepare(
      'INSERT INTO ledger_events (run_id, at_ms, kind, client_id, room, data_json) VALUES (?, ?, ?, ?, ?, ?)'
    )
    this.insSend = db.prepare(
      `INSERT OR REPLACE INTO ledger_sends (run_id, msg_key, client_id, client_room, namesrv_id, namesrv_room,
         broker_name, broker_room, queue_id, queue_offset, started_at, attempt_started_at, ended_at, status,
         attempts, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
    )
    this.insDelivery = db.prepare(
      `INSERT INTO ledger_deliveries (run_id, msg_key, client_id, client_room, namesrv_room, broker_name,
         broker_room, queue_id, queue_offset, born_at, delivered_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
    )
  }

  /** Rows written so far (for progress and tests). */
  get stats(): {
    events: number
    sends: number
    deliveries: number
    batches: number
    pending: number
  } {
    return { ...this.counts, pending: this.pending.length }
  }

  event<K extends LedgerEventKind>(
    kind: K,
    clientId: string | null,
    room: string | null,
    data: LedgerEventData[K],
    atMs?: number
  ): void {
    const e = {
      runId: this.runId,
      atMs: atMs ?? this.now(),
      kind,
      clientId,
      room,
      data
    } as LedgerEvent
    this.push({ t: 'e', e })
    this.emit('event', e)
  }

  send(record: SendRecord): void {
    this.push({ t: 's', s: record })
  }

  delivery(record: DeliveryRecord): void {
    this.push({ t: 'd', d: record })
  }

  /** Writes everything pending in one transaction; safe to call any time. */
  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer)
      this.timer = undefined
    }
    if (this.pending.length === 0) return
    const batch = this.pending
    this.pending = []
    try {
      this.db.transaction(() => {
        for (const r of batch) this.write(r)
      })()
      this.counts.batches++
    } catch (e) {
      this.emit('error', e instanceof Error ? e : new Error(String(e)))
    }
  }

  /** Flushes and stops; later writes are ignored. */
  close(): void {
    this.flush()
    this.closed = true
  }

  private push(row: Row): void {
    if (this.closed) return
    this.pending.push(row)
    if (this.pending.length >= this.maxBatch) this.flush()
    else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined
        this.flush()
      }, this.flushIntervalMs)
      this.timer.unref?.()
    }
  }

  private write(r: Row): void {
    switch (r.t) {
      case 'e':
        this.insEvent.run(
          this.runId,
          r.e.atMs,
          r.e.kind,
          r.e.clientId,
          r.e.room,
          JSON.stringify(r.e.data)
        )
        this.counts.events++
        return
      case 's': {
        const s = r.s
        this.insSend.run(
          this.runId,
          s.key,
          s.clientId,
          s.clientRoom,
          s.namesrvId,
          s.namesrvRoom,
          s.brokerName,
          s.brokerRoom,
          s.queueId,
          s.queueOffset,
          s.startedAt,
          s.attemptStartedAt,
          s.endedAt,
          s.status,
          s.attempts,
          s.error
        )
        this.counts.sends++
        return
      }
      case 'd': {
        const d = r.d
        this.insDelivery.run(
          this.runId,
          d.key,
          d.clientId,
          d.clientRoom,
          d.namesrvRoom,
          d.brokerName,
          d.brokerRoom,
          d.queueId,
          d.queueOffset,
          d.bornAt,
          d.deliveredAt
        )
        this.counts.deliveries++
      }
    }
  }
}
