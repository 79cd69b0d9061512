import { EventEmitter } from 'node:events'
import type { SelectionPolicy } from '../../../../common/topology/schema'
import type { LedgerPort } from '../../ledger/types'
import type { BrokerCandidate } from './choose-broker'
import type { NameServerCandidate } from './choose-name-server'
import { chooseNameServer } from './choose-name-server'
import { classifyFailure } from './classify-error'
import { NameServerDirectory } from './name-server-directory'
import type { ClientDeps, Clock, ManagementNodeRef, RemotingPort } from './ports'
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
}

export interface RouteKeeperEvents {
  /** The topic's broker list changed. */
  change: [BrokerCandidate[]]
  /** The name server in use changed. */
  namesrv: [NameServerCandidate]
}

/**
 * Module 602: keeps one topic's route fresh through a name server chosen room-first, failing over
 * to the next name server at once when one does not answer. A failed refresh keeps the last route
 * (as the Java client does), so an empty namesrv never empties the client's view.
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
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
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
        const brokers = routeToBrokers(route, this.opts.brokerRooms)
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
}

/** Settings both producers and consumers give their routing. */
export interface RoutingOptions {
  clientId: string
  room: string
  topic: string
  policy: SelectionPolicy
  managementNodes: readonly ManagementNodeRef[]
  managementRefreshMs: number
  managementTimeoutMs: number
  routeRefreshMs: number
  requestTimeoutMs: number
  initialNameServers?: readonly NameServerCandidate[]
  brokerRooms?: Readonly<Record<string, string>>
}

/** The routing every client owns: its remoting connections, name-server directory (601) and route keeper (602). */
export function createRouting(
  opts: RoutingOptions,
  deps: Pick<ClientDeps, 'remoting' | 'management' | 'ledger'> & {
    clock: Clock
    random: () => number
  }
): { remoting: RemotingPort; directory: NameServerDirectory; routes: RouteKeeper } {
  const remoting = deps.remoting({
    connectTimeoutMs: opts.requestTimeoutMs,
    requestTimeoutMs: opts.requestTimeoutMs
  })
  const directory = new NameServerDirectory(
    {
      clientId: opts.clientId,
      room: opts.room,
      managementNodes: opts.managementNodes,
      refreshMs: opts.managementRefreshMs,
      timeoutMs: opts.managementTimeoutMs,
      ...(opts.initialNameServers ? { initialNameServers: opts.initialNameServers } : {})
    },
    { management: deps.management, ledger: deps.ledger, clock: deps.clock }
  )
  const routes = new RouteKeeper(
    {
      clientId: opts.clientId,
      room: opts.room,
      topic: opts.topic,
      policy: opts.policy,
      refreshMs: opts.routeRefreshMs,
      requestTimeoutMs: opts.requestTimeoutMs,
      ...(opts.brokerRooms ? { brokerRooms: opts.brokerRooms } : {})
    },
    { remoting, directory, ledger: deps.ledger, clock: deps.clock, random: deps.random }
  )
  return { remoting, directory, routes }
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
