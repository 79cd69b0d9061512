import { EventEmitter } from 'node:events'
import type { ClientChoice } from '../../../../common/scenario/events'
import type { SelectionPolicy } from '../../../../common/topology/schema'
import type { MessageExt } from '../../remoting/message'
import type { PullResult } from '../../remoting/message-requests'
import type { AllocateNearbyResult, QueueRef } from './allocate-nearby'
import type { BrokerCandidate } from './choose-broker'
import { allocateNearby, queueKey } from './allocate-nearby'
import type { NameServerCandidate } from './choose-name-server'
import { classifyFailure } from './classify-error'
import { buildClientId, roomOfClientId } from './client-id'
import type { QueueOffsetState } from './offset-memory'
import { mayBeHandoff, QueueOffsets } from './offset-memory'
import type { NameServerDirectory } from './name-server-directory'
import type { Clock, ManagementNodeRef, RemotingPort } from './ports'
import { pause, systemClock } from './ports'
import type { LockableQueue } from './queue-locks'
import { QueueLocks } from './queue-locks'
import { GroupViews } from './group-view'
import { readableQueues } from './route-table'
import type { RouteKeeper } from './route-keeper'
import type { CoredClientDeps } from './client-core'
import { ClientCore, coreOptionsOf } from './client-core'

export interface ConsumerOptions {
  /** Display id used in the ledger and the UI (e.g. `consumer-1`). */
  id: string
  room: string
  topic: string
  group: string
  /** Tag expression, `*` by default. */
  expression?: string
  managementNodes: readonly ManagementNodeRef[]
  initialNameServers?: readonly NameServerCandidate[]
  /** Rooms of brokers without a zone (an operator's brokers started without ROCKETMQ_ZONE). */
  brokerRooms?: Readonly<Record<string, string>>
  policy?: SelectionPolicy
  routeRefreshMs?: number
  requestTimeoutMs?: number
  heartbeatIntervalMs?: number
  /** Periodic re-check of membership; brokers' NOTIFY_CONSUMER_IDS_CHANGED triggers one at once. */
  rebalanceIntervalMs?: number
  /** Long-poll time a broker may hold a pull. */
  pollTimeoutMs?: number
  commitIntervalMs?: number
  managementRefreshMs?: number
  managementTimeoutMs?: number
  countersIntervalMs?: number
  /** Start offsets of queues the group never committed (`brokerName#queueId`); default 0. */
  startOffsets?: Readonly<Record<string, number>>
  /** See allocateNearby: what consumers of a room without brokers do. */
  homeless?: 'share' | 'idle'
  pullBatch?: number
  /**
   * Offsets survive losing a queue: commit it to the broker it was pulled from when lost (and at a
   * graceful stop), remember how far it was consumed, never resume it below that, and wait
   * `handoffMs` before reading the offset of a queue a live peer may still be committing. Off: the
   * commit goes through the current route only and a regained queue starts at the broker's offset.
   */
  keepOffsets?: boolean
  handoffMs?: number
  /**
   * Orderly consumption (ordered workloads): a queue is pulled only under its lock at the broker,
   * taken before its offset is read, renewed every `lockRenewMs`, retried every `lockRetryMs` while
   * refused, and given back when the queue leaves.
   */
  orderly?: boolean
  lockRenewMs?: number
  lockRetryMs?: number
  /**
   * Orderly: a queue whose lock a departed client (gone from every broker's consumer list) still
   * holds is freed in its name rather than waited out (the broker keeps it 60 s). Off: the stock
   * behaviour, waiting for the broker to expire it.
   */
  freeDepartedLocks?: boolean
}

/** A message as handed to listeners, with where it came from. */
export interface DeliveredMessage {
  key: string
  message: MessageExt
  brokerName: string
  brokerRoom: string | null
  queueId: number
}

export interface ConsumerEvents {
  choice: [ClientChoice]
  message: [DeliveredMessage]
  rebalance: [QueueRef[]]
}

