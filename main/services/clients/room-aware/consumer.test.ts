import { afterEach, describe, expect, it } from 'vitest'
import { buildClientId } from './client-id'
import { DrConsumer } from './consumer'
import { FakeCluster, FakeManagement, RecordingLedger, until } from './test-fakes'

const mgmt = [
  { id: 'mgmt-1', room: 'room1', url: 'http://127.0.0.1:1' },
  { id: 'mgmt-2', room: 'room2', url: 'http://127.0.0.1:2' }
]

function world() {
  const cluster = new FakeCluster()
  cluster.nameServers.set('ns1:9876', 'up')
  cluster.nameServers.set('ns2:9876', 'up')
  cluster.brokers.set('a:10911', { name: 'broker-a', room: 'room1', health: 'up' })
  cluster.brokers.set('b:10911', { name: 'broker-b', room: 'room2', health: 'up' })
  const management = new FakeManagement([
    { id: 'ns-1', room: 'room1', address: 'ns1:9876', available: true },
    { id: 'ns-2', room: 'room2', address: 'ns2:9876', available: true }
  ])
  const ledger = new RecordingLedger()
  const consumer = new DrConsumer(
    {
      id: 'consumer-2',
      room: 'room2',
      topic: 'orders',
      group: 'cg',
      managementNodes: mgmt,
      // Long enough that only a broker notification can explain a quick rebalance.
      rebalanceIntervalMs: 60_000,
      routeRefreshMs: 60_000,
      heartbeatIntervalMs: 60_000,
      commitIntervalMs: 20
    },
    { remoting: () => cluster.remoting(), management, ledger }
  )
  const other = buildClientId({ instance: 'consumer-1', room: 'room1' })
  const both = () => [other, consumer.cid]
  cluster.consumerIds.set('a:10911', both())
  cluster.consumerIds.set('b:10911', both())
  return { cluster, ledger, consumer, other }
}

const live: DrConsumer[] = []
afterEach(async () => {
  for (const c of live.splice(0)) await c.stop()
})

describe('DrConsumer', () => {
  it('puts its room in its client id and owns only its room while the other room has a consumer', async () => {
    const { consumer } = world()
    live.push(consumer)
    await consumer.start()
    expect(consumer.cid).toMatch(/@room2$/)
    expect(consumer.assignment().map((q) => q.room)).toEqual(['room2', 'room2', 'room2', 'room2'])
  })

  it('takes over an orphaned room at once when a broker notifies a membership change (scenario 4)', async () => {
    const { cluster, ledger, consumer } = world()
    live.push(consumer)
    await consumer.start()
    cluster.backlog.set('broker-a#1', ['k1', 'k2'])
    cluster.consumerIds.set('a:10911', [consumer.cid])
    cluster.consumerIds.set('b:10911', [consumer.cid])
    cluster.notify('a:10911', 'cg')
    await until(() => consumer.assignment().length === 8, 'the takeover')
    expect(ledger.kinds('consumer-takeover')[0]).toMatchObject({
      fromRoom: 'room1',
      toRoom: 'room2',
      queues: 4,
      trigger: 'notify'
    })
    await until(() => ledger.deliveries.length === 2, 'the backlog')
    expect(ledger.deliveries.map((d) => [d.key, d.brokerRoom, d.clientRoom])).toEqual([
      ['k1', 'room1', 'room2'],
      ['k2', 'room1', 'room2']
    ])
  })

  it('ignores notifications for other groups', async () => {
    const { cluster, ledger, consumer } = world()
    live.push(consumer)
    await consumer.start()
    cluster.consumerIds.set('a:10911', [consumer.cid])
    cluster.notify('a:10911', 'someone-else')
    await new Promise((r) => setTimeout(r, 50))
    expect(consumer.assignment()).toHaveLength(4)
    expect(ledger.kinds('consumer-takeover')).toHaveLength(0)
  })

  it('graceful stop unregisters; a crash sends nothing', async () => {
    const a = world()
    await a.consumer.start()
    await a.consumer.stop('graceful')
    expect(a.cluster.unregistered).toContain(a.consumer.cid)
    const b = world()
    await b.consumer.start()
    await b.consumer.stop('crash')
    expect(b.cluster.unregistered).toEqual([])
    expect(b.ledger.kinds('client-stopped')).toEqual([{ role: 'consumer', mode: 'crash' }])
  })
})

describe('where a new group starts on an existing topic', () => {
  it('never before the run began, whatever offset the broker reports for the new group', async () => {
    const cluster = new FakeCluster()
    cluster.nameServers.set('ns1:9876', 'up')
    cluster.brokers.set('a:10911', { name: 'broker-a', room: 'room1', health: 'up' })
    // Messages of earlier runs (and of production) already sit in the queue.
    cluster.backlog.set('broker-a#0', ['old-1', 'old-2', 'old-3', 'run-1'])
    cluster.consumerIds.set('a:10911', [])
    const ledger = new RecordingLedger()
    const consumer = new DrConsumer(
      {
        id: 'consumer-1',
        room: 'room1',
        topic: 'payments',
        group: 'drstudio-run-9',
        managementNodes: [],
        initialNameServers: [{ id: 'ns-1', room: 'room1', address: 'ns1:9876' }],
        routeRefreshMs: 50,
        rebalanceIntervalMs: 50,
        pollTimeoutMs: 20,
        startOffsets: { 'broker-a#0': 3 }
      },
      { remoting: () => cluster.remoting(), management: new FakeManagement([]), ledger }
    )
    await consumer.start()
    await until(() => ledger.deliveries.length > 0, 'a delivery')
    await consumer.stop('crash')
    expect(ledger.deliveries.map((d) => d.key)).toEqual(['run-1'])
  })
})
