import type { OrderPolicy, SelectionPolicy } from '../../../../common/topology/schema'
import type { BrokerCandidate } from './choose-broker'
import { chooseBroker } from './choose-broker'

/** One queue of one broker set. */
export interface QueueSlot {
  brokerName: string
  queueId: number
}

/** Java's String.hashCode, the hash `MessageQueueSelector` users take of their sharding key. */
export function javaStringHash(s: string): number {
  let h = 0
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0
  return h
}

function pickOf(key: string, n: number): number {
  return Math.abs(javaStringHash(key) % n)
}

/**
 * A key's home queue: the hash of the key over the write queues of the client's own room (brokers
 * by name, queues by id), or over every room's when its room has none. The producer remembers it,
 * so a broker leaving the route does not move the key (what breaks order in apache/rocketmq#569).
 * Undefined while the route has no writable queue.
 */
export function homeQueue(
  key: string,
  room: string,
  brokers: readonly BrokerCandidate[]
): QueueSlot | undefined {
  const writable = [...brokers]
    .filter((b) => b.writeQueues > 0)
    // Code-unit order, as Java's String.compareTo: java-dr's RoomOrderSelector orders brokers alike.
    .sort((a, b) => (a.brokerName < b.brokerName ? -1 : a.brokerName > b.brokerName ? 1 : 0))
  const own = writable.filter((b) => b.room === room)
  const from = own.length > 0 ? own : writable
  const slots = from.flatMap((b) =>
    Array.from({ length: b.writeQueues }, (_, queueId) => ({ brokerName: b.brokerName, queueId }))
  )
  return slots.length === 0 ? undefined : slots[pickOf(key, slots.length)]
}

/**
 * Keys' home queues, and every broker the route has shown, as last seen. A key first sent while its
 * home broker is out of the route (killed before the key's first message) must still hash onto it:
 * over the current route alone it would land on another broker, and a key sent before the kill on
 * the same hash would not (the order of keys first sent after a kill would depend on when). A broker
 * the route still lists is taken as it lists it (no write queues: no home there).
 */
export class OrderHomes {
  private readonly homes = new Map<string, QueueSlot>()
  private readonly seen = new Map<string, BrokerCandidate>()

  /** Notes the route's brokers; call on every route change. */
  observe(route: readonly BrokerCandidate[]): void {
    for (const b of route) this.seen.set(b.brokerName, b)
  }

  /** The key's home, computed once over every broker seen; undefined while none was writable. */
  of(key: string, room: string, route: readonly BrokerCandidate[]): QueueSlot | undefined {
    const known = this.homes.get(key)
    if (known) return known
    this.observe(route)
    const home = homeQueue(key, room, [...this.seen.values()])
    if (home) this.homes.set(key, home)
    return home
  }
}

export interface OrderedChoiceInput {
  key: string
  home: QueueSlot
  room: string
  policy: OrderPolicy
  brokers: readonly BrokerCandidate[]
  isolated: ReadonlyMap<string, number>
  /** Brokers that failed within this send. */
  tried: ReadonlySet<string>
  /** Broker choice state for the reroute (see chooseBroker). */
  cursor: number
  random: number
  selection: SelectionPolicy
}

export type OrderedChoice =
  | { broker: BrokerCandidate; queueId: number; reason: 'order-home' | 'order-reroute' }
  | { wait: string }

/**
 * Where an ordered send goes: its home queue while the home broker is in the route, has a master,
 * is not isolated and has not failed this send. Otherwise `wait` holds the key (order kept: the
 * caller retries the home queue until its deadline), and `reroute` takes another broker by the
 * room-first rule and the key's hash over that broker's queues (the key's order breaks there).
 */
export function chooseOrdered(input: OrderedChoiceInput): OrderedChoice {
  const { home } = input
  const b = input.brokers.find((x) => x.brokerName === home.brokerName)
  const why = !b
    ? 'is not in the route'
    : b.masterAddr === undefined
      ? 'has no master'
      : input.isolated.has(home.brokerName)
        ? 'is isolated'
        : input.tried.has(home.brokerName)
          ? 'failed this send'
          : undefined
  if (b && why === undefined) return { broker: b, queueId: home.queueId, reason: 'order-home' }
  const waiting = `order-wait: ${home.brokerName}, home of key ${input.key}, ${why}`
  if (input.policy === 'wait') return { wait: waiting }
  const other = chooseBroker({
    room: input.room,
    brokers: input.brokers,
    isolated: input.isolated,
    exclude: new Set([...input.tried, home.brokerName]),
    policy: input.selection,
    cursor: input.cursor,
    random: input.random
  })
  if (!other) return { wait: `${waiting}, and no other broker is writable` }
  return {
    broker: other.broker,
    queueId: pickOf(input.key, Math.max(1, other.broker.writeQueues)),
    reason: 'order-reroute'
  }
}
