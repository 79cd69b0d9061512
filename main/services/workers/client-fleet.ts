import { EventEmitter } from 'node:events'
import type { ClientChoice } from '../../../common/scenario/events'
import type { ClientLane } from '../../../common/topology/lanes'
import { JAVA_LANES, NODE_LANES } from '../../../common/topology/lanes'
import type {
  ClientSpec,
  ClientState,
  SkippedSends,
  TxFact,
  WireRow,
  WorkerOp,
  WorkerOps
} from '../worker-wire/protocol'
import { PROTOCOL_VERSION } from '../worker-wire/protocol'

/** What the fleet needs from one worker: the WorkerConnection, or an in-process one in tests. */
export interface WorkerChannel {
  request<O extends WorkerOp>(
    op: O,
    args: WorkerOps[O]['args'],
    timeoutMs?: number
  ): Promise<WorkerOps[O]['result']>
  on(event: 'rows', fn: (rows: WireRow[]) => void): unknown
  on(event: 'choice', fn: (c: ClientChoice) => void): unknown
  on(event: 'tx-ran', fn: (facts: TxFact[]) => void): unknown
  on(
    event: 'exit',
    fn: (e: { expected: boolean; code: number | null; signal: string | null }) => void
  ): unknown
  shutdown(graceMs?: number): Promise<unknown>
  kill(): void
  readonly alive: boolean
}

/**
 * Which process hosts a client: one per room and lane. A Java JVM per Java lane because the
 * address server, zone mode and java-tuned's timers are JVM-wide system properties; a Node worker
 * per Node lane so lanes compared side by side never share an event loop (the gRPC library's
 * work would otherwise delay our remoting client's sends, and the other way round).
 */
export interface WorkerKey {
  room: string
  lane: ClientLane
  /** A lane variant: its own process beside the lane's (ClientSpec.variant). */
  variant?: string
}

export function workerKeyOf(spec: Pick<ClientSpec, 'room' | 'lane' | 'variant'>): WorkerKey {
  return { room: spec.room, lane: spec.lane, ...(spec.variant ? { variant: spec.variant } : {}) }
}

/**
 * `worker-room1` for our remoting lane, `<lane>-worker-room1` for the others, and
 * `<variant>-worker-room1` for a lane variant.
 */
export const workerName = (k: WorkerKey): string =>
  k.variant
    ? `${k.variant}-worker-${k.room}`
    : k.lane === 'remoting'
      ? `worker-${k.room}`
      : `${k.lane}-worker-${k.room}`

/** Spawns the worker for a key; `first` is the client it is spawned for (Java JVMs read it). */
export type WorkerFactory = (key: WorkerKey, first: ClientSpec) => WorkerChannel

export interface FleetEvents {
  rows: [WireRow[]]
  choice: [ClientChoice]
  /** A worker died on its own: every client it hosted is down (a real fault of those clients). */
  'worker-exit': [{ worker: string; room: string; clients: string[]; reason: string }]
}

interface FleetClient {
  spec: ClientSpec
  key: string
  alive: boolean
}

interface RunningWorkload {
  args: WorkerOps['workload.start']['args']
  /** Workers that run part of it. */
  on: Set<string>
}

/**
 * Every client worker of a run, addressed by client id: spawns a room's worker on first use (and
 * again after it died), splits workload and warm-up requests per worker, and keeps the engine's
 * view of which clients are alive. Rows and choices of all workers come out as one stream.
 */
export class ClientFleet extends EventEmitter<FleetEvents> {
  private readonly workers = new Map<
    string,
    { key: WorkerKey; channel: WorkerChannel; ready: Promise<void> }
  >()
  private readonly clients = new Map<string, FleetClient>()
  private workload: RunningWorkload | undefined

  constructor(
    private readonly factory: WorkerFactory,
    private readonly now: () => number = Date.now
  ) {
    super()
  }

  /** Client ids and whether each is alive, as far as the engine knows. */
  isAlive(id: string): boolean {
    return this.clients.get(id)?.alive ?? false
  }

  get ids(): string[] {
    return [...this.clients.keys()]
  }