interface OwnedQueue extends QueueOffsetState, LockableQueue {
  active: boolean
  /** When its pulls began to fail (a stall the canvas shows); null while they answer. */
  failingSince: number | null
  stop: AbortController
  /** Epoch ms before which the offset is not read (a handoff from a live peer). */
  readAfter: number
  /** Taken from an orphaned room: an offset read before it was needed may be used (prepareOffsets). */
  orphaned: boolean
  /** The broker's committed offset, asked alongside the first pull from an offset read ahead. */
  confirming: Promise<number | undefined> | undefined
}

type Defaulted = Required<Omit<ConsumerOptions, 'initialNameServers'>> &
  Pick<ConsumerOptions, 'initialNameServers'>

let instanceSeq = 0

/** How long a departed client's locks are worth freeing: the broker's own lock lifetime (60 s). */
const DEPARTED_LOCK_MS = 60_000

/**
 * Room-aware pull consumer: heartbeats to every broker of its route with its room in its client
 * id, long-polls the queues the method's nearby rule gives it, commits offsets to the brokers, and
 * rebalances periodically, on route changes and at once when a broker notifies a membership change.
 */
export class DrConsumer extends EventEmitter<ConsumerEvents> {
  readonly id: string
  readonly room: string
  /** The id brokers list in GET_CONSUMER_LIST_BY_GROUP (`ip@instance@room`). */
  readonly cid: string
  readonly directory: NameServerDirectory
  readonly routes: RouteKeeper
  private readonly opts: Defaulted
  private readonly remoting: RemotingPort
  private readonly core: ClientCore
  private readonly ownsCore: boolean
  private readonly clock: Clock
  private readonly owned = new Map<string, OwnedQueue>()
  private readonly counters = { sent: 0, acked: 0, failed: 0, consumed: 0, inflight: 0 }
  private timers: NodeJS.Timeout[] = []
  private running = false
  private readonly stopped = new AbortController()
  private rebalancing: Promise<void> | undefined
  private again: { trigger: string; from?: string } | null = null
  private lastAllocation: AllocateNearbyResult | undefined
  private lastServedRoom: string | null | undefined
  private readonly offsets: QueueOffsets
  private readonly locks: QueueLocks
  /** Client ids seen in the group, and those of them gone from every broker's list since. */
  private readonly members = new Set<string>()
  /** Client id → when it was first seen gone (epoch ms). */
  private readonly departed = new Map<string, number>()
  private readonly views = new GroupViews()

  constructor(
    options: ConsumerOptions,
    private readonly deps: CoredClientDeps
  ) {
    super()
    this.opts = {
      expression: '*',
      policy: 'round-robin',
      routeRefreshMs: 1000,
      requestTimeoutMs: 400,
      heartbeatIntervalMs: 1000,
      rebalanceIntervalMs: 1000,
      pollTimeoutMs: 1000,
      commitIntervalMs: 500,
      managementRefreshMs: 1000,
      managementTimeoutMs: 500,
      countersIntervalMs: 1000,
      homeless: 'share',
      pullBatch: 32,
      brokerRooms: {},
      startOffsets: {},
      keepOffsets: true,
      handoffMs: 100,
      orderly: false,
      lockRenewMs: 10_000,
      lockRetryMs: 100,
      freeDepartedLocks: true,
      ...options
    }
    this.id = options.id
    this.room = options.room
    this.cid = buildClientId({
      instance: `${options.id}-${process.pid}-${++instanceSeq}`,
      room: options.room
    })
    this.clock = deps.clock ?? systemClock
    // Name servers and routes from the worker's shared core (else its own); connections its own:
    // its channel is its membership of the group at each broker.
    const core = coreOptionsOf(this.opts)
    this.core = deps.cores ? deps.cores.hold(core, this.id) : new ClientCore(core, deps)
    this.ownsCore = !deps.cores
    this.remoting = deps.remoting({
      connectTimeoutMs: this.opts.requestTimeoutMs,
      requestTimeoutMs: this.opts.requestTimeoutMs
    })
    this.offsets = new QueueOffsets(
      this.remoting,
      {
        group: this.opts.group,
        topic: this.opts.topic,
        requestTimeoutMs: this.opts.requestTimeoutMs,
        keep: this.opts.keepOffsets,
        startOffsets: this.opts.startOffsets
      },
      (name) => this.brokerAddress(name),
      () => this.clock.now(),
      2 * this.opts.rebalanceIntervalMs
    )
    this.locks = new QueueLocks(
      this.remoting,
      {
        id: this.id,
        room: this.room,
        group: this.opts.group,
        topic: this.opts.topic,
        clientId: this.cid,
        requestTimeoutMs: this.opts.requestTimeoutMs,
        holdMs: 30_000
      },
      { clock: this.clock, ledger: deps.ledger }
    )
    this.directory = this.core.directory
    this.routes = this.core.routes(this.opts.topic)
    this.remoting.on('consumer-ids-changed', (e) => {
      if (!this.running || (e.consumerGroup !== undefined && e.consumerGroup !== this.opts.group))
        return
      const broker = this.routes.brokers.find((b) => b.masterAddr === e.address)
      this.deps.ledger.event('consumer-ids-changed', this.id, this.room, {
        brokerName: broker?.brokerName ?? null
      })
      this.requestRebalance('notify', e.address)
    })
    this.remoting.on('connection-close', (e) => {
      this.views.connectionClosed(e.address, this.clock.now())
      if (!this.running || !e.error) return
      // A peer may free these locks once we look departed: take them again before pulling on.
      this.locks.forget([...this.owned.values()].filter((o) => o.addr === e.address))
      this.routes.connectionClosed(e)
      if (this.routes.brokers.some((b) => b.masterAddr === e.address))
        void this.routes.refresh('broker-closed')
    })
  }

