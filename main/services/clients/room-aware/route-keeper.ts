import { EventEmitter } from 'node:events'
import type { SelectionPolicy } from '../../../../common/topology/schema'
import type { LedgerPort } from '../../ledger/types'
import type { BrokerCandidate } from './choose-broker'
import type { NameServerCandidate } from './choose-name-server'
import { chooseNameServer } from './choose-name-server'
import { classifyFailure } from './classify-error'
import type { NameServerDirectory } from './name-server-directory'
import type { Clock, RemotingPort } from './ports'
import { pause, systemClock } from './ports'
import { routeSignature, routeToBrokers } from './route-table'

export interface RouteKeeperOptions {
  clientId: string
  room: string
  topic: string
  policy: SelectionPolicy
  refreshMs: number
  requestTimeoutMs: number
  /** How long a name server this client saw fail is skipped (unless nothing else is left). */
  failedTtlMs?: number
  /** Rooms of brokers that carry no zone (brokerName → room), from the topology. */
  brokerRooms?: Readonly<Record<string, string>>
  /** Re-poll period while a broker set has lost its master (default 100 ms). */
  masterLostPollMs?: number
  /** Give up fast polling for a set that got no new master in this long (default 30 s). */
  masterLostMaxMs?: number
}

export interface RouteKeeperEvents {
  /** The topic's broker list changed. */
  change: [BrokerCandidate[]]
  /** The name server in use changed. */
  namesrv: [NameServerCandidate]
}

/** A broker set whose master this client lost, until the route names one again. */
interface LostMaster {
  since: number
  from: string | undefined
  fromRoom: string | null
}

/**
 * Module 602: keeps one topic's route fresh through a name server chosen room-first, failing over
 * to the next name server at once when one does not answer. A failed refresh keeps the last route
 * (as the Java client does), so an empty namesrv never empties the client's view.
 *
 * Controller mode: when a set's master disappears from the route (or its connection drops) the
 * route is re-polled every masterLostPollMs until a master appears, rather than on the next
 * periodic refresh, and the move is recorded (`master-followed`) with the room the set's master
 * is now in, which the same-room rule then uses (rooms come from the management node's replica
 * list by address, see routeToBrokers).
 */
export class RouteKeeper extends EventEmitter<RouteKeeperEvents> {
  brokers: BrokerCandidate[] = []
  namesrv: NameServerCandidate | undefined
  /** When the broker list last changed (clock ms); 0 before the first route. */
  changedAt = 0
  private readonly failed = new Map<string, number>()
  private outage: { since: number; from: NameServerCandidate; reason: string } | undefined
  private cursor = 0
  private signature = ''
  private inflight: Promise<boolean> | undefined
  private timer: NodeJS.Timeout | undefined
  /** brokerName → its master's address at the last refresh (undefined = the set had none). */
  private readonly masters = new Map<string, string | undefined>()
  private readonly lost = new Map<string, LostMaster>()
  private fastTimer: NodeJS.Timeout | undefined
  /**
   * A connection to a broker closed (the core's, or a consumer's own): a controller-mode master
   * lost this way is re-polled at once rather than at the next periodic refresh.
   */
  readonly connectionClosed = (e: { address: string; error?: unknown }): void => {
    if (!this.timer || e.error === undefined) return
    const b = this.brokers.find((x) => x.masterAddr === e.address)
    if (!b || this.lost.has(b.brokerName)) return
    if (!this.isReplica(e.address)) return
    this.lost.set(b.brokerName, { since: this.clock.now(), from: e.address, fromRoom: b.room })
    void this.refresh('master-connection-closed').finally(() => this.scheduleFast())
  }
  private readonly clock: Clock
  private readonly random: () => number

  constructor(
    private readonly opts: RouteKeeperOptions,
    private readonly deps: {
      remoting: RemotingPort
      directory: NameServerDirectory
      ledger: LedgerPort
      clock?: Clock
      random?: () => number
    }
  ) {
    super()
    this.clock = deps.clock ?? systemClock
    this.random = deps.random ?? Math.random
  }