  async create(spec: ClientSpec): Promise<void> {
    const key = workerKeyOf(spec)
    const name = workerName(key)
    const w = await this.worker(key, spec)
    await w.request('client.create', { spec })
    this.clients.set(spec.id, { spec, key: name, alive: false })
  }

  async start(id: string, timeoutMs: number): Promise<{ cid: string | null }> {
    const c = this.client(id)
    const w = await this.worker(workerKeyOf(c.spec), c.spec)
    const r = await w.request('client.start', { id, timeoutMs }, timeoutMs + 5000)
    c.alive = true
    return r
  }

  async stop(id: string, mode: 'graceful' | 'crash'): Promise<void> {
    const c = this.client(id)
    c.alive = false
    const w = this.workers.get(c.key)
    if (!w?.channel.alive) return
    await w.channel.request('client.stop', { id, mode })
  }

  /** Stops (gracefully) and starts a fresh instance; respawns the client's worker if it died. */
  async restart(id: string, timeoutMs: number): Promise<void> {
    const c = this.client(id)
    const w = this.workers.get(c.key)
    if (w?.channel.alive) {
      c.alive = false
      await w.channel.request('client.remove', { id })
    }
    await this.create(c.spec)
    await this.start(id, timeoutMs)
    await this.joinWorkload(c)
  }

  async states(ids?: string[]): Promise<ClientState[]> {
    const out: ClientState[] = []
    for (const [name, group] of this.groupByWorker(ids ?? this.ids)) {
      const w = this.workers.get(name)
      if (!w?.channel.alive) {
        out.push(...group.map((id) => ({ id, alive: false, cid: null })))
        continue
      }
      out.push(...(await w.channel.request('client.state', { ids: group })).clients)
    }
    return out
  }

  async warmup(
    ids: string[],
    args: Omit<WorkerOps['warmup']['args'], 'ids'>
  ): Promise<Record<string, boolean>> {
    const parts = await Promise.all(
      [...this.groupByWorker(ids)].map(async ([name, group]) => {
        const w = this.workers.get(name)
        if (!w?.channel.alive) return Object.fromEntries(group.map((id) => [id, false]))
        return (await w.channel.request('warmup', { ...args, ids: group }, args.timeoutMs + 10_000))
          .warmed
      })
    )
    return Object.assign({}, ...parts) as Record<string, boolean>
  }

  /** Starts the open-loop schedule on every worker that hosts one of the producers. */
  async startWorkload(args: WorkerOps['workload.start']['args']): Promise<void> {
    if (this.workload) throw new Error('a workload is already running')
    const running: RunningWorkload = { args, on: new Set() }
    this.workload = running
    await Promise.all(
      [...this.groupByWorker(args.producers.map((p) => p.id))].map(async ([name, group]) => {
        const w = this.workers.get(name)
        if (!w?.channel.alive) return
        const set = new Set(group)
        await w.channel.request('workload.start', {
          ...args,
          producers: args.producers.filter((p) => set.has(p.id))
        })
        running.on.add(name)
      })
    )
  }

  /** Stops the schedule everywhere; skip counts of workers that died are lost (the report says). */
  async stopWorkload(
    waitMs: number
  ): Promise<{ skipped: Record<string, SkippedSends>; scheduled: Record<string, number> }> {
    const running = this.workload
    this.workload = undefined
    const merged = { skipped: {}, scheduled: {} }
    if (!running) return merged
    const parts = await Promise.all(
      [...running.on].map(async (name) => {
        const w = this.workers.get(name)
        if (!w?.channel.alive) return merged
        return w.channel.request('workload.stop', { waitMs }, waitMs + 10_000).catch(() => merged)
      })
    )
    for (const p of parts) {
      Object.assign(merged.skipped, p.skipped)
      Object.assign(merged.scheduled, p.scheduled)
    }
    return merged
  }

  /** SIGKILL of a room's worker of one lane: a crash of every client in it. */
  killWorker(room: string, lane: ClientLane = 'remoting'): string[] {
    const name = workerName({ room, lane })
    const w = this.workers.get(name)
    const hosted = [...this.clients.values()].filter((c) => c.key === name && c.alive)
    w?.channel.kill()
    return hosted.map((c) => c.spec.id)
  }