  private readonly onNamesrv = (): void => void this.emit('choice', this.choice())
  private readonly onRouteChange = (): void => {
    if (!this.running) return
    void this.heartbeatAll().then(() => this.requestRebalance('route-changed'))
  }

  /** Queues this consumer owns now. */
  assignment(): QueueRef[] {
    return [...this.owned.values()].map((o) => o.ref)
  }

  /** The last allocation decision (orphan rooms, live consumers per room). */
  get allocation(): AllocateNearbyResult | undefined {
    return this.lastAllocation
  }

  stats(): { consumed: number; owned: number } {
    return { consumed: this.counters.consumed, owned: this.owned.size }
  }

  choice(): ClientChoice {
    const c: ClientChoice = { clientId: this.id, role: 'consumer', room: this.room }
    const ns = this.routes.namesrv
    if (ns) {
      c.namesrvId = ns.id
      c.namesrvRoom = ns.room
    }
    const rooms = [...new Set(this.assignment().map((q) => q.room ?? '?'))]
    if (rooms.length > 0) c.brokerRoom = rooms.includes(this.room) ? this.room : rooms[0]!
    return c
  }

  /** Joins the group: name servers, route, heartbeats, first rebalance, then the loops. */
  async start(timeoutMs = 15_000): Promise<void> {
    if (this.running) return
    this.running = true
    const deadline = this.clock.now() + timeoutMs
    this.deps.ledger.event('client-started', this.id, this.room, {
      role: 'consumer',
      clientKey: this.cid
    })
    this.routes.on('namesrv', this.onNamesrv)
    this.routes.on('change', this.onRouteChange)
    await this.core
      .enter({ id: this.id, topic: this.opts.topic }, deadline, this.stopped.signal)
      .catch((e: unknown) => {
        this.detach()
        this.running = false
        throw e
      })
    if (this.routes.namesrv) this.onNamesrv()
    await this.heartbeatAll()
    await this.requestRebalance('start')
    this.every(this.opts.heartbeatIntervalMs, () => void this.heartbeatAll())
    this.every(this.opts.rebalanceIntervalMs, () => void this.requestRebalance('periodic'))
    this.every(this.opts.commitIntervalMs, () => this.commitAll())
    if (this.opts.orderly) {
      this.every(
        this.opts.lockRenewMs,
        () => void this.locks.renew([...this.owned.values()], (b) => this.brokerAddress(b))
      )
    }
    this.every(this.opts.countersIntervalMs, () =>
      this.deps.ledger.event('counters', this.id, this.room, { ...this.counters })
    )
  }

