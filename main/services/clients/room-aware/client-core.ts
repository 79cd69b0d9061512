import type { LedgerEventData, LedgerEventKind } from '../../../../common/scenario/events'
import type { SelectionPolicy } from '../../../../common/topology/schema'
import type { DeliveryRecord, LedgerPort, SendRecord } from '../../ledger/types'
import type { NameServerCandidate } from './choose-name-server'
import { buildClientId } from './client-id'
import { NameServerDirectory } from './name-server-directory'
import type { ClientDeps, Clock, ManagementNodeRef, RemotingPort } from './ports'
import { systemClock } from './ports'
import { awaitFirstRoute, RouteKeeper } from './route-keeper'

/** A client's dependencies with its worker's cores; absent: the client keeps a core of its own. */
export interface CoredClientDeps extends ClientDeps {
  cores?: ClientCores
}

/** What the clients sharing a core must agree on: its room, discovery and timing settings. */
export interface CoreOptions {
  room: string
  managementNodes: readonly ManagementNodeRef[]
  initialNameServers?: readonly NameServerCandidate[]
  brokerRooms?: Readonly<Record<string, string>>
  policy: SelectionPolicy
  managementRefreshMs: number
  managementTimeoutMs: number
  routeRefreshMs: number
  requestTimeoutMs: number
  heartbeatIntervalMs: number
}

/** A started client of a core; a producer names its group, which the core's heartbeat carries. */
export interface CoreMember {
  id: string
  topic: string
  producerGroup?: string
}

/** The id the shared parts write ledger rows under; MembersLedger turns it into each member's. */
const CORE_ID = '(client core)'

/**
 * The shared parts' ledger rows belong to every client using them, as they did when each client
 * kept its own: one row per started member (a topic's route keeper's rows: its topic's members).
 */
class MembersLedger implements LedgerPort {
  constructor(
    private readonly inner: LedgerPort,
    private readonly ids: () => Iterable<string>
  ) {}

  event<K extends LedgerEventKind>(
    kind: K,
    clientId: string | null,
    room: string | null,
    data: LedgerEventData[K],
    atMs?: number
  ): void {
    if (clientId !== CORE_ID) return this.inner.event(kind, clientId, room, data, atMs)
    for (const id of this.ids()) this.inner.event(kind, id, room, data, atMs)
  }

  send(record: SendRecord): void {
    this.inner.send(record)
  }

  delivery(record: DeliveryRecord): void {
    this.inner.delivery(record)
  }
}

/**
 * One client core per worker and setting, as the Java client's MQClientInstance: the producers'
 * connection pool and client id, one name-server directory (the management session), one route
 * keeper per topic and one producer heartbeat, shared by every producer and consumer using it. So a
 * broker's close refreshes a topic's route once, not once per client, and a worker keeps one set
 * of timers however many clients it hosts.
 *
 * Consumers keep connections of their own: a broker lists a group's members by channel, so two
 * consumers of one group on one channel would be one member, and a killed consumer's channels must
 * close for its brokers to notice at once.
 */
export class ClientCore {
  /** The id brokers list the core's producers under (`ip@instance@room`). */
  readonly cid: string
  readonly remoting: RemotingPort
  readonly directory: NameServerDirectory
  private readonly keepers = new Map<string, RouteKeeper>()
  private readonly members = new Map<string, CoreMember>()
  /** Rows of the directory: every member's. */
  private readonly ledger: MembersLedger
  private readonly clock: Clock
  private readonly random: () => number
  private heartbeatTimer: NodeJS.Timeout | undefined
  private closed = false

