import { EventEmitter } from 'node:events'
import { appendFileSync, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
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
  /**
   * Where rows go when SQLite refuses them (JSON lines): from the first failed write on, every row
   * of the run is appended there instead, so nothing recorded is lost. Default: none (rows of a
   * failed batch are then only in the 'error' event's count).
   */
  rescueFile?: string
}

/** SQLite refused a batch; the run must fail loudly, and the rows are in `rescueFile`. */
export class LedgerWriteError extends Error {
  constructor(
    readonly cause: Error,
    readonly rows: number,
    readonly rescueFile: string | null
  ) {
    super(
      `the ledger could not be written (${cause.message}); ` +
        (rescueFile
          ? `${rows} rows and every later one are kept in ${rescueFile}`
          : `${rows} rows could not be kept`) +
        '. Check free disk space and that no other program locks the database, then run again.'
    )
    this.name = 'LedgerWriteError'
  }
}

export interface LedgerWriterEvents {
  /** Every event as it is recorded (before it reaches SQLite), for live views. */
  event: [LedgerEvent]
  /** A batch could not be written (once per writer); later rows go to the rescue file. */
  error: [LedgerWriteError]
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
  private failed: LedgerWriteError | undefined
  private readonly rescueFile: string | null
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
    this.rescueFile = options.rescueFile ?? null
    this.insEvent = db.prepare(
      'INSERT INTO ledger_events (run_id, at_ms, kind, client_id, room, data_json) VALUES (?, ?, ?, ?, ?, ?)'
    )
    this.insSend = db.prepare(
      `INSERT OR REPLACE INTO ledger_sends (run_id, msg_key, client_id, client_room, namesrv_id, namesrv_room,
         broker_name, broker_room, queue_id, queue_offset, started_at, attempt_started_at, ended_at, status,
         attempts, error, scheduled_at, due_at, order_key, order_seq, tx_decision, tx_end)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
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
    if (this.failed) {
      this.rescue(batch)
      return
    }
    try {
      this.db.transaction(() => {
        for (const r of batch) this.write(r)
      })()
      this.counts.batches++
    } catch (e) {
      const cause = e instanceof Error ? e : new Error(String(e))
      this.failed = new LedgerWriteError(cause, batch.length, this.rescueFile)
      this.rescue(batch)
      // Never thrown: a flush can run inside a client's send, which must not book it as a failure.
      if (this.listenerCount('error') > 0) this.emit('error', this.failed)
    }
  }

  /** The write failure, once SQLite refused a batch. */
  get failure(): LedgerWriteError | undefined {
    return this.failed
  }

  private rescue(batch: Row[]): void {
    if (!this.rescueFile) return
    try {
      mkdirSync(dirname(this.rescueFile), { recursive: true })
      appendFileSync(
        this.rescueFile,
        batch.map((r) => JSON.stringify({ runId: this.runId, ...r })).join('\n') + '\n'
      )
    } catch {
      // Nowhere left to write: the error already says the rows could not be kept.
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
          s.error,
          s.scheduledAt ?? null,
          s.dueAt ?? null,
          s.orderKey ?? null,
          s.orderSeq ?? null,
          s.txDecision ?? null,
          s.txEnd ?? null
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