  /**
   * `graceful`: commit offsets, UNREGISTER from every broker, close. `crash`: drop every socket at
   * once with nothing sent, like a killed process; brokers notice the TCP close immediately.
   */
  async stop(mode: 'graceful' | 'crash' = 'graceful'): Promise<void> {
    if (!this.running) return
    this.running = false
    this.stopped.abort()
    for (const t of this.timers) clearInterval(t)
    this.timers = []
    this.detach()
    const queues = [...this.owned.values()]
    for (const o of queues) {
      o.active = false
      o.stop.abort()
    }
    if (mode === 'graceful') {
      await Promise.allSettled(
        queues.map((o) => this.offsets.commit(o).then(() => this.locks.release(o, o.addr)))
      )
      await Promise.allSettled(
        this.routes.brokers
          .filter((b) => b.masterAddr)
          .map((b) =>
            this.remoting.unregisterClient(
              b.masterAddr!,
              { clientId: this.cid, consumerGroup: this.opts.group },
              { timeoutMs: this.opts.requestTimeoutMs }
            )
          )
      )
    }
    this.owned.clear()
    this.remoting.close()
    this.deps.ledger.event('counters', this.id, this.room, { ...this.counters })
    this.deps.ledger.event('client-stopped', this.id, this.room, { role: 'consumer', mode })
  }

  /** Leaves the core (closing it when it is this consumer's own), its listeners with it. */
  private detach(): void {
    this.routes.off('namesrv', this.onNamesrv)
    this.routes.off('change', this.onRouteChange)
    this.core.leave(this.id)
    if (this.ownsCore) this.core.close()
  }

  /**
   * Runs a rebalance now, or right after the one in progress (coalescing bursts of triggers). A
   * broker's notification names the broker (`from`), whose view alone is then enough to act on.
   */
  requestRebalance(trigger: string, from?: string): Promise<void> {
    if (!this.running) return Promise.resolve()
    const next = { trigger, ...(from !== undefined ? { from } : {}) }
    if (this.rebalancing) {
      // Two notifications in one burst: their brokers' views may differ, so ask every broker.
      this.again = this.again ? { trigger: this.again.trigger } : next
      return this.rebalancing
    }
    this.rebalancing = (async () => {
      let t: { trigger: string; from?: string } | null = next
      while (t !== null && this.running) {
        this.again = null
        await this.rebalance(t.trigger, t.from)
        t = this.again
      }
    })().finally(() => (this.rebalancing = undefined))
    return this.rebalancing
  }

  private every(ms: number, fn: () => void): void {
    const t = setInterval(fn, ms)
    t.unref?.()
    this.timers.push(t)
  }

  private async heartbeatAll(): Promise<void> {
    const brokers = this.routes.brokers.filter((b) => b.masterAddr)
    await Promise.allSettled(
      brokers.map((b) =>
        this.remoting.heartbeat(
          b.masterAddr!,
          {
            clientId: this.cid,
            consumers: [
              {
                groupName: this.opts.group,
                consumeType: 'CONSUME_PASSIVELY',
                consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
                subscriptions: [{ topic: this.opts.topic, expression: this.opts.expression }]
              }
            ]
          },
          { timeoutMs: this.opts.requestTimeoutMs }
        )
      )
    )
  }

  private async rebalance(trigger: string, from?: string): Promise<void> {
    const brokers = this.routes.brokers.filter((b) => b.masterAddr)
    if (from !== undefined && (await this.rebalanceOnViewOf(from, brokers, trigger))) return
    const lists = await Promise.allSettled(
      brokers.map((b) =>
        this.remoting.getConsumerListByGroup(b.masterAddr!, this.opts.group, {
          timeoutMs: this.opts.requestTimeoutMs,
          brokerName: b.brokerName
        })
      )
    )
    if (!this.running) return
    const answers = new Map<string, string[]>()
    lists.forEach((r, i) => {
      if (r.status === 'fulfilled') answers.set(brokers[i]!.masterAddr!, r.value)
    })
    const answered = [...answers.values()]
    // Nobody answered: we cannot tell who is alive, so keep what we have rather than grab everything.
    if (brokers.length > 0 && answered.length === 0) return
    this.views.recordRound(answers)
    const cidAll = [...new Set(answered.flat())]
    this.noteMembers(cidAll, brokers.length > 0 && answered.length === brokers.length)
    this.allocate(cidAll, brokers, trigger)
    if (trigger === 'periodic' || trigger === 'start') this.prepareOffsets(brokers)
  }

