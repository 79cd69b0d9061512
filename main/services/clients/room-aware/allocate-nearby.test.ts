import { describe, expect, it } from 'vitest'
import type { AllocateNearbyInput, QueueRef } from './allocate-nearby'
import { allocateAveragely, allocateNearby, queueKey } from './allocate-nearby'
import { buildClientId, roomOfClientId } from './client-id'

const queuesOf = (brokerName: string, room: string | null, n = 4): QueueRef[] =>
  Array.from({ length: n }, (_, queueId) => ({ brokerName, queueId, room }))

const cid = (room: string, i: number): string => buildClientId({ instance: `consumer-${i}`, room })

const allQueues = [...queuesOf('broker-a', 'room1'), ...queuesOf('broker-b', 'room2')]

function allocateAll(cids: string[], queues: QueueRef[], extra: Partial<AllocateNearbyInput> = {}) {
  return new Map(
    cids.map((c) => [
      c,
      allocateNearby({ currentCid: c, cidAll: cids, queues, roomOf: roomOfClientId, ...extra })
    ])
  )
}

/** Every queue owned by exactly one consumer: the split is a partition. */
function expectPartition(results: Map<string, { assigned: QueueRef[] }>, queues: QueueRef[]): void {
  const owners = new Map<string, number>()
  for (const r of results.values())
    for (const q of r.assigned) owners.set(queueKey(q), (owners.get(queueKey(q)) ?? 0) + 1)
  expect([...owners.keys()].sort()).toEqual(queues.map(queueKey).sort())
  expect([...owners.values()].every((n) => n === 1)).toBe(true)
}

describe('allocateAveragely (Java AllocateMessageQueueAveragely)', () => {
  const eight = Array.from({ length: 8 }, (_, i) => i)
  it('gives the first n % c consumers one extra, in contiguous blocks', () => {
    const cids = ['a', 'b', 'c']
    expect(cids.map((c) => allocateAveragely(eight, cids, c))).toEqual([
      [0, 1, 2],
      [3, 4, 5],
      [6, 7]
    ])
  })
  it('more consumers than queues: one each, the rest idle', () => {
    const cids = ['a', 'b', 'c']
    expect(cids.map((c) => allocateAveragely([0, 1], cids, c))).toEqual([[0], [1], []])
  })
  it('unknown consumer or nothing to split: empty', () => {
    expect(allocateAveragely(eight, ['a'], 'z')).toEqual([])
    expect(allocateAveragely([], ['a'], 'a')).toEqual([])
  })
})

