import { describe, expect, it } from 'vitest'
import type { LiveMetrics } from '../../../common/contract'
import type { Topology } from '../../../common/topology/schema'
import { topologySettingsSchema } from '../../../common/topology/schema'
import type { DeliveryRecord, SendRecord } from '../ledger/types'
import { LiveMetricsAggregator, metricsTopology, withLiveMetrics } from './live-metrics'
import type { TimerPort } from './periodic-sweep'

const topology: Topology = {
  kind: 'drstudio/topology',
  version: 1,
  name: 'two-rooms',
  settings: topologySettingsSchema.parse({}),
  topics: [{ name: 'orders', queues: 4 }],
  rooms: [1, 2].map((r) => ({
    id: `room${r}`,
    name: `Room ${r}`,
    managementNodes: [],
    nameServers: [{ id: `ns-${r}` }],
    brokers: [
      {
        id: `broker-${r}`,
        cluster: 'DrCluster',
        brokerName: r === 1 ? 'broker-a' : 'broker-b',
        role: 'master' as const,
        brokerId: 0
      }
    ],
    proxies: [],
    producers: [
      {
        id: `producer-${r}`,
        topic: 'orders',
        group: 'g',
        rate: 20,
        messageSize: 1000,
        lane: 'remoting' as const
      }
    ],
    consumers: [{ id: `consumer-${r}`, topic: 'orders', group: 'c', lane: 'remoting' as const }]
  }))
}

function send(
  clientId: string,
  endedAt: number,
  broker: 'broker-a' | 'broker-b' | null,
  status: 'acked' | 'failed' = 'acked',
  latency = 5
): SendRecord {
  return {
    key: `${clientId}-${endedAt}`,
    clientId,
    clientRoom: clientId.endsWith('1') ? 'room1' : 'room2',
    namesrvId: null,
    namesrvRoom: null,
    brokerName: broker,
    brokerRoom: broker === 'broker-a' ? 'room1' : broker === 'broker-b' ? 'room2' : null,
    queueId: 0,
    queueOffset: 0,
    startedAt: endedAt - latency,
    scheduledAt: endedAt - latency,
    attemptStartedAt: endedAt - latency,
    endedAt,
    status,
    attempts: 1,
    error: status === 'failed' ? 'timeout' : null
  }
}

function delivery(
  clientId: string,
  deliveredAt: number,
  broker: 'broker-a' | 'broker-b'
): DeliveryRecord {
  return {
    key: `k-${deliveredAt}`,
    clientId,
    clientRoom: clientId.endsWith('1') ? 'room1' : 'room2',
    namesrvRoom: null,
    brokerName: broker,
    brokerRoom: broker === 'broker-a' ? 'room1' : 'room2',
    queueId: 0,
    queueOffset: 0,
    bornAt: deliveredAt - 20,
    deliveredAt
  }
}

class FakeTimers implements TimerPort {
  pending: (() => void)[] = []
  setTimeout(fn: () => void): unknown {
    this.pending.push(fn)
    return fn
  }
  clearTimeout(h: unknown): void {
    this.pending = this.pending.filter((f) => f !== h)
  }
  fire(): void {
    const due = this.pending
    this.pending = []
    for (const f of due) f()
  }
}

function setup() {
  let now = 10_000
  const timers = new FakeTimers()
  const out: LiveMetrics[] = []
  const m = new LiveMetricsAggregator({
    topology: metricsTopology(topology),
    runId: 7,
    emit: (s) => out.push(s),
    windowMs: 1000,
    now: () => now,
    timers
  })
  return { m, timers, out, set: (t: number) => (now = t) }
}

const client = (s: LiveMetrics, id: string) => s.clients.find((c) => c.clientId === id)!