  start(): void {
    if (this.timer) return
    this.timer = setInterval(() => void this.refresh('periodic'), this.opts.refreshMs)
    this.timer.unref?.()
    this.deps.remoting.on('connection-close', this.connectionClosed)
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    if (this.fastTimer) clearTimeout(this.fastTimer)
    this.fastTimer = undefined
    this.deps.remoting.off('connection-close', this.connectionClosed)
  }

  /** Broker sets this client is waiting on a new master for. */
  get waitingForMaster(): string[] {
    return [...this.lost.keys()]
  }

  /** Fetches the route now (deduplicated); true when some name server answered with it. */
  refresh(reason: string): Promise<boolean> {
    if (!this.inflight) {
      this.inflight = this.doRefresh(reason).finally(() => (this.inflight = undefined))
    }
    return this.inflight
  }

  private isAvailable(ns: NameServerCandidate): boolean {
    if (this.failed.has(ns.id)) return false
    const listed = this.deps.directory.current().find((c) => c.id === ns.id)
    return listed !== undefined && listed.available !== false
  }

  private async doRefresh(reason: string): Promise<boolean> {
    const { clientId, room } = this.opts
    const ttl = this.opts.failedTtlMs ?? 5000
    const tries = Math.max(1, this.deps.directory.current().length)
    for (let i = 0; i < tries; i++) {
      const now = this.clock.now()
      for (const [id, at] of this.failed) if (now - at > ttl) this.failed.delete(id)
      const choice = chooseNameServer({
        room,
        candidates: this.deps.directory.current(),
        failed: new Set(this.failed.keys()),
        policy: this.opts.policy,
        cursor: this.cursor,
        random: this.random()
      })
      if (!choice) return false
      this.cursor = choice.cursor
      const ns = choice.candidate
      if (ns.id !== this.namesrv?.id) {
        this.deps.ledger.event('namesrv-choice', clientId, room, {
          namesrvId: ns.id,
          namesrvRoom: ns.room,
          address: ns.address,
          reason: `${choice.reason} (${reason})`
        })
      }
      const started = this.clock.now()
      try {
        const route = await this.deps.remoting.getRouteInfoByTopic(ns.address, this.opts.topic, {
          timeoutMs: this.opts.requestTimeoutMs
        })
        this.failed.delete(ns.id)
        const prev = this.namesrv
        const changedNs = ns.id !== prev?.id
        this.namesrv = ns
        if (this.outage) {
          this.deps.ledger.event('namesrv-failover', clientId, room, {
            from: this.outage.from.id,
            fromRoom: this.outage.from.room,
            to: ns.id,
            toRoom: ns.room,
            reason: this.outage.reason,
            durationMs: this.clock.now() - this.outage.since
          })
          this.outage = undefined
        } else if (changedNs && prev && prev.room !== ns.room && !this.isAvailable(prev)) {
          // The management node reported it down before any of our requests to it failed.
          this.deps.ledger.event('namesrv-failover', clientId, room, {
            from: prev.id,
            fromRoom: prev.room,
            to: ns.id,
            toRoom: ns.room,
            reason: 'unavailable',
            durationMs: null
          })
        }
        if (changedNs) this.emit('namesrv', ns)
        const rooms = this.deps.directory.lastAnswer()?.brokers ?? []
        const brokers = routeToBrokers(
          route,
          (a) => rooms.find((r) => r.address === a)?.room,
          this.opts.brokerRooms
        )
        this.followMasters(
          brokers.filter((b) =>
            route.brokerDatas.some(
              (d) =>
                d.brokerName === b.brokerName &&
                Object.values(d.brokerAddrs).some((a) => this.isReplica(a))
            )
          ),
          route.brokerDatas.map((d) => d.brokerName)
        )
        const sig = routeSignature(brokers)
        if (sig !== this.signature) {
          this.signature = sig
          this.brokers = brokers
          this.changedAt = this.clock.now()
          this.deps.ledger.event('route-updated', clientId, room, {
            namesrvId: ns.id,
            brokers: brokers.map((b) => ({ name: b.brokerName, room: b.room }))
          })
          this.emit('change', brokers)
        }
        return true
      } catch (e) {
        const cls = classifyFailure(e)
        this.failed.set(ns.id, this.clock.now())
        this.deps.ledger.event('route-failed', clientId, room, {
          namesrvId: ns.id,
          reason: cls.reason
        })
        // A name server that does not know the topic is not an outage, just not the one to ask.
        if (!this.outage && cls.reason !== 'code-17')
          this.outage = { since: started, from: ns, reason: cls.reason }
        void this.deps.directory.refresh('namesrv-failed')
      }
    }
    return false
  }