  /** The method's nearby allocation over these members, applied. */
  private allocate(cidAll: string[], brokers: readonly BrokerCandidate[], trigger: string): void {
    const result = allocateNearby({
      currentCid: this.cid,
      cidAll,
      queues: readableQueues(brokers),
      roomOf: roomOfClientId,
      homeless: this.opts.homeless
    })
    this.lastAllocation = result
    this.apply(result, trigger)
  }

  /**
   * Takeover in one round trip: a broker that notified a membership change is asked alone, and
   * what its list says changed is acted on at once (membersOnViewOf); every broker is asked right
   * after. False: no answer, or its view alone cannot be trusted (then every broker is asked).
   */
  private async rebalanceOnViewOf(
    address: string,
    brokers: readonly BrokerCandidate[],
    trigger: string
  ): Promise<boolean> {
    const broker = brokers.find((b) => b.masterAddr === address)
    if (!broker) return false
    let listed: string[]
    try {
      listed = await this.remoting.getConsumerListByGroup(address, this.opts.group, {
        timeoutMs: this.opts.requestTimeoutMs,
        brokerName: broker.brokerName
      })
    } catch {
      return false
    }
    const settleMs = 2 * this.opts.heartbeatIntervalMs
    const cidAll = this.views.membersOnViewOf(address, listed, this.cid, this.clock.now(), settleMs)
    if (!this.running || cidAll === null) return false
    this.noteMembers(cidAll, false)
    this.allocate(cidAll, brokers, trigger)
    // Then every broker's view, at once: it corrects a partial one and judges departures.
    this.again ??= { trigger }
    return true
  }

  /**
   * Offsets ready before a takeover needs them: the committed offsets of other rooms' queues this
   * consumer does not read, read after the first and each periodic rebalance, so a queue taken from an orphaned
   * room is pulled at once (at the cost of the messages consumed since: duplicates, counted).
   */
  private prepareOffsets(brokers: readonly BrokerCandidate[]): void {
    if (!this.opts.keepOffsets) return
    const foreign = readableQueues(brokers).filter(
      (q) => q.room !== this.room && !this.owned.has(queueKey(q))
    )
    void this.offsets.prepare(foreign)
  }

  /**
   * Departed clients: seen in the group before, in no broker's list now. Only judged when every
   * broker of the route answered, so a client listed by a broker that did not answer is not one.
   */
  private noteMembers(cidAll: readonly string[], judged: boolean): void {
    const now = new Set(cidAll)
    const at = this.clock.now()
    // Listed by any broker that answered: alive, whatever was thought before; never freed for.
    for (const c of now) this.departed.delete(c)
    if (judged) {
      for (const c of this.members) {
        if (now.has(c) || c === this.cid) continue
        if (!this.departed.has(c)) this.departed.set(c, at)
        this.members.delete(c)
      }
    }
    // The broker expires a lock a minute after its last renewal: after that there is nothing to free.
    for (const [c, since] of this.departed)
      if (at - since > DEPARTED_LOCK_MS) this.departed.delete(c)
    for (const c of cidAll) this.members.add(c)
  }

