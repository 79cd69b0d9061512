import { EventEmitter } from 'node:events'
import type { ClientChoice } from '../../../common/scenario/events'
import type { ClientFactoryDeps } from './client-factory'
import { NODE_LANES } from '../../../common/topology/lanes'
import { ClientRuntime } from './client-runtime'
import type { TxFact, WireRow, WorkerOp, WorkerOps } from '../worker-wire/protocol'
import { PROTOCOL_VERSION } from '../worker-wire/protocol'
import { WireLedger } from './wire-ledger'

interface LocalWorkerEvents {
  rows: [WireRow[]]
  choice: [ClientChoice]
  'tx-ran': [TxFact[]]
  exit: [{ expected: boolean; code: number | null; signal: string | null }]
}

/**
 * A worker in the engine's own process, for unit tests with fake brokers: the same ClientRuntime
 * a room worker runs, without the process boundary. Production always spawns real workers. It is
 * the engine's WorkerChannel by shape (workers/ and room-worker/ do not import each other).
 */
export class LocalWorker extends EventEmitter<LocalWorkerEvents> {
  alive = true
  readonly runtime: ClientRuntime

  constructor(deps: Omit<ClientFactoryDeps, 'ledger' | 'sdk'> & { clock: { now(): number } }) {
    super()
    const ledger = new WireLedger(
      (rows) => this.emit('rows', rows),
      () => deps.clock.now(),
      1
    )
    this.runtime = new ClientRuntime({
      ...deps,
      ledger,
      onChoice: (c) => this.emit('choice', c),
      onTransaction: (f) => this.emit('tx-ran', [f])
    })
  }

  async request<O extends WorkerOp>(
    op: O,
    args: WorkerOps[O]['args']
  ): Promise<WorkerOps[O]['result']> {
    if (!this.alive) throw new Error(`local worker is dead (${op})`)
    if (op === 'hello') {
      return {
        protocol: PROTOCOL_VERSION,
        runtime: 'node',
        pid: process.pid,
        lanes: [...NODE_LANES]
      } as WorkerOps[O]['result']
    }
    return this.runtime.handle(op as Exclude<WorkerOp, 'hello'>, args as never) as Promise<
      WorkerOps[O]['result']
    >
  }

  async shutdown(): Promise<void> {
    if (!this.alive) return
    await this.runtime.stopAll('graceful')
    this.alive = false
    this.emit('exit', { expected: true, code: 0, signal: null })
  }

  /** A crash of every client it hosts, like SIGKILL of a real worker. */
  kill(): void {
    if (!this.alive) return
    this.alive = false
    void this.runtime.stopAll('crash')
    this.emit('exit', { expected: false, code: null, signal: 'SIGKILL' })
  }
}
