import type { TransactionPlan } from '../clients/room-aware/send-attempt'
import { transactionPlanOf } from '../../../common/scenario/transactions'
import type { LedgerPort } from '../ledger/types'
import type { SkippedSends, WorkerOps, WorkloadProducer } from '../worker-wire/protocol'

/** The part of a producer the schedule drives. */
export interface ScheduledProducer {
  send(input: {
    body: Buffer
    tags: string
    keys: string[]
    scheduledAt: number
    /** Delayed workload: when the broker should deliver it. */
    deliverAt?: number
    /** Ordered workload: the sharding key and the message's sequence number within it. */
    order?: { key: string; seq: number }
    /** Transactional workload: what the message's local transaction decides, and how it is told. */
    transaction?: TransactionPlan
  }): Promise<unknown>
}

/** Ordered workloads: slot `seq` (from 1) is key `(seq-1) mod keys`, the key's `floor((seq-1)/keys)`th message. */
export function orderOf(
  producerId: string,
  seq: number,
  keys: number
): { key: string; seq: number } {
  const i = seq - 1
  return { key: `${producerId}:k${i % keys}`, seq: Math.floor(i / keys) }
}

/** What `workload.start` carries is what the schedule runs: one definition, the wire's. */
export type SendScheduleOptions = WorkerOps['workload.start']['args']

export interface SendScheduleDeps {
  now: () => number
  /** The live producer under an id, or undefined while it is down (killed, stopped, restarting). */
  lookup: (id: string) => ScheduledProducer | undefined
  ledger: LedgerPort
  /** Room of a producer id (also while it is down), for the skip rows. */
  roomOf: (id: string) => string | null
  /** How often skip counts are recorded while a producer skips. */
  skipReportMs?: number
}

interface Slot {
  spec: WorkloadProducer
  interval: number
  next: number
  seq: number
  body: Buffer
  inflight: number
  skipped: SkippedSends
  /** Skips not yet recorded in the ledger. */
  unreported: SkippedSends
  lastReport: number
}

/**
 * Open-loop send schedule: each producer sends at its rate from t0 whether or not earlier sends
 * finished, so a stalled broker shows as latency and failures, not as fewer sends. A send that is
 * due while its producer is down or over the in-flight cap is skipped and counted, never made late.
 * Producers are looked up by id at every due send, so one restarted mid-run is picked up.
 */
export class SendSchedule {
  private readonly slots: Slot[]
  private readonly inflight = new Set<Promise<unknown>>()
  private timer: NodeJS.Timeout | undefined
  private kicked = false
  private stopped = false
  private idle: Promise<void>
  private markIdle: () => void = () => undefined

  constructor(
    private readonly opts: SendScheduleOptions,
    private readonly deps: SendScheduleDeps
  ) {
    this.slots = opts.producers.map((p) => ({
      spec: p,
      interval: 1000 / p.rate,
      next: opts.t0 + p.offsetMs,
      seq: 0,
      body: Buffer.alloc(Math.max(1, p.messageSize), 0x61),
      inflight: 0,
      skipped: { down: 0, inflightCap: 0 },
      unreported: { down: 0, inflightCap: 0 },
      lastReport: opts.t0
    }))
    const joinAt = opts.joinAt
    if (joinAt !== undefined) {
      for (const s of this.slots) {
        const behind = Math.max(0, Math.ceil((joinAt - s.next) / s.interval))
        s.next += behind * s.interval
        s.seq += behind
      }
    }
    this.idle = new Promise((r) => (this.markIdle = r))
  }

  start(): void {
    this.tick()
  }

  /** Resolves when the schedule has passed its end (never for an open-ended one). */
  get finished(): Promise<void> {
    return this.idle
  }

  /** Stops scheduling, waits up to waitMs for in-flight sends, and returns the counts. */
  async stop(
    waitMs: number
  ): Promise<{ skipped: Record<string, SkippedSends>; scheduled: Record<string, number> }> {
    this.halt()
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      Promise.allSettled([...this.inflight]),
      new Promise((r) => (timer = setTimeout(r, waitMs)))
    ])
    clearTimeout(timer)
    for (const s of this.slots) this.reportSkips(s, true)
    return {
      skipped: Object.fromEntries(this.slots.map((s) => [s.spec.id, { ...s.skipped }])),
      scheduled: Object.fromEntries(this.slots.map((s) => [s.spec.id, s.seq]))
    }
  }

  private halt(): void {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    this.markIdle()
  }

  private tick(): void {
    if (this.stopped) return
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    const now = this.deps.now()
    const end = this.opts.end ?? Infinity
    // Fire everything due before the end, even if a stall carried us past it.
    const upTo = Math.min(now, end - 0.001)
    for (const s of this.slots) {
      while (s.next <= upTo) {
        const due = s.next
        s.next += s.interval
        s.seq++
        this.fire(s, due)
      }
      this.reportSkips(s, false)
    }
    if (now >= end) {
      this.halt()
      return
    }
    const soonest = Math.min(...this.slots.map((s) => s.next))
    // Sleep until the next slot is due (not a fixed 5 ms poll: 8 lanes' workers polling 200 times a
    // second each cost the CPU a 2-core host needs for the brokers); a saturated producer is woken
    // by the end of a send (kick), and at least every 50 ms for the skip reports.
    const wait = Math.max(1, Math.min(50, soonest - now, end - now))
    this.timer = setTimeout(() => this.tick(), wait)
  }

  private fire(s: Slot, due: number): void {
    const producer = this.deps.lookup(s.spec.id)
    if (!producer) {
      s.skipped.down++
      s.unreported.down++
      return
    }
    if (s.inflight >= this.opts.maxInflight) {
      s.skipped.inflightCap++
      s.unreported.inflightCap++
      return
    }
    s.inflight++
    const key = `${s.spec.id}-${s.seq}`
    const tx = s.spec.transaction
    const send = producer
      .send({
        body: s.body,
        tags: this.opts.tag,
        keys: [key],
        scheduledAt: due,
        // Due from the schedule's slot, not the send: a late send shows as lateness, not hidden.
        ...(s.spec.delayMs !== undefined ? { deliverAt: due + s.spec.delayMs } : {}),
        ...(s.spec.orderKeys !== undefined
          ? { order: orderOf(s.spec.id, s.seq, s.spec.orderKeys) }
          : {}),
        ...(tx ? { transaction: transactionPlanOf(key, tx.commitShare, tx.checkShare) } : {})
      })
      .catch(() => undefined)
      .finally(() => {
        const wasCapped = s.inflight >= this.opts.maxInflight
        s.inflight--
        this.inflight.delete(send)
        if (wasCapped) this.kick()
      })
    this.inflight.add(send)
  }

  /**
   * A send ended while its producer was at the in-flight cap: fire what is due now rather than at
   * the next tick, so a saturated producer keeps `maxInflight` sends in flight (closed-loop rate).
   */
  private kick(): void {
    if (this.kicked || this.stopped) return
    this.kicked = true
    setImmediate(() => {
      this.kicked = false
      this.tick()
    })
  }

  private reportSkips(s: Slot, force: boolean): void {
    const { down, inflightCap } = s.unreported
    if (down + inflightCap === 0) return
    const now = this.deps.now()
    if (!force && now - s.lastReport < (this.deps.skipReportMs ?? 1000)) return
    s.lastReport = now
    s.unreported = { down: 0, inflightCap: 0 }
    this.deps.ledger.event('sends-skipped', s.spec.id, this.deps.roomOf(s.spec.id), {
      down,
      inflightCap
    })
  }
}