describe('LiveMetricsAggregator', () => {
  it('lists every client of the topology, idle ones at zero', () => {
    const { m } = setup()
    const s = m.snapshot()
    expect(s.runId).toBe(7)
    expect(s.clients.map((c) => [c.clientId, c.role, c.room, c.rate, c.p99Ms, c.failures])).toEqual(
      [
        ['consumer-1', 'consumer', 'room1', 0, null, 0],
        ['consumer-2', 'consumer', 'room2', 0, null, 0],
        ['producer-1', 'producer', 'room1', 0, null, 0],
        ['producer-2', 'producer', 'room2', 0, null, 0]
      ]
    )
  })

  it('rates, p99 and broker TPS are over the window; old rows fall out', () => {
    const { m, set } = setup()
    for (let i = 0; i < 20; i++)
      m.send(send('producer-1', 9_100 + i * 45, 'broker-a', 'acked', i === 19 ? 200 : 5))
    const s = m.snapshot()
    expect(client(s, 'producer-1').rate).toBe(20)
    // p99 of 19 × 5 ms and one 200 ms send (linear interpolation).
    // Rounded to 0.1 ms.
    expect(Math.abs(client(s, 'producer-1').p99Ms! - (5 + 195 * 0.81))).toBeLessThanOrEqual(
      0.05 + 1e-9
    )
    expect(s.brokers).toEqual([
      {
        brokerName: 'broker-a',
        brokerId: 'broker-1',
        room: 'room1',
        tps: 20,
        deliveredPerSecond: 0
      }
    ])
    expect(s.edges).toEqual([
      { clientId: 'producer-1', brokerName: 'broker-a', brokerId: 'broker-1', rate: 20 }
    ])
    set(20_000)
    const later = m.snapshot()
    expect(client(later, 'producer-1')).toMatchObject({ rate: 0, p99Ms: null })
    expect(later.brokers[0]!.tps).toBe(0)
  })

  it('a killed broker shows: failures rise, the edge moves, the dead broker drops to zero', () => {
    const { m, set } = setup()
    for (let i = 0; i < 10; i++) m.send(send('producer-1', 9_500 + i * 50, 'broker-a'))
    const before = m.snapshot()
    expect(client(before, 'producer-1').failures).toBe(0)
    m.event({ kind: 'send-attempt-failed', clientId: 'producer-1', atMs: 10_100 })
    m.send(send('producer-1', 10_200, null, 'failed'))
    for (let i = 0; i < 10; i++) m.send(send('producer-1', 10_500 + i * 50, 'broker-b'))
    set(11_000)
    const after = m.snapshot()
    expect(client(after, 'producer-1').failures).toBe(2)
    expect(after.brokers.map((b) => [b.brokerName, b.tps])).toEqual([
      ['broker-a', 0],
      ['broker-b', 10]
    ])
    expect(after.edges.map((e) => [e.brokerId, e.rate])).toEqual([
      ['broker-1', 0],
      ['broker-2', 10]
    ])
  })

  it('counts cross-room traffic in messages and bytes, per direction', () => {
    const { m } = setup()
    m.send(send('producer-1', 9_900, 'broker-b'))
    m.send(send('producer-1', 9_950, 'broker-b'))
    m.send(send('producer-1', 9_960, 'broker-a'))
    m.delivery(delivery('consumer-1', 9_970, 'broker-b'))
    m.delivery(delivery('consumer-2', 9_980, 'broker-b'))
    const s = m.snapshot()
    expect(s.roomLinks).toEqual([
      {
        fromRoom: 'room1',
        toRoom: 'room2',
        messages: 2,
        bytes: 2000,
        rate: 2,
        bytesPerSecond: 2000,
        replicationBytes: 0,
        replicationBytesPerSecond: 0
      },
      {
        fromRoom: 'room2',
        toRoom: 'room1',
        messages: 1,
        bytes: 1000,
        rate: 1,
        bytesPerSecond: 1000,
        replicationBytes: 0,
        replicationBytesPerSecond: 0
      }
    ])
    expect(client(s, 'consumer-1')).toMatchObject({ rate: 1, p99Ms: 20 })
    expect(s.brokers.find((b) => b.brokerName === 'broker-b')!.deliveredPerSecond).toBe(2)
  })

  it('totals of cross-room traffic outlive the window', () => {
    const { m, set } = setup()
    m.send(send('producer-2', 9_900, 'broker-a'))
    set(60_000)
    expect(m.snapshot().roomLinks).toEqual([
      {
        fromRoom: 'room2',
        toRoom: 'room1',
        messages: 1,
        bytes: 1000,
        rate: 0,
        bytesPerSecond: 0,
        replicationBytes: 0,
        replicationBytesPerSecond: 0
      }
    ])
  })

  it('shows replication between rooms beside the clients’ traffic: totals since the run began, rate between reads', () => {
    const { m, set } = setup()
    m.send(send('producer-1', 9_900, 'broker-b'))
    m.replication([{ fromRoom: 'room1', toRoom: 'room2', bytes: 10_000 }], 10_000)
    // The first read has no rate yet; the next one 2 s later gives 20 000 B in 2 s.
    expect(m.snapshot().roomLinks[0]).toMatchObject({
      fromRoom: 'room1',
      toRoom: 'room2',
      messages: 1,
      replicationBytes: 10_000,
      replicationBytesPerSecond: 0
    })
    set(12_000)
    m.replication(
      [
        { fromRoom: 'room1', toRoom: 'room2', bytes: 30_000 },
        { fromRoom: 'room2', toRoom: 'room1', bytes: 500 }
      ],
      12_000
    )
    const [oneTwo, twoOne] = m.snapshot().roomLinks
    expect(oneTwo).toMatchObject({
      fromRoom: 'room1',
      toRoom: 'room2',
      messages: 1,
      replicationBytes: 30_000,
      replicationBytesPerSecond: 10_000
    })
    expect(twoOne).toEqual(
      // A direction only replication crossed.
      {
        fromRoom: 'room2',
        toRoom: 'room1',
        messages: 0,
        bytes: 0,
        rate: 0,
        bytesPerSecond: 0,
        replicationBytes: 500,
        replicationBytesPerSecond: 0
      }
    )
    // room2's replica is down for a read: what it copied stays counted, at no rate.
    set(14_000)
    m.replication([{ fromRoom: 'room1', toRoom: 'room2', bytes: 31_000 }], 14_000)
    expect(
      m.snapshot().roomLinks.map((l) => [l.replicationBytes, l.replicationBytesPerSecond])
    ).toEqual([
      [31_000, 500],
      [500, 0]
    ])
  })

  it('emits one snapshot per interval while started and a last one on stop', () => {
    const { m, timers, out } = setup()
    m.start()
    m.start()
    expect(timers.pending).toHaveLength(1)
    timers.fire()
    timers.fire()
    expect(out).toHaveLength(2)
    m.stop()
    expect(out).toHaveLength(3)
    expect(timers.pending).toEqual([])
    m.stop()
    expect(out).toHaveLength(3)
  })

  it('ignores events without a client and kinds that are not failures', () => {
    const { m } = setup()
    m.event({ kind: 'pull-failed', clientId: null, atMs: 9_999 })
    m.event({ kind: 'broker-choice', clientId: 'producer-1', atMs: 9_999 })
    m.event({ kind: 'pull-failed', clientId: 'consumer-2', atMs: 9_999 })
    const s = m.snapshot()
    expect(s.clients.map((c) => c.failures)).toEqual([0, 1, 0, 0])
  })
})

describe('withLiveMetrics', () => {
  it('writes every row to the ledger and feeds the aggregator', () => {
    const { m } = setup()
    const rows: string[] = []
    const ledger = withLiveMetrics(
      {
        event: (kind) => rows.push(`event ${kind}`),
        send: (r) => rows.push(`send ${r.key}`),
        delivery: (d) => rows.push(`delivery ${d.key}`)
      },
      m
    )
    ledger.send(send('producer-1', 9_900, 'broker-a'))
    ledger.delivery(delivery('consumer-1', 9_950, 'broker-a'))
    ledger.event(
      'pull-failed',
      'consumer-1',
      'room1',
      { brokerName: 'broker-a', brokerRoom: 'room1', reason: 'x' },
      9_960
    )
    expect(rows).toEqual(['send producer-1-9900', 'delivery k-9950', 'event pull-failed'])
    const s = m.snapshot()
    expect(client(s, 'producer-1').rate).toBe(1)
    expect(client(s, 'consumer-1')).toMatchObject({ rate: 1, failures: 1 })
  })
})
