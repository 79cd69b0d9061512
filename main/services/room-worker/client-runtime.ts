import { WarmupWindow } from './warmup-window'
import type { ClientChoice } from '../../../common/scenario/events'
import { usesGrpcSdk } from '../../../common/topology/lanes'
import type { GrpcSdk } from '../clients/grpc-lane/sdk-port'
import { DrConsumer } from '../clients/room-aware/consumer'
import { DrProducer } from '../clients/room-aware/producer'
import type { Clock } from '../clients/room-aware/ports'
import { pause } from '../clients/room-aware/ports'
import { readableQueues } from '../clients/room-aware/route-table'
import { ClientCores } from '../clients/room-aware/client-core'
import type { ClientFactoryDeps, HostedClient } from './client-factory'
import { createHostedClient } from './client-factory'
import type { ClientSpec, ClientState, TxFact, WorkerOp, WorkerOps } from '../worker-wire/protocol'
import {
  LOCAL_TRANSACTION_RETENTION_MS,
  LocalTransactions
} from '../clients/room-aware/local-transactions'
import { SendSchedule } from './send-schedule'
import type { WireLedger } from './wire-ledger'

interface Hosted {
  spec: ClientSpec
  hosted: HostedClient
  alive: boolean
}

/** A request the runtime refuses, with a code the engine can act on. */
export class RuntimeError extends Error {
  constructor(
    message: string,
    readonly code: string
  ) {
    super(message)
  }
}

export interface ClientRuntimeDeps extends Omit<ClientFactoryDeps, 'ledger' | 'clock' | 'sdk'> {
  ledger: WireLedger
  clock: Clock
  onChoice: (c: ClientChoice) => void
  /** A local transaction one of its gRPC producers ran, for the lane's workers in other rooms. */
  onTransaction?: (fact: TxFact) => void
  /**
   * Loads rocketmq-client-nodejs for the grpc and baseline lanes, on the first such client: a
   * worker hosting only remoting clients never loads it (about 7 MB of heap). Absent: refused.
   */
  loadSdk?: () => Promise<GrpcSdk>
}

type Result<O extends keyof WorkerOps> = Promise<WorkerOps[O]['result']>
type Args<O extends keyof WorkerOps> = WorkerOps[O]['args']

/**
 * What a Node client worker does, without the transport: hosts the room's producers and consumers,
 * runs the open-loop schedule, and answers the engine's questions about them. The room worker
 * wraps it in frames; unit tests drive it in-process with fake brokers.
 */
export class ClientRuntime {
  private readonly clients = new Map<string, Hosted>()
  private schedule: SendSchedule | undefined
  private sdk: Promise<GrpcSdk> | undefined
  /**
   * The local transactions of the worker's gRPC producers and of the lane's other rooms (tx.learn),
   * one store as an application's database: a proxy may ask any producer of the topic.
   */
  private readonly transactions: LocalTransactions
  /** The remoting lane's client cores: one connection pool, directory and route keeper per worker. */
  private readonly cores: ClientCores

  constructor(private readonly deps: ClientRuntimeDeps) {
    this.cores = new ClientCores(deps)
    this.transactions = new LocalTransactions(
      () => deps.clock.now(),
      LOCAL_TRANSACTION_RETENTION_MS,
      (key, decision, storedAs) => deps.onTransaction?.({ key, decision, storedAs })
    )
  }

  /** Answers one protocol request (everything but hello, which is the transport's). */
  handle<O extends Exclude<WorkerOp, 'hello'>>(op: O, args: Args<O>): Result<O> {
    const a = args as never
    const table: { [K in Exclude<WorkerOp, 'hello'>]: (x: Args<K>) => Result<K> } = {
      'client.create': (x) => this.create(x),
      'client.start': (x) => this.start(x),
      'client.stop': (x) => this.stop(x),
      'client.remove': (x) => this.remove(x),
      'client.state': (x) => this.state(x),
      warmup: (x) => this.warmup(x),
      'workload.start': (x) => this.workloadStart(x),
      'workload.stop': (x) => this.workloadStop(x),
      shutdown: async () => {
        await this.stopAll('graceful')
        return {}
      },
      'tx.learn': async ({ facts }) => {
        for (const f of facts) this.transactions.learn(f.key, f.decision, f.storedAs)
        return {}
      }
    }
    const fn = table[op] as ((x: never) => Result<O>) | undefined
    if (!fn) {
      return Promise.reject(new RuntimeError(`unknown op ${String(op)}`, 'unknown-op'))
    }
    return fn(a)
  }

  async create({ spec }: Args<'client.create'>): Result<'client.create'> {
    // Loaded before the existence check, so no await separates that check from the insert.
    const sdk = usesGrpcSdk(spec.lane) ? await this.sdkFor(spec) : undefined
    if (this.clients.has(spec.id)) {
      throw new RuntimeError(`client ${spec.id} already exists; remove it first`, 'exists')
    }
    const deps = sdk
      ? { ...this.deps, sdk: () => sdk, transactions: this.transactions }
      : { ...this.deps, cores: this.cores }
    const hosted = createHostedClient(spec, deps, this.deps.onChoice)
    this.clients.set(spec.id, { spec, hosted, alive: false })
    return {}
  }

