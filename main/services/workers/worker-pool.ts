import { EventEmitter } from 'node:events'
import type { ClientChoice } from '../../../common/scenario/events'
import type { WorkerChannel, WorkerFactory, WorkerKey } from './client-fleet'
import { workerName } from './client-fleet'
import { isJavaLane } from '../../../common/topology/lanes'
import { planJavaWorkers } from './java-worker-command'
import type { ClientSpec, TxFact, WireRow, WorkerOp, WorkerOps } from '../worker-wire/protocol'

/**
 * Which workers may be reused for one another: the same room and lane, and for a Java lane the
 * same JVM-wide settings its command was built from (address server, java-tuned's timers).
 */
export function poolKeyOf(key: WorkerKey, first: ClientSpec): string {
  const name = workerName(key)
  if (!isJavaLane(key.lane)) return name
  const plan = planJavaWorkers([first])[0]
  return `${name} ${JSON.stringify(plan ? [plan.addressServer, plan.tuning] : null)}`
}

interface LeaseEvents {
  rows: [WireRow[]]
  choice: [ClientChoice]
  'tx-ran': [TxFact[]]
  exit: [{ expected: boolean; code: number | null; signal: string | null }]
}

/** How long giving a worker back may take (stopping the run's clients) before it is shut down. */
const RELEASE_BUDGET_MS = 15_000

/**
 * One run's use of a pooled worker. To the run's fleet it is the worker; `shutdown()` gives the
 * process back instead: it stops the workload and removes the clients this run created, each
 * removal a graceful stop whose rows the worker sends before it answers, so no row of the run is
 * lost and none reaches the next one.
 */
class WorkerLease extends EventEmitter<LeaseEvents> implements WorkerChannel {
  private readonly created = new Set<string>()
  private released = false

  constructor(
    readonly worker: WorkerChannel,
    private readonly giveBack: (lease: WorkerLease, clean: boolean) => void
  ) {
    super()
  }

  get alive(): boolean {
    return !this.released && this.worker.alive
  }

  async request<O extends WorkerOp>(
    op: O,
    args: WorkerOps[O]['args'],
    timeoutMs?: number
  ): Promise<WorkerOps[O]['result']> {
    if (this.released) throw new Error(`${op}: this run has given its worker back`)
    const result = await this.worker.request(op, args, timeoutMs)
    if (op === 'client.create')
      this.created.add((args as WorkerOps['client.create']['args']).spec.id)
    if (op === 'client.remove') this.created.delete((args as WorkerOps['client.remove']['args']).id)
    return result
  }

  async shutdown(graceMs = RELEASE_BUDGET_MS): Promise<void> {
    if (this.released) return
    let clean = this.worker.alive
    try {
      if (clean) await this.reset(graceMs)
    } catch {
      clean = false
    }
    this.released = true
    this.giveBack(this, clean)
    if (!clean && this.worker.alive) await this.worker.shutdown(graceMs)
  }

  kill(): void {
    this.worker.kill()
  }

  private async reset(graceMs: number): Promise<void> {
    await this.worker.request('workload.stop', { waitMs: 0 }, graceMs)
    await Promise.all(
      [...this.created].map((id) => this.worker.request('client.remove', { id }, graceMs))
    )
    this.created.clear()
  }
}

/**
 * Keeps client workers alive from one run to the next, for a series of runs on one deployment
 * (the lane benchmark runs 24): spawning 12 processes per run (6 of them JVMs) cost about 15 s of
 * setup on 2 cores and loaded the machine the faults are measured on. Each run still gets fresh
 * client instances; only the processes carry over. A worker that died, or could not be given back
 * clean, is not reused. `close()` shuts every worker down; nothing outlives it.
 */
export class WorkerPool {
  private readonly idle = new Map<string, WorkerChannel[]>()
  private readonly everyWorker = new Set<WorkerChannel>()
  private readonly current = new Map<WorkerChannel, WorkerLease>()
  private closed = false
  private spawnCount = 0

  constructor(
    private readonly spawn: WorkerFactory,
    private readonly keyOf: (key: WorkerKey, first: ClientSpec) => string = poolKeyOf
  ) {}

  /** The WorkerFactory runs are given. */
  readonly workers: WorkerFactory = (key, first) => {
    if (this.closed) throw new Error(`${workerName(key)}: the worker pool is closed`)
    const poolKey = this.keyOf(key, first)
    const parked = this.idle.get(poolKey) ?? []
    let worker = parked.pop()
    while (worker && !worker.alive) worker = parked.pop()
    if (!worker) {
      worker = this.adopt(this.spawn(key, first))
      this.spawnCount++
    }
    const lease = new WorkerLease(worker, (l, clean) => this.giveBack(poolKey, l, clean))
    this.current.set(worker, lease)
    return lease
  }

  /** Processes spawned so far (a reused one counts once). */
  get spawned(): number {
    return this.spawnCount
  }

  /** Workers alive now, leased or idle. */
  get size(): number {
    return [...this.everyWorker].filter((w) => w.alive).length
  }

  /** Shuts every worker down, leased ones included. */
  async close(): Promise<void> {
    this.closed = true
    const all = [...this.everyWorker]
    this.idle.clear()
    await Promise.allSettled(all.map((w) => w.shutdown()))
  }

  private adopt(worker: WorkerChannel): WorkerChannel {
    this.everyWorker.add(worker)
    // One subscription per process, routed to whichever run leases it now.
    worker.on('rows', (rows) => this.current.get(worker)?.emit('rows', rows))
    worker.on('choice', (c) => this.current.get(worker)?.emit('choice', c))
    worker.on('tx-ran', (f) => this.current.get(worker)?.emit('tx-ran', f))
    worker.on('exit', (e) => {
      this.everyWorker.delete(worker)
      const lease = this.current.get(worker)
      this.current.delete(worker)
      lease?.emit('exit', e)
    })
    return worker
  }

  private giveBack(poolKey: string, lease: WorkerLease, clean: boolean): void {
    const worker = lease.worker
    if (this.current.get(worker) === lease) this.current.delete(worker)
    if (!clean || this.closed || !worker.alive) return
    this.idle.set(poolKey, [...(this.idle.get(poolKey) ?? []), worker])
  }
}