describe('allocateNearby', () => {
  it('healthy: each room consumes only its own brokers (scenario 1)', () => {
    const cids = [cid('room1', 1), cid('room2', 1)]
    const res = allocateAll(cids, allQueues)
    expect(res.get(cids[0]!)!.assigned.every((q) => q.room === 'room1')).toBe(true)
    expect(res.get(cids[1]!)!.assigned.every((q) => q.room === 'room2')).toBe(true)
    expect(res.get(cids[0]!)!.orphanRooms).toEqual([])
    expect(res.get(cids[0]!)!.foreign).toEqual([])
    expectPartition(res, allQueues)
  })

  it('splits a room among its own consumers only', () => {
    const cids = [cid('room1', 1), cid('room1', 2), cid('room2', 1)]
    const res = allocateAll(cids, allQueues)
    expect(res.get(cids[0]!)!.assigned).toHaveLength(2)
    expect(res.get(cids[1]!)!.assigned).toHaveLength(2)
    expect(res.get(cids[2]!)!.assigned.map((q) => q.room)).toEqual([
      'room2',
      'room2',
      'room2',
      'room2'
    ])
    expectPartition(res, allQueues)
  })

  it('room without consumer: its queues are shared by all consumers (scenario 4)', () => {
    const cids = [cid('room2', 1), cid('room2', 2)]
    const res = allocateAll(cids, allQueues)
    for (const c of cids) {
      const r = res.get(c)!
      expect(r.orphanRooms).toEqual(['room1'])
      expect(r.assigned.filter((q) => q.room === 'room1')).toHaveLength(2)
      expect(r.foreign).toEqual([{ room: 'room1', queues: 2, reason: 'orphan' }])
    }
    expectPartition(res, allQueues)
  })

  it('several orphan rooms are balanced together over all consumers', () => {
    const queues = [...allQueues, ...queuesOf('broker-c', 'room3')]
    const cids = [cid('room2', 1), cid('room2', 2)]
    const res = allocateAll(cids, queues)
    expect(res.get(cids[0]!)!.orphanRooms).toEqual(['room1', 'room3'])
    expect(
      [...res.values()].map((r) => r.assigned.filter((q) => q.room !== 'room2').length)
    ).toEqual([4, 4])
    expectPartition(res, queues)
  })

  it('own room without brokers (scenario 2): consumers share the served rooms by default', () => {
    const queues = queuesOf('broker-b', 'room2')
    const cids = [cid('room1', 1), cid('room2', 1)]
    const res = allocateAll(cids, queues)
    const r1 = res.get(cids[0]!)!
    expect(r1.assigned).toHaveLength(2)
    expect(r1.foreign).toEqual([{ room: 'room2', queues: 2, reason: 'homeless' }])
    expect(res.get(cids[1]!)!.foreign).toEqual([])
    expectPartition(res, queues)
  })

  it('own room without brokers, strict mode: the homeless consumer idles', () => {
    const queues = queuesOf('broker-b', 'room2')
    const cids = [cid('room1', 1), cid('room2', 1)]
    const res = allocateAll(cids, queues, { homeless: 'idle' })
    expect(res.get(cids[0]!)!.assigned).toEqual([])
    expect(res.get(cids[1]!)!.assigned).toHaveLength(4)
  })

  it('all rooms down: nothing to allocate', () => {
    const r = allocateNearby({
      currentCid: cid('room1', 1),
      cidAll: [cid('room2', 1)],
      queues: [],
      roomOf: roomOfClientId
    })
    expect(r.assigned).toEqual([])
    expect(r.orphanRooms).toEqual([])
  })

  it('counts itself even before the brokers list it (fresh start)', () => {
    const me = cid('room1', 1)
    const r = allocateNearby({
      currentCid: me,
      cidAll: [],
      queues: allQueues,
      roomOf: roomOfClientId
    })
    expect(r.assigned).toHaveLength(8)
    expect(r.orphanRooms).toEqual(['room2'])
  })

  it('brokers without a zone and consumers without a room are shared, never owned', () => {
    const queues = [...queuesOf('broker-a', 'room1'), ...queuesOf('legacy', null, 2)]
    const cids = [cid('room1', 1), '10.0.0.9@DEFAULT']
    const res = allocateAll(cids, queues)
    expect(res.get(cids[0]!)!.orphanRooms).toEqual(['?'])
    expect(res.get(cids[0]!)!.consumerRooms).toEqual({ room1: 1, '?': 1 })
    expectPartition(res, queues)
  })

  it('is deterministic whatever order brokers and routes list things', () => {
    const cids = [cid('room2', 1), cid('room1', 1), cid('room2', 2)]
    const a = allocateNearby({
      currentCid: cids[0]!,
      cidAll: cids,
      queues: allQueues,
      roomOf: roomOfClientId
    })
    const b = allocateNearby({
      currentCid: cids[0]!,
      cidAll: [...cids].reverse(),
      queues: [...allQueues].reverse(),
      roomOf: roomOfClientId
    })
    expect(a.assigned).toEqual(b.assigned)
  })

  it('partitions every combination of 0-3 consumers per room over 3 rooms', () => {
    const queues = [...allQueues, ...queuesOf('broker-c', 'room3', 3)]
    for (let n1 = 0; n1 <= 3; n1++)
      for (let n2 = 0; n2 <= 3; n2++)
        for (let n3 = 0; n3 <= 3; n3++) {
          const cids = [
            ...Array.from({ length: n1 }, (_, i) => cid('room1', i)),
            ...Array.from({ length: n2 }, (_, i) => cid('room2', i)),
            ...Array.from({ length: n3 }, (_, i) => cid('room3', i))
          ]
          if (cids.length === 0) continue
          const res = allocateAll(cids, queues)
          expectPartition(res, queues)
          // A room with its own consumers never loses queues to another room.
          for (const [c, r] of res) {
            for (const q of r.assigned) {
              const hasOwn = cids.some((x) => roomOfClientId(x) === q.room)
              if (hasOwn) expect(roomOfClientId(c)).toBe(q.room)
            }
          }
        }
  })
})

describe('client ids', () => {
  it('round-trips the room', () => {
    const id = buildClientId({ instance: 'consumer-1@x', room: 'room2' })
    expect(id).toBe('127.0.0.1@consumer-1_x@room2')
    expect(roomOfClientId(id)).toBe('room2')
  })
  it('returns null for ids without a room', () => {
    expect(roomOfClientId('10.0.0.1@DEFAULT')).toBeNull()
    expect(roomOfClientId('10.0.0.1@a@bad room')).toBeNull()
  })
})
