import { describe, expect, it } from 'vitest'
import type { BrokerCandidate } from './choose-broker'
import { chooseBroker, chooseQueue } from './choose-broker'

const broker = (
  brokerName: string,
  room: string | null,
  extra: Partial<BrokerCandidate> = {}
): BrokerCandidate => ({
  brokerName,
  room,
  masterAddr: `127.0.0.1:${10911 + brokerName.length}`,
  writeQueues: 4,
  readQueues: 4,
  ...extra
})

const base = { policy: 'round-robin' as const, cursor: 0, random: 0 }
const brokers = [
  broker('broker-b', 'room2'),
  broker('broker-a', 'room1'),
  broker('broker-c', 'room3')
]

describe('chooseBroker', () => {
  it('prefers a same-room master (scenario 1)', () => {
    const c = chooseBroker({ ...base, room: 'room1', brokers })!
    expect(c.broker.brokerName).toBe('broker-a')
    expect(c.reason).toBe('same-room')
  })

  it('uses another room when the own room has no broker in the route (scenario 2)', () => {
    const c = chooseBroker({
      ...base,
      room: 'room1',
      brokers: brokers.filter((b) => b.room !== 'room1')
    })!
    expect(c.reason).toBe('other-room')
    expect(['broker-b', 'broker-c']).toContain(c.broker.brokerName)
  })

  it('skips isolated brokers and load-balances the others by policy', () => {
    const isolated = new Map([['broker-a', 1]])
    const picks = [0, 1, 2].map((cursor) =>
      chooseBroker({ ...base, cursor, room: 'room1', brokers, isolated })!
    )
    expect(picks.map((p) => p.broker.brokerName)).toEqual(['broker-b', 'broker-c', 'broker-b'])
    const fastest = chooseBroker({
      ...base,
      policy: 'least-latency',
      room: 'room1',
      isolated,
      brokers: [
        broker('broker-b', 'room2', { latencyMs: 40 }),
        broker('broker-c', 'room3', { latencyMs: 4 }),
        broker('broker-a', 'room1')
      ]
    })!
    expect(fastest.broker.brokerName).toBe('broker-c')
  })

  it('ignores slaves-only sets and read-only brokers', () => {
    const list = [
      broker('broker-a', 'room1', { masterAddr: undefined }),
      broker('broker-a2', 'room1', { writeQueues: 0 }),
      broker('broker-b', 'room2')
    ]
    expect(chooseBroker({ ...base, room: 'room1', brokers: list })!.broker.brokerName).toBe(
      'broker-b'
    )
  })

  it('never re-picks a broker already tried in this send', () => {
    const c = chooseBroker({
      ...base,
      room: 'room1',
      brokers,
      exclude: new Set(['broker-a', 'broker-b'])
    })!
    expect(c.broker.brokerName).toBe('broker-c')
    expect(
      chooseBroker({
        ...base,
        room: 'room1',
        brokers,
        exclude: new Set(['broker-a', 'broker-b', 'broker-c'])
      })
    ).toBeNull()
  })

  it('all isolated: tries the one isolated last (healthy most recently) as a last resort', () => {
    const isolated = new Map([
      ['broker-a', 30],
      ['broker-b', 10],
      ['broker-c', 20]
    ])
    const c = chooseBroker({ ...base, room: 'room1', brokers, isolated })!
    expect(c.broker.brokerName).toBe('broker-a')
    expect(c.reason).toBe('last-resort')
  })

  it('all rooms down (empty route): null', () => {
    expect(chooseBroker({ ...base, room: 'room1', brokers: [] })).toBeNull()
  })

  it('treats brokers without a zone as another room', () => {
    const c = chooseBroker({ ...base, room: 'room1', brokers: [broker('x', null)] })!
    expect(c.reason).toBe('other-room')
  })
})

describe('chooseQueue', () => {
  it('round-robins the queues of the chosen broker', () => {
    let cursor = 0
    const ids: number[] = []
    for (let i = 0; i < 6; i++) {
      const q = chooseQueue(4, cursor)
      ids.push(q.queueId)
      cursor = q.cursor
    }
    expect(ids).toEqual([0, 1, 2, 3, 0, 1])
  })
  it('tolerates zero queues and negative cursors', () => {
    expect(chooseQueue(0, 3).queueId).toBe(0)
    expect(chooseQueue(4, -6).queueId).toBe(2)
  })
})