  /** Stops every client (gracefully) and every worker. */
  async close(): Promise<void> {
    this.workload = undefined
    await Promise.allSettled([...this.workers.values()].map((w) => w.channel.shutdown()))
    for (const c of this.clients.values()) c.alive = false
    this.workers.clear()
  }

  private async joinWorkload(c: FleetClient): Promise<void> {
    const running = this.workload
    if (!running || c.spec.role !== 'producer') return
    const producer = running.args.producers.find((p) => p.id === c.spec.id)
    if (!producer) return
    const w = this.workers.get(c.key)
    // Still hosting its share of the schedule: the restarted producer is picked up by id.
    if (!w || running.on.has(c.key)) return
    const mates = running.args.producers.filter(
      (p) => this.clients.get(p.id)?.key === c.key && this.clients.get(p.id)?.alive
    )
    await w.channel.request('workload.start', {
      ...running.args,
      producers: mates,
      joinAt: this.now()
    })
    running.on.add(c.key)
  }

  private client(id: string): FleetClient {
    const c = this.clients.get(id)
    if (!c) throw new Error(`no client ${id} in this run`)
    return c
  }

  private groupByWorker(ids: string[]): Map<string, string[]> {
    const out = new Map<string, string[]>()
    for (const id of ids) {
      const c = this.client(id)
      out.set(c.key, [...(out.get(c.key) ?? []), id])
    }
    return out
  }

  /**
   * Tells the lane's workers in other rooms what local transactions `from` ran: a proxy asks any
   * producer of the topic about a transaction, whichever room sent it (protocol.ts, tx.learn).
   */
  private shareTransactions(from: string, key: WorkerKey, facts: TxFact[]): void {
    for (const [name, w] of this.workers) {
      if (name === from || w.key.lane !== key.lane || w.key.variant !== key.variant) continue
      if (!w.channel.alive) continue
      // A worker that stopped meanwhile answers nothing more: its check-backs are moot.
      w.channel.request('tx.learn', { facts }).catch(() => undefined)
    }
  }

  private async worker(key: WorkerKey, first: ClientSpec): Promise<WorkerChannel> {
    const name = workerName(key)
    const existing = this.workers.get(name)
    if (existing?.channel.alive) {
      await existing.ready
      return existing.channel
    }
    const channel = this.factory(key, first)
    channel.on('rows', (rows) => this.emit('rows', rows))
    channel.on('choice', (c) => this.emit('choice', c))
    channel.on('tx-ran', (facts) => this.shareTransactions(name, key, facts))
    channel.on('exit', (e) => {
      const hosted = [...this.clients.values()].filter((c) => c.key === name)
      const wasAlive = hosted.filter((c) => c.alive).map((c) => c.spec.id)
      for (const c of hosted) c.alive = false
      this.workload?.on.delete(name)
      if (e.expected) return
      const how = e.signal ? `killed by ${e.signal}` : `exited with code ${e.code}`
      this.emit('worker-exit', { worker: name, room: key.room, clients: wasAlive, reason: how })
    })
    const ready = channel
      .request('hello', { protocol: PROTOCOL_VERSION, workerId: name, room: key.room })
      .then((hello) => {
        if (hello.protocol !== PROTOCOL_VERSION) {
          throw new Error(
            `${name} speaks worker protocol ${hello.protocol}, the engine ${PROTOCOL_VERSION}; rebuild it (npm run setup)`
          )
        }
      })
    this.workers.set(name, { key, channel, ready })
    await ready
    return channel
  }
}

/**
 * Every worker a room may need (one per lane), for placing them in its network. Node lanes first,
 * then Java ones: the order places get their addresses in.
 */
export function workerIdsFor(rooms: readonly string[]): { id: string; room: string }[] {
  const lanes: readonly ClientLane[] = [...NODE_LANES, ...JAVA_LANES]
  return rooms.flatMap((room) => lanes.map((lane) => ({ id: workerName({ room, lane }), room })))
}