  /**
   * Notes sets that lost their master and records the ones whose master moved; while any set
   * waits for a master, the next refresh is due in masterLostPollMs.
   */
  private followMasters(brokers: readonly BrokerCandidate[], inRoute: readonly string[]): void {
    const now = this.clock.now()
    const seen = new Set<string>(inRoute)
    for (const b of brokers) {
      seen.add(b.brokerName)
      const had = this.masters.has(b.brokerName)
      const prev = this.masters.get(b.brokerName)
      this.masters.set(b.brokerName, b.masterAddr)
      if (b.masterAddr === undefined) {
        if (prev !== undefined && !this.lost.has(b.brokerName)) {
          const fromRoom = this.brokers.find((x) => x.brokerName === b.brokerName)?.room ?? null
          this.lost.set(b.brokerName, { since: now, from: prev, fromRoom })
        }
        continue
      }
      const waiting = this.lost.get(b.brokerName)
      if (!had || (b.masterAddr === prev && !waiting)) continue
      if (waiting && b.masterAddr === waiting.from) continue
      this.lost.delete(b.brokerName)
      const from = waiting?.from ?? prev
      const fromRoom =
        waiting?.fromRoom ?? this.brokers.find((x) => x.brokerName === b.brokerName)?.room ?? null
      this.deps.ledger.event('master-followed', this.opts.clientId, this.opts.room, {
        brokerName: b.brokerName,
        from: from ?? null,
        fromRoom,
        to: b.masterAddr,
        toRoom: b.room,
        sameRoom: b.room === this.opts.room,
        withoutMasterMs: waiting ? now - waiting.since : null
      })
    }
    // A set gone from the route altogether (every replica dropped) is waited for as well.
    for (const [name, addr] of this.masters) {
      if (seen.has(name) || addr === undefined || !this.isReplica(addr)) continue
      this.masters.set(name, undefined)
      if (!this.lost.has(name)) {
        const fromRoom = this.brokers.find((x) => x.brokerName === name)?.room ?? null
        this.lost.set(name, { since: now, from: addr, fromRoom })
      }
    }
    for (const [name, l] of this.lost) {
      if (now - l.since > (this.opts.masterLostMaxMs ?? 30_000)) this.lost.delete(name)
    }
    this.scheduleFast()
  }

  /** A controller-mode replica, by the management node's list (only those sets move masters). */
  private isReplica(address: string): boolean {
    return (this.deps.directory.lastAnswer()?.brokers ?? []).some((r) => r.address === address)
  }

  private scheduleFast(): void {
    if (this.fastTimer || this.lost.size === 0 || !this.timer) return
    this.fastTimer = setTimeout(() => {
      this.fastTimer = undefined
      void this.refresh('master-lost').finally(() => this.scheduleFast())
    }, this.opts.masterLostPollMs ?? 100)
    this.fastTimer.unref?.()
  }
}

/** Polls until the client has name servers and a route with brokers, or throws at the deadline. */
export async function awaitFirstRoute(
  directory: NameServerDirectory,
  routes: RouteKeeper,
  opts: { clientId: string; topic: string; clock: Clock; deadline: number; signal?: AbortSignal }
): Promise<void> {
  while (!(await directory.refresh('start')) && directory.current().length === 0) {
    if (opts.clock.now() > opts.deadline) {
      throw new Error(`${opts.clientId}: no management node of any room answered`)
    }
    await pause(100, opts.signal)
  }
  while (!(await routes.refresh('start')) || routes.brokers.length === 0) {
    if (opts.clock.now() > opts.deadline) {
      throw new Error(`${opts.clientId}: no name server returned a route for topic ${opts.topic}`)
    }
    await pause(100, opts.signal)
  }
}
