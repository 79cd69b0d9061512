/** A message queue of a topic, tagged with the room of the broker that serves it. */
export interface QueueRef {
  brokerName: string
  queueId: number
  room: string | null
}

/** Stable identity of a queue, for maps and diffs. */
export function queueKey(q: Pick<QueueRef, 'brokerName' | 'queueId'>): string {
  return `${q.brokerName}#${q.queueId}`
}

function compareQueues(a: QueueRef, b: QueueRef): number {
  return a.brokerName.localeCompare(b.brokerName) || a.queueId - b.queueId
}

/**
 * RocketMQ's AllocateMessageQueueAveragely: contiguous blocks, the first `n % c` consumers
 * getting one extra. Inputs must already be sorted identically on every consumer.
 */
export function allocateAveragely<T>(
  all: readonly T[],
  cids: readonly string[],
  current: string
): T[] {
  const index = cids.indexOf(current)
  if (index < 0 || all.length === 0 || cids.length === 0) return []
  const mod = all.length % cids.length
  const size =
    all.length <= cids.length
      ? 1
      : mod > 0 && index < mod
        ? Math.floor(all.length / cids.length) + 1
        : Math.floor(all.length / cids.length)
  const start = mod > 0 && index < mod ? index * size : index * size + mod
  const range = Math.min(size, all.length - start)
  const out: T[] = []
  for (let i = 0; i < range; i++) out.push(all[(start + i) % all.length]!)
  return out
}

export interface AllocateNearbyInput {
  /** This consumer's client id (always counted as alive). */
  currentCid: string
  /** Consumers of the group the brokers report as connected (GET_CONSUMER_LIST_BY_GROUP). */
  cidAll: readonly string[]
  /** Readable queues of the topic, from the route. */
  queues: readonly QueueRef[]
  /** Room a consumer runs in, decoded from its client id; null = unknown (e.g. a foreign client). */
  roomOf: (cid: string) => string | null
  /**
   * Consumers whose room has no queues at all (its brokers are down): `share` lets them join
   * every served room's pool, as the method has room-1 clients subscribe through room 2;
   * `idle` leaves them without queues (strict AllocateMachineRoomNearby).
   */
  homeless?: 'share' | 'idle'
}

export interface AllocateNearbyResult {
  assigned: QueueRef[]
  /** Rooms with queues but no live consumer of their own; their queues are shared by all. */
  orphanRooms: string[]
  /** Live consumers per room (null-room consumers under "?"). */
  consumerRooms: Record<string, number>
  /** Rooms of assigned queues other than the consumer's own, with why it got them. */
  foreign: { room: string; queues: number; reason: 'orphan' | 'homeless' }[]
}

const UNKNOWN_ROOM = '?'

/**
 * The method's consumer rule (claim 5, AllocateMachineRoomNearby semantics): a room's queues go
 * to that room's live consumers; queues of a room with no live consumer of the group are shared
 * by all consumers. Deterministic, so every consumer computes the same split from the same view.
 */
export function allocateNearby(input: AllocateNearbyInput): AllocateNearbyResult {
  const cids = [...new Set([...input.cidAll, input.currentCid])].sort()
  const roomOf = (cid: string): string => input.roomOf(cid) ?? UNKNOWN_ROOM
  const ownRoom = roomOf(input.currentCid)

  const consumersByRoom = new Map<string, string[]>()
  for (const cid of cids) {
    const r = roomOf(cid)
    consumersByRoom.set(r, [...(consumersByRoom.get(r) ?? []), cid])
  }
  const queuesByRoom = new Map<string, QueueRef[]>()
  for (const q of [...input.queues].sort(compareQueues)) {
    const r = q.room ?? UNKNOWN_ROOM
    queuesByRoom.set(r, [...(queuesByRoom.get(r) ?? []), q])
  }
  const homeless = cids.filter((c) => !queuesByRoom.has(roomOf(c)) || roomOf(c) === UNKNOWN_ROOM)
  const shareHomeless = (input.homeless ?? 'share') === 'share'

  const assigned: QueueRef[] = []
  const foreign: AllocateNearbyResult['foreign'] = []
  const orphanRooms: string[] = []
  const orphanQueues: QueueRef[] = []
  for (const room of [...queuesByRoom.keys()].sort()) {
    const queues = queuesByRoom.get(room)!
    const own = room === UNKNOWN_ROOM ? [] : (consumersByRoom.get(room) ?? [])
    if (own.length === 0) {
      orphanRooms.push(room)
      orphanQueues.push(...queues)
      continue
    }
    const pool = shareHomeless ? [...new Set([...own, ...homeless])].sort() : own
    const mine = allocateAveragely(queues, pool, input.currentCid)
    assigned.push(...mine)
    if (mine.length > 0 && room !== ownRoom)
      foreign.push({ room, queues: mine.length, reason: 'homeless' })
  }
  // All orphan rooms' queues are split together, which balances better than room by room (#2444).
  const orphanMine = allocateAveragely(orphanQueues, cids, input.currentCid)
  assigned.push(...orphanMine)
  const perRoom = new Map<string, number>()
  for (const q of orphanMine)
    perRoom.set(q.room ?? UNKNOWN_ROOM, (perRoom.get(q.room ?? UNKNOWN_ROOM) ?? 0) + 1)
  for (const [room, n] of perRoom) foreign.push({ room, queues: n, reason: 'orphan' })

  return {
    assigned: assigned.sort(compareQueues),
    orphanRooms,
    consumerRooms: Object.fromEntries([...consumersByRoom].map(([r, l]) => [r, l.length])),
    foreign
  }
}
