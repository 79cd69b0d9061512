import { afterEach, describe, expect, it } from 'vitest'
import { ConnectionClosedError } from '../../remoting/errors'
import type { TopicRoute } from '../../remoting/types'
import { ClientCores } from './client-core'
import { DrConsumer } from './consumer'
import type { RemotingPort } from './ports'
import { DrProducer } from './producer'
import { FakeCluster, FakeManagement, RecordingLedger, until } from './test-fakes'

const mgmt = [{ id: 'mgmt-1', room: 'room1', url: 'http://127.0.0.1:1' }]

class CountingCluster extends FakeCluster {
  routeCalls = 0
  override route(): TopicRoute {
    this.routeCalls++
    return super.route()
  }
}

/** A worker's world: connection pools and heartbeats counted as they are opened and sent. */
function world() {
  const cluster = new CountingCluster()
  cluster.nameServers.set('ns1:9876', 'up')
  cluster.brokers.set('a:10911', { name: 'broker-a', room: 'room1', health: 'up' })
  cluster.brokers.set('b:10911', { name: 'broker-b', room: 'room2', health: 'up' })
  const management = new FakeManagement([
    { id: 'ns-1', room: 'room1', address: 'ns1:9876', available: true }
  ])
  const ledger = new RecordingLedger()
  const pools: { closed: boolean }[] = []
  const heartbeats: { addr: string; clientId: string; producerGroups?: string[] }[] = []
  const remoting = (): RemotingPort => {
    const port = cluster.remoting()
    const pool = { closed: false }
    pools.push(pool)
    const heartbeat = port.heartbeat.bind(port)
    return Object.assign(port, {
      heartbeat: (...a: Parameters<RemotingPort['heartbeat']>) => {
        heartbeats.push({ addr: a[0], ...(a[1] as { clientId: string }) })
        return heartbeat(...a)
      },
      close: () => void (pool.closed = true)
    })
  }
  // Long periods: every refresh the test sees is the one it caused.
  const timing = {
    routeRefreshMs: 60_000,
    managementRefreshMs: 60_000,
    heartbeatIntervalMs: 60_000
  }
  const cores = new ClientCores({ remoting, management, ledger })
  const deps = { remoting, management, ledger, cores }
  const producer = (id: string, group: string) =>
    new DrProducer(
      { id, room: 'room1', topic: 'orders', group, managementNodes: mgmt, ...timing },
      deps
    )
  const consumer = (id: string) =>
    new DrConsumer(
      { id, room: 'room1', topic: 'orders', group: 'cg', managementNodes: mgmt, ...timing },
      deps
    )
  return { cluster, management, ledger, pools, heartbeats, cores, remoting, producer, consumer }
}

const live: (DrProducer | DrConsumer)[] = []
afterEach(async () => {
  for (const c of live.splice(0)) await c.stop()
})