  constructor(
    readonly options: CoreOptions,
    private readonly deps: Pick<
      ClientDeps,
      'remoting' | 'management' | 'ledger' | 'clock' | 'random'
    >,
    instance = `core-${process.pid}-${++coreSeq}`
  ) {
    this.clock = deps.clock ?? systemClock
    this.random = deps.random ?? Math.random
    this.cid = buildClientId({ instance, room: options.room })
    this.ledger = new MembersLedger(deps.ledger, () => this.members.keys())
    this.remoting = deps.remoting({
      connectTimeoutMs: options.requestTimeoutMs,
      requestTimeoutMs: options.requestTimeoutMs
    })
    // Every producer of the worker listens to the pool.
    ;(this.remoting as { setMaxListeners?: (n: number) => void }).setMaxListeners?.(0)
    this.directory = new NameServerDirectory(
      {
        clientId: CORE_ID,
        room: options.room,
        managementNodes: options.managementNodes,
        refreshMs: options.managementRefreshMs,
        timeoutMs: options.managementTimeoutMs,
        ...(options.initialNameServers ? { initialNameServers: options.initialNameServers } : {})
      },
      { management: deps.management, ledger: this.ledger, clock: this.clock }
    )
  }

  /** The topic's route keeper, shared by every client of the topic; started while members run. */
  routes(topic: string): RouteKeeper {
    let keeper = this.keepers.get(topic)
    if (keeper) return keeper
    const o = this.options
    keeper = new RouteKeeper(
      {
        clientId: CORE_ID,
        room: o.room,
        topic,
        policy: o.policy,
        refreshMs: o.routeRefreshMs,
        requestTimeoutMs: o.requestTimeoutMs,
        ...(o.brokerRooms ? { brokerRooms: o.brokerRooms } : {})
      },
      {
        remoting: this.remoting,
        directory: this.directory,
        ledger: new MembersLedger(this.deps.ledger, () => this.idsOf(topic)),
        clock: this.clock,
        random: this.random
      }
    )
    // Every client of the topic listens to it: more than Node's default of 10 is normal here.
    keeper.setMaxListeners(0)
    keeper.on('change', () => void this.heartbeat())
    this.keepers.set(topic, keeper)
    if (this.idsOf(topic).length > 0) keeper.start()
    return keeper
  }

  private idsOf(topic: string): string[] {
    return [...this.members.values()].filter((m) => m.topic === topic).map((m) => m.id)
  }

  /**
   * A client starts using the core: the first one starts the directory and heartbeat, the first
   * of a topic its route keeper. A client joining parts already in use gets their state as its own
   * ledger rows (catchUp).
   */
  join(member: CoreMember): void {
    if (this.closed) throw new Error(`${member.id}: its client core was closed`)
    const first = this.members.size === 0
    const firstOfTopic = this.idsOf(member.topic).length === 0
    this.members.set(member.id, member)
    const keeper = this.routes(member.topic)
    this.catchUp(member.id, keeper)
    // The directory's timer first: each round, the list the route's name server is chosen from
    // is refreshed before the route.
    if (first) {
      this.directory.start()
      this.heartbeatTimer = setInterval(
        () => void this.heartbeat(),
        this.options.heartbeatIntervalMs
      )
      this.heartbeatTimer.unref?.()
    }
    if (firstOfTopic) keeper.start()
  }

  /**
   * A client joining parts already in use gets, as its own ledger rows, what it would have written
   * itself at its start: the name-server list, the name server chosen and the route.
   */
  private catchUp(id: string, keeper: RouteKeeper): void {
    const { room } = this.options
    const list = this.directory.listRow()
    if (list) this.deps.ledger.event('namesrv-list', id, room, list)
    const ns = keeper.namesrv
    if (!ns) return
    this.deps.ledger.event('namesrv-choice', id, room, {
      namesrvId: ns.id,
      namesrvRoom: ns.room,
      address: ns.address,
      reason: 'in use by its worker (shared client core)'
    })
    if (keeper.brokers.length > 0) {
      this.deps.ledger.event('route-updated', id, room, {
        namesrvId: ns.id,
        brokers: keeper.brokers.map((b) => ({ name: b.brokerName, room: b.room }))
      })
    }
  }

  /**
   * join(), then waits until the directory has name servers and the member's topic a route with
   * brokers; at the deadline (or when `signal` aborts) it leaves again and throws.
   */
  async enter(member: CoreMember, deadline: number, signal?: AbortSignal): Promise<void> {
    this.join(member)
    try {
      await awaitFirstRoute(this.directory, this.routes(member.topic), {
        clientId: member.id,
        topic: member.topic,
        clock: this.clock,
        deadline,
        ...(signal ? { signal } : {})
      })
    } catch (e) {
      this.leave(member.id)
      throw e
    }
  }