  /** The SDK, loaded once; undefined without a loader (createHostedClient then refuses the lane). */
  private async sdkFor(spec: ClientSpec): Promise<GrpcSdk | undefined> {
    if (!this.deps.loadSdk) return undefined
    this.sdk ??= this.deps.loadSdk()
    try {
      return await this.sdk
    } catch (e) {
      this.sdk = undefined
      const why = (e as Error).message
      throw new Error(`${spec.id}: the ${spec.lane} lane needs rocketmq-client-nodejs (${why})`)
    }
  }

  async start({ id, timeoutMs }: Args<'client.start'>): Result<'client.start'> {
    const c = this.get(id)
    await c.hosted.client.start(timeoutMs)
    c.alive = true
    return { cid: c.hosted.client.cid }
  }

  async stop({ id, mode }: Args<'client.stop'>): Result<'client.stop'> {
    const c = this.get(id)
    c.alive = false
    await c.hosted.client.stop(mode)
    this.deps.ledger.flush()
    return {}
  }

  async remove({ id }: Args<'client.remove'>): Result<'client.remove'> {
    const c = this.clients.get(id)
    if (!c) return {}
    try {
      if (c.alive) await this.stop({ id, mode: 'graceful' })
    } finally {
      this.clients.delete(id)
      this.cores.release(id)
    }
    return {}
  }

  async state({ ids }: Args<'client.state'>): Result<'client.state'> {
    const wanted = ids ? ids.map((id) => this.get(id)) : [...this.clients.values()]
    return { clients: wanted.map((c) => stateOf(c)) }
  }

  async warmup(args: Args<'warmup'>): Result<'warmup'> {
    const deadline = this.deps.clock.now() + args.timeoutMs
    const body = Buffer.alloc(64, 0x77)
    const entries = await Promise.all(
      args.ids.map(async (id): Promise<[string, boolean]> => {
        const window = new WarmupWindow(args.streak, args.fastMs)
        while (this.deps.clock.now() < deadline) {
          const c = this.clients.get(id)
          if (!c || !c.alive || c.hosted.role !== 'producer') return [id, false]
          const p = c.hosted.client
          const r = await p.send({ body, tags: args.tag, record: false })
          const isolated = p.faults.list().length > 0
          if (window.add({ ...r, isolated })) return [id, true]
          await pause(5)
        }
        return [id, false]
      })
    )
    return { warmed: Object.fromEntries(entries) }
  }

  async workloadStart(args: Args<'workload.start'>): Result<'workload.start'> {
    if (this.schedule) throw new RuntimeError('a workload is already running', 'busy')
    for (const p of args.producers) {
      const c = this.clients.get(p.id)
      if (!c || c.hosted.role !== 'producer') {
        throw new RuntimeError(
          `workload names ${p.id}, which is not a producer here`,
          'unknown-client'
        )
      }
    }
    this.schedule = new SendSchedule(args, {
      now: () => this.deps.clock.now(),
      ledger: this.deps.ledger,
      roomOf: (id) => this.clients.get(id)?.spec.room ?? null,
      lookup: (id) => {
        const c = this.clients.get(id)
        return c?.alive && c.hosted.role === 'producer' ? c.hosted.client : undefined
      }
    })
    this.schedule.start()
    return {}
  }

  async workloadStop({ waitMs }: Args<'workload.stop'>): Result<'workload.stop'> {
    const s = this.schedule
    this.schedule = undefined
    const result = s ? await s.stop(waitMs) : { skipped: {}, scheduled: {} }
    this.deps.ledger.flush()
    return result
  }

  /** Graceful stop of everything (shutdown), or crash-stop (the engine went away). */
  async stopAll(mode: 'graceful' | 'crash'): Promise<void> {
    await this.schedule?.stop(0)
    this.schedule = undefined
    await Promise.allSettled(
      [...this.clients.values()]
        .filter((c) => c.alive)
        .map((c) => this.stop({ id: c.spec.id, mode }))
    )
    this.cores.closeAll()
    this.deps.ledger.flush()
  }

  private get(id: string): Hosted {
    const c = this.clients.get(id)
    if (!c) throw new RuntimeError(`no client ${id} in this worker`, 'unknown-client')
    return c
  }
}

function stateOf(c: Hosted): ClientState {
  const client = c.hosted.client
  const base: ClientState = { id: c.spec.id, alive: c.alive, cid: c.alive ? client.cid : null }
  if (client instanceof DrConsumer) {
    return {
      ...base,
      assignment: client.assignment().map((q) => ({ ...q })),
      readableQueues: readableQueues(client.routes.brokers)
    }
  }
  if (client instanceof DrProducer)
    return { ...base, isolated: client.faults.list().map((f) => f.brokerName) }
  return base
}
