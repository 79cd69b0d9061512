import { describe, expect, it } from 'vitest'
import type { BrokerCandidate } from './choose-broker'
import type { OrderedChoiceInput } from './choose-ordered'
import { chooseOrdered, homeQueue, javaStringHash, OrderHomes } from './choose-ordered'

const broker = (
  brokerName: string,
  room: string | null,
  extra: Partial<BrokerCandidate> = {}
): BrokerCandidate => ({
  brokerName,
  room,
  masterAddr: `${brokerName}:10911`,
  writeQueues: 4,
  readQueues: 4,
  ...extra
})

const route = [
  broker('broker-b', 'room2'),
  broker('broker-a', 'room1'),
  broker('broker-c', 'room1')
]

describe('javaStringHash', () => {
  it('is Java’s String.hashCode, overflow included', () => {
    expect(javaStringHash('')).toBe(0)
    expect(javaStringHash('a')).toBe(97)
    expect(javaStringHash('hello')).toBe(99162322)
    // "polygenelubricants".hashCode() == Integer.MIN_VALUE in Java.
    expect(javaStringHash('polygenelubricants')).toBe(-2147483648)
  })
})

describe('homeQueue', () => {
  it('indexes a negative hash as |h % n|, the rule java-dr’s RoomOrderSelector shares', () => {
    // "key-15".hashCode() < 0; RoomOrderSelectorTest pins the same key to index 6 of 8.
    expect(javaStringHash('key-15')).toBeLessThan(0)
    expect(homeQueue('key-15', 'room1', route)).toEqual({ brokerName: 'broker-c', queueId: 2 })
  })

  it('hashes the key over the own room’s queues, brokers by name', () => {
    // Own room: broker-a q0..3, broker-c q0..3 → 8 slots.
    const seen = new Set<string>()
    for (let k = 0; k < 64; k++) {
      const h = homeQueue(`p1:k${k}`, 'room1', route)!
      expect(['broker-a', 'broker-c']).toContain(h.brokerName)
      const slot = Math.abs(javaStringHash(`p1:k${k}`) % 8)
      expect(h).toEqual({ brokerName: slot < 4 ? 'broker-a' : 'broker-c', queueId: slot % 4 })
      seen.add(`${h.brokerName}#${h.queueId}`)
    }
    expect(seen.size).toBe(8)
  })

  it('does not depend on the route’s order', () => {
    expect(homeQueue('k', 'room1', [...route].reverse())).toEqual(homeQueue('k', 'room1', route))
  })

  it('uses every room’s queues when its room has none, and none without queues', () => {
    expect(homeQueue('k', 'room3', route)).toBeDefined()
    expect(homeQueue('k', 'room3', [])).toBeUndefined()
    expect(
      homeQueue('k', 'room1', [broker('broker-a', 'room1', { writeQueues: 0 })])
    ).toBeUndefined()
  })
})

describe('chooseOrdered', () => {
  const base: OrderedChoiceInput = {
    key: 'p1:k3',
    home: { brokerName: 'broker-a', queueId: 2 },
    room: 'room1',
    policy: 'wait',
    brokers: route,
    isolated: new Map(),
    tried: new Set(),
    cursor: 0,
    random: 0,
    selection: 'round-robin'
  }

  it('sends to the home queue while its broker is usable, under either policy', () => {
    for (const policy of ['wait', 'reroute'] as const) {
      const c = chooseOrdered({ ...base, policy })
      expect(c).toMatchObject({ queueId: 2, reason: 'order-home' })
      expect('broker' in c && c.broker.brokerName).toBe('broker-a')
    }
  })

  const unusable: [string, Partial<OrderedChoiceInput>, RegExp][] = [
    ['isolated', { isolated: new Map([['broker-a', 1]]) }, /is isolated/],
    ['failed this send', { tried: new Set(['broker-a']) }, /failed this send/],
    [
      'gone from the route',
      { brokers: route.filter((b) => b.brokerName !== 'broker-a') },
      /not in the route/
    ],
    [
      'without a master',
      {
        brokers: route.map((b) =>
          b.brokerName === 'broker-a' ? { ...b, masterAddr: undefined } : b
        )
      },
      /has no master/
    ]
  ]

  it.each(unusable)('wait holds the key when the home broker is %s', (_name, over, why) => {
    const c = chooseOrdered({ ...base, ...over })
    expect('wait' in c && c.wait).toMatch(why)
    expect('wait' in c && c.wait).toMatch(/broker-a, home of key p1:k3/)
  })

  it.each(unusable)(
    'reroute sends to the own room’s other broker first when the home broker is %s',
    (_name, over) => {
      const c = chooseOrdered({ ...base, ...over, policy: 'reroute' })
      expect(c).toMatchObject({ reason: 'order-reroute' })
      if (!('broker' in c)) throw new Error('expected a broker')
      expect(c.broker.brokerName).toBe('broker-c')
      expect(c.queueId).toBe(Math.abs(javaStringHash('p1:k3') % 4))
    }
  )

  it('reroute crosses rooms when the own room has nothing else', () => {
    const c = chooseOrdered({
      ...base,
      policy: 'reroute',
      isolated: new Map([
        ['broker-a', 1],
        ['broker-c', 2]
      ])
    })
    expect('broker' in c && c.broker.brokerName).toBe('broker-b')
  })

  it('reroute waits when no other broker is writable', () => {
    const c = chooseOrdered({
      ...base,
      policy: 'reroute',
      brokers: [route[1]!],
      isolated: new Map([['broker-a', 1]])
    })
    expect('wait' in c && c.wait).toMatch(/no other broker is writable/)
  })
})

describe('OrderHomes', () => {
  const withoutA = route.filter((b) => b.brokerName !== 'broker-a')

  it('homes a key first seen after its broker left the route as if it were still there', () => {
    const homes = new OrderHomes()
    homes.observe(route)
    for (let k = 0; k < 32; k++) {
      expect(homes.of(`p1:k${k}`, 'room1', withoutA)).toEqual(homeQueue(`p1:k${k}`, 'room1', route))
    }
  })

  it('remembers a home once given, whatever the route does next', () => {
    const homes = new OrderHomes()
    const first = homes.of('p1:k3', 'room1', route)
    homes.observe([broker('broker-a', 'room1', { writeQueues: 8 })])
    expect(homes.of('p1:k3', 'room1', withoutA)).toEqual(first)
  })

  it('takes a listed broker as the route lists it: no write queues, no new home there', () => {
    const homes = new OrderHomes()
    homes.observe(route)
    homes.observe([broker('broker-a', 'room1', { writeQueues: 0 })])
    for (let k = 0; k < 32; k++) {
      expect(homes.of(`p1:k${k}`, 'room1', withoutA)!.brokerName).toBe('broker-c')
    }
  })

  it('has no home before any broker was writable', () => {
    expect(new OrderHomes().of('k', 'room1', [])).toBeUndefined()
  })
})