describe('ClientCore: one per worker, as the Java client instance', () => {
  it('gives a worker one pool, directory and route for its producers; consumers keep their channels', async () => {
    const w = world()
    const p1 = w.producer('producer-1', 'pg-1')
    const p2 = w.producer('producer-2', 'pg-2')
    const c1 = w.consumer('consumer-1')
    live.push(p1, p2, c1)
    await p1.start()
    await p2.start()
    await c1.start()
    expect(w.cores.size).toBe(1)
    // The core's pool and consumer-1's own: a broker lists a group's members by channel.
    expect(w.pools).toHaveLength(2)
    expect(p1.routes).toBe(p2.routes)
    expect(p1.routes).toBe(c1.routes)
    expect(p1.directory).toBe(c1.directory)
    expect(p1.cid).toBe(p2.cid)
    expect(c1.cid).not.toBe(p1.cid)
    expect((await p1.send({ body: 'x' })).ok).toBe(true)
    expect((await p2.send({ body: 'y' })).ok).toBe(true)
  })

  it('heartbeats each broker once for all the producer groups, under the one client id', async () => {
    const w = world()
    const p1 = w.producer('producer-1', 'pg-1')
    const p2 = w.producer('producer-2', 'pg-2')
    live.push(p1, p2)
    await p1.start()
    await p2.start()
    const last = w.heartbeats.filter((h) => h.producerGroups?.length === 2)
    expect(last.map((h) => h.addr).sort()).toEqual(['a:10911', 'b:10911'])
    expect(last.every((h) => h.clientId === p1.cid)).toBe(true)
    expect(last[0]!.producerGroups).toEqual(['pg-1', 'pg-2'])
  })

  it("refreshes a topic's route once when a broker closes, however many clients saw it", async () => {
    const w = world()
    const clients = [
      w.producer('producer-1', 'pg'),
      w.producer('producer-2', 'pg'),
      w.producer('producer-3', 'pg'),
      w.consumer('consumer-1'),
      w.consumer('consumer-2')
    ]
    live.push(...clients)
    for (const c of clients) await c.start()
    const before = w.cluster.routeCalls
    // broker-a's JVM dies: every pool's connection to it closes, the core's and each consumer's.
    w.cluster.brokers.get('a:10911')!.health = 'down'
    for (const e of w.cluster.emitters)
      e.emit('connection-close', {
        address: 'a:10911',
        error: new ConnectionClosedError('a:10911', 'reset by peer')
      })
    await until(() => clients[0]!.routes.brokers.length === 1, 'the route without broker-a')
    await new Promise((r) => setTimeout(r, 50))
    expect(w.cluster.routeCalls - before).toBe(1)
  })

  it("writes the shared parts' ledger rows for every client using them, and a late joiner's choice", async () => {
    const w = world()
    const p1 = w.producer('producer-1', 'pg')
    live.push(p1)
    await p1.start()
    const p2 = w.producer('producer-2', 'pg')
    live.push(p2)
    await p2.start()
    // What producer-2 would have written at its own start, though nothing changed when it joined.
    for (const kind of ['namesrv-list', 'namesrv-choice', 'route-updated'] as const) {
      const rows = w.ledger.events.filter((e) => e.kind === kind)
      expect(
        rows.map((e) => e.clientId),
        kind
      ).toEqual(['producer-1', 'producer-2'])
      expect(rows[1]!.data, kind).toMatchObject(
        kind === 'namesrv-choice' ? { namesrvId: 'ns-1' } : (rows[0]!.data as object)
      )
    }
    w.cluster.brokers.get('b:10911')!.health = 'down'
    await p1.routes.refresh('test')
    const updated = w.ledger.events.filter((e) => e.kind === 'route-updated').slice(-2)
    expect(updated.map((e) => e.clientId).sort()).toEqual(['producer-1', 'producer-2'])
  })

  it('writes a route keeper’s rows only for the clients of its topic', async () => {
    const w = world()
    const p1 = w.producer('producer-1', 'pg')
    const other = new DrProducer(
      {
        id: 'producer-9',
        room: 'room1',
        topic: 'payments',
        group: 'pg-9',
        managementNodes: mgmt,
        routeRefreshMs: 60_000,
        managementRefreshMs: 60_000,
        heartbeatIntervalMs: 60_000
      },
      { remoting: w.remoting, management: w.management, ledger: w.ledger, cores: w.cores }
    )
    live.push(p1, other)
    await p1.start()
    await other.start()
    expect(other.routes).not.toBe(p1.routes)
    w.cluster.brokers.get('b:10911')!.health = 'down'
    const from = w.ledger.events.length
    await p1.routes.refresh('test')
    const rows = w.ledger.events.slice(from).filter((e) => e.kind === 'route-updated')
    expect(rows.map((e) => e.clientId)).toEqual(['producer-1'])
  })

  it('keeps serving the others when one client is killed, and closes the pool once nobody holds it', async () => {
    const w = world()
    const p1 = w.producer('producer-1', 'pg')
    const p2 = w.producer('producer-2', 'pg')
    live.push(p2)
    await p1.start()
    await p2.start()
    await p1.stop('crash')
    expect((await p2.send({ body: 'x' })).ok).toBe(true)
    expect(w.pools[0]!.closed).toBe(false)
    w.cores.release('producer-1')
    expect(w.pools[0]!.closed).toBe(false)
    await p2.stop()
    w.cores.release('producer-2')
    expect(w.pools[0]!.closed).toBe(true)
    expect(w.cores.size).toBe(0)
  })

  it('a killed producer’s send in flight on the shared pool is failed, not acknowledged', async () => {
    const w = world()
    const p1 = w.producer('producer-1', 'pg')
    const p2 = w.producer('producer-2', 'pg')
    live.push(p2)
    await p1.start()
    await p2.start()
    w.cluster.slow.set('a:10911', 50)
    const inFlight = p1.send({ body: 'x' })
    await new Promise((r) => setTimeout(r, 10))
    await p1.stop('crash')
    const outcome = await inFlight
    expect(outcome.ok).toBe(false)
    expect(w.ledger.sends.map((s) => [s.clientId, s.status, s.error])).toEqual([
      ['producer-1', 'failed', 'client stopped before the answer came']
    ])
  })

  it('asks the management node once per refresh for the whole worker', async () => {
    const w = world()
    const clients = [w.producer('producer-1', 'pg'), w.consumer('consumer-1')]
    live.push(...clients)
    for (const c of clients) await c.start()
    const before = w.management.calls.length
    await clients[0]!.directory.refresh('periodic')
    expect(w.management.calls.length - before).toBe(1)
  })
})