  private apply(result: AllocateNearbyResult, trigger: string): void {
    const next = new Map(result.assigned.map((q) => [queueKey(q), q]))
    const before = new Set([...this.owned.values()].map((o) => o.ref.room ?? '?'))
    let removed = 0
    for (const [k, o] of this.owned) {
      if (next.has(k)) continue
      removed++
      o.active = false
      o.stop.abort()
      this.owned.delete(k)
      // The next owner's lock waits for this commit: it reads the offset only once locked.
      void this.offsets.lost(o).then(() => this.releaseIfGone(o, o.addr))
    }
    const now = this.clock.now()
    let added = 0
    for (const [k, ref] of next) {
      if (this.owned.has(k)) continue
      added++
      const handoff = this.opts.keepOffsets && mayBeHandoff(ref.room, result.orphanRooms)
      const o: OwnedQueue = {
        ref,
        offset: undefined,
        committed: undefined,
        active: true,
        failingSince: null,
        stop: new AbortController(),
        addr: undefined,
        readAfter: handoff ? now + this.opts.handoffMs : now,
        orphaned: ref.room !== null && result.orphanRooms.includes(ref.room),
        confirming: undefined,
        lockedUntil: 0
      }
      this.owned.set(k, o)
      void this.pullLoop(o)
    }
    if (added === 0 && removed === 0) return
    this.deps.ledger.event('rebalance', this.id, this.room, {
      trigger,
      queues: result.assigned.map((q) => ({
        brokerName: q.brokerName,
        room: q.room,
        queueId: q.queueId
      })),
      added,
      removed,
      consumerRooms: result.consumerRooms,
      orphanRooms: result.orphanRooms
    })
    for (const f of result.foreign) {
      if (before.has(f.room)) continue
      this.deps.ledger.event('consumer-takeover', this.id, this.room, {
        fromRoom: f.room,
        toRoom: this.room,
        queues: f.queues,
        trigger,
        reason:
          f.reason === 'orphan'
            ? `room ${f.room} has no live consumer of ${this.opts.group}`
            : `room ${this.room} has no broker serving ${this.opts.topic}`
      })
    }
    this.emit('rebalance', result.assigned)
    const served = this.choice().brokerRoom ?? null
    if (served !== this.lastServedRoom) {
      this.lastServedRoom = served
      this.emit('choice', this.choice())
    }
  }

  private brokerAddress(brokerName: string): string | undefined {
    return this.routes.brokers.find((b) => b.brokerName === brokerName)?.masterAddr
  }

  private async pullLoop(o: OwnedQueue): Promise<void> {
    const { ref } = o
    const base = {
      brokerName: ref.brokerName,
      consumerGroup: this.opts.group,
      topic: this.opts.topic,
      queueId: ref.queueId
    }
    while (o.active && this.running) {
      const addr = this.brokerAddress(ref.brokerName)
      if (!addr) {
        await pause(100, o.stop.signal)
        continue
      }
      o.addr = addr
      try {
        if (this.opts.orderly && !this.locks.holds(o, addr)) {
          await this.takeLock(o, addr)
          continue
        }
        if (o.offset === undefined) {
          // Orphaned: pull at once from the offset read ahead, the broker's current one asked
          // alongside (it trims what the first pull returns).
          if (o.orphaned && this.offsets.resumeAhead(o)) {
            o.confirming = this.offsets.committedNow(o, addr).catch(() => undefined)
          } else {
            const wait = o.readAfter - this.clock.now()
            if (wait > 0) await pause(wait, o.stop.signal)
            if (!o.active || !this.running) return
            await this.offsets.resume(o, addr)
          }
          o.orphaned = false
          continue
        }
        const confirming = o.confirming
        o.confirming = undefined
        const from = o.offset
        // A failed first pull leaves the offset read ahead unconfirmed: read it afresh next time.
        if (confirming) o.offset = undefined
        const pulled = await this.remoting.pullMessage(
          addr,
          {
            ...base,
            queueOffset: from,
            maxMsgNums: this.opts.pullBatch,
            expression: this.opts.expression,
            // Not while confirming: an offset read ahead must not overwrite a later commit.
            ...(confirming ? {} : { commitOffset: from }),
            suspendTimeoutMs: this.opts.pollTimeoutMs
          },
          { timeoutMs: this.opts.pollTimeoutMs + this.opts.requestTimeoutMs }
        )
        if (confirming) o.offset = from
        const res = confirming ? trimBelow(pulled, o, await confirming) : pulled
        if (!o.active || !this.running) return
        // The lock lapsed while the pull was out: its messages are the next holder's to deliver.
        if (this.opts.orderly && !this.locks.holds(o, addr)) continue
        if (o.failingSince !== null) {
          this.deps.ledger.event('pull-resumed', this.id, this.room, {
            brokerName: ref.brokerName,
            brokerRoom: ref.room,
            queueId: ref.queueId,
            stalledMs: Math.round(this.clock.now() - o.failingSince)
          })
          o.failingSince = null
        }
        if (res.status === 'FOUND') {
          const ns = this.routes.namesrv
          const at = this.clock.now()
          for (const m of res.messages) {
            this.counters.consumed++
            this.deps.ledger.delivery({
              key: m.msgId,
              clientId: this.id,
              clientRoom: this.room,
              namesrvRoom: ns?.room ?? null,
              brokerName: ref.brokerName,
              brokerRoom: ref.room,
              queueId: ref.queueId,
              queueOffset: m.queueOffset,
              bornAt: m.bornTimestamp,
              deliveredAt: at
            })
            this.emit('message', {
              key: m.msgId,
              message: m,
              brokerName: ref.brokerName,
              brokerRoom: ref.room,
              queueId: ref.queueId
            })
          }
        }
        const moved = res.status === 'OFFSET_ILLEGAL'
        o.offset = res.nextBeginOffset
        if (moved) void this.offsets.commit(o)
      } catch (e) {
        if (!o.active || !this.running) return
        if (o.failingSince === null) {
          o.failingSince = this.clock.now()
          this.deps.ledger.event('pull-failed', this.id, this.room, {
            brokerName: ref.brokerName,
            brokerRoom: ref.room,
            queueId: ref.queueId,
            reason: classifyFailure(e).reason
          })
        }
        await pause(100, o.stop.signal)
      }
    }
  }