  /** A client stops using the core: the last one stops its timers (connections stay for the next). */
  leave(id: string): void {
    const member = this.members.get(id)
    if (!member) return
    this.members.delete(id)
    if (this.idsOf(member.topic).length === 0) this.keepers.get(member.topic)?.stop()
    if (this.members.size > 0) return
    this.directory.stop()
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer)
    this.heartbeatTimer = undefined
  }

  /** Started clients, by id. */
  get memberIds(): string[] {
    return [...this.members.keys()]
  }

  /**
   * HEART_BEAT to every master of every route, one per broker for all the core's producer groups:
   * brokers list the groups (a transaction check-back goes to one of their channels), and the
   * connection to another room's broker is already open and warm when a failover needs it.
   */
  async heartbeat(): Promise<void> {
    const groups = [
      ...new Set([...this.members.values()].flatMap((m) => m.producerGroup ?? []))
    ].sort()
    if (groups.length === 0 || this.closed) return
    const masters = new Set<string>()
    for (const [topic, keeper] of this.keepers) {
      // A topic nobody uses now: its route is frozen, its brokers maybe gone.
      if (this.idsOf(topic).length === 0) continue
      for (const b of keeper.brokers) if (b.masterAddr) masters.add(b.masterAddr)
    }
    await Promise.allSettled(
      [...masters].map((addr) =>
        this.remoting.heartbeat(
          addr,
          { clientId: this.cid, producerGroups: groups },
          { timeoutMs: this.options.requestTimeoutMs }
        )
      )
    )
  }

  /** Stops everything and closes the pool; pending requests fail with connection-closed. */
  close(): void {
    if (this.closed) return
    for (const id of [...this.members.keys()]) this.leave(id)
    this.closed = true
    this.remoting.close()
  }
}

let coreSeq = 0

/** Core settings of a client's options, with the defaults both producers and consumers use. */
export function coreOptionsOf(
  o: Omit<CoreOptions, 'initialNameServers' | 'brokerRooms'> & {
    initialNameServers?: CoreOptions['initialNameServers'] | undefined
    brokerRooms?: CoreOptions['brokerRooms'] | undefined
  }
): CoreOptions {
  return {
    room: o.room,
    managementNodes: o.managementNodes,
    ...(o.initialNameServers ? { initialNameServers: o.initialNameServers } : {}),
    ...(o.brokerRooms ? { brokerRooms: o.brokerRooms } : {}),
    policy: o.policy,
    managementRefreshMs: o.managementRefreshMs,
    managementTimeoutMs: o.managementTimeoutMs,
    routeRefreshMs: o.routeRefreshMs,
    requestTimeoutMs: o.requestTimeoutMs,
    heartbeatIntervalMs: o.heartbeatIntervalMs
  }
}

/**
 * A worker's cores, one per distinct CoreOptions (a worker hosts one lane variant, so usually one).
 * Clients hold a core from creation to removal; a core nobody holds is closed.
 */
export class ClientCores {
  private readonly cores = new Map<string, { core: ClientCore; holders: Set<string> }>()

  constructor(
    private readonly deps: Pick<
      ClientDeps,
      'remoting' | 'management' | 'ledger' | 'clock' | 'random'
    >
  ) {}

  /** The core for these settings, held by `clientId` until release(clientId). */
  hold(options: CoreOptions, clientId: string): ClientCore {
    const key = JSON.stringify(options)
    let entry = this.cores.get(key)
    if (!entry) {
      entry = { core: new ClientCore(options, this.deps), holders: new Set() }
      this.cores.set(key, entry)
    }
    entry.holders.add(clientId)
    return entry.core
  }

  release(clientId: string): void {
    for (const [key, entry] of this.cores) {
      if (!entry.holders.delete(clientId) || entry.holders.size > 0) continue
      entry.core.close()
      this.cores.delete(key)
    }
  }

  closeAll(): void {
    for (const entry of this.cores.values()) entry.core.close()
    this.cores.clear()
  }

  get size(): number {
    return this.cores.size
  }
}
