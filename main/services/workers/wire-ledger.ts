import type { LedgerEventData, LedgerEventKind } from '../../../common/scenario/events'
import type { DeliveryRecord, LedgerPort, SendRecord } from '../ledger/types'
import type { WireRow } from './protocol'

/**
 * The ledger as a worker's clients see it: rows are batched and handed to `flushTo` (the frame
 * writer) at least every `intervalMs` while any are pending, since only the engine writes SQLite.
 */
export class WireLedger implements LedgerPort {
  private pending: WireRow[] = []
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly flushTo: (rows: WireRow[]) => void,
    private readonly now: () => number,
    private readonly intervalMs = 50,
    private readonly maxBatch = 1000
  ) {}

  event<K extends LedgerEventKind>(
    kind: K,
    clientId: string | null,
    room: string | null,
    data: LedgerEventData[K],
    atMs?: number
  ): void {
    this.push({
      k: 'e',
      kind,
      clientId,
      room,
      atMs: atMs ?? this.now(),
      data: data as Record<string, unknown>
    })
  }

  send(record: SendRecord): void {
    this.push({ k: 's', ...record })
  }

  delivery(record: DeliveryRecord): void {
    this.push({ k: 'd', ...record })
  }

  /** Hands over everything pending now. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    if (this.pending.length === 0) return
    const rows = this.pending
    this.pending = []
    this.flushTo(rows)
  }

  private push(row: WireRow): void {
    this.pending.push(row)
    if (this.pending.length >= this.maxBatch) this.flush()
    else this.timer ??= setTimeout(() => this.flush(), this.intervalMs)
  }
}