  private commitAll(): void {
    for (const o of this.owned.values()) {
      // Without its lock another consumer may be reading the queue: our offset is not the truth.
      if (this.opts.orderly && !this.locks.holds(o)) continue
      void this.offsets.commit(o)
    }
  }

  /**
   * Orderly: takes the queue's lock before anything of it is read. A lock that lapsed (renewal
   * refused, connection lost, a new master) may have let another consumer read on, so the queue's
   * offset is read again once locked, never resumed from where this consumer was.
   */
  private async takeLock(o: OwnedQueue, addr: string): Promise<void> {
    if (o.offset !== undefined) this.offsets.setAside(o)
    const departed = this.opts.freeDepartedLocks ? [...this.departed.keys()].slice(-16) : []
    const locked = await this.locks.acquire(o, addr, departed)
    // Lost while the lock was on its way: the release at the loss saw no lock to give back, and
    // the broker would keep it from the queue's next owner for a minute.
    if (locked && (!o.active || !this.running)) await this.releaseIfGone(o, addr)
    else if (!locked) await pause(this.opts.lockRetryMs, o.stop.signal)
  }

  /** Gives a lost queue's lock back, unless the queue came back to this consumer meanwhile. */
  private async releaseIfGone(o: OwnedQueue, addr: string | undefined): Promise<void> {
    const now = this.owned.get(queueKey(o.ref))
    // Same client id: an UNLOCK now would free the lock the queue's new entry holds.
    if (now && now !== o) {
      o.lockedUntil = 0
      return
    }
    await this.locks.release(o, addr)
  }
}

/**
 * The first pull from an offset read ahead, less what the broker's current committed offset says
 * was consumed since; the queue goes on from whichever is further.
 */
function trimBelow(
  res: PullResult,
  o: QueueOffsetState,
  committed: number | undefined
): PullResult {
  if (committed === undefined || committed <= (o.offset ?? 0)) return res
  if ((o.committed ?? 0) < committed) o.committed = committed
  return {
    ...res,
    messages: res.messages.filter((m) => m.queueOffset >= committed),
    // Never past the queue's end (an OFFSET_ILLEGAL answer's correction stands).
    nextBeginOffset: Math.min(Math.max(res.nextBeginOffset, committed), res.maxOffset)
  }
}
