import { afterEach, describe, expect, it } from 'vitest'
import { ConnectFailedError } from '../../remoting/errors'
import type { TopicRoute } from '../../remoting/types'
import { DrProducer } from './producer'
import type { ManagementAnswer, ManagementNodeRef } from './ports'
import { ClientCore } from './client-core'
import { FakeCluster, FakeManagement, RecordingLedger, until } from './test-fakes'

// Controller mode: broker-a keeps a replica in each room and the controllers move its master. The
// name server's zone for it is whichever replica registered last (here always room3), so rooms
// must come from the replicas' addresses, which the management node lists.

const REPLICAS = [
  { id: 'a-1', room: 'room1', address: 'a1:10911' },
  { id: 'a-2', room: 'room2', address: 'a2:10911' },
  { id: 'a-3', room: 'room3', address: 'a3:10911' }
]

class ControllerCluster extends FakeCluster {
  master: string | null = 'a1:10911'
  routeCalls = 0
  override route(): TopicRoute {
    this.routeCalls++
    const up = REPLICAS.filter((r) => this.brokers.get(r.address)?.health !== 'down')
    const addrs: Record<string, string> = {}
    up.forEach((r, i) => {
      addrs[r.address === this.master ? '0' : String(i + 1)] = r.address
    })
    return {
      orderTopicConf: undefined,
      filterServerTable: {},
      brokerDatas: up.length
        ? [
            {
              cluster: 'C',
              brokerName: 'broker-a',
              brokerAddrs: addrs,
              zoneName: 'room3',
              enableActingMaster: false
            }
          ]
        : [],
      queueDatas: up.length
        ? [
            {
              brokerName: 'broker-a',
              readQueueNums: 4,
              writeQueueNums: 4,
              perm: 6,
              topicSysFlag: 0
            }
          ]
        : []
    }
  }
}

class ReplicaManagement extends FakeManagement {
  constructor(private readonly replicas = REPLICAS) {
    super([{ id: 'ns-1', room: 'room1', address: 'ns1:9876', available: true }])
  }
  override async fetchNameServers(node: ManagementNodeRef): Promise<ManagementAnswer> {
    return { ...(await super.fetchNameServers(node)), brokers: this.replicas }
  }
}

function world(replicas = REPLICAS) {
  const cluster = new ControllerCluster()
  cluster.nameServers.set('ns1:9876', 'up')
  for (const r of REPLICAS)
    cluster.brokers.set(r.address, { name: 'broker-a', room: r.room, health: 'up' })
  const management = new ReplicaManagement(replicas)
  const ledger = new RecordingLedger()
  return { cluster, management, ledger }
}

function routing(w: ReturnType<typeof world>) {
  const core = new ClientCore(
    {
      room: 'room1',
      policy: 'round-robin',
      managementNodes: [{ id: 'mgmt-1', room: 'room1', url: 'http://127.0.0.1:1' }],
      managementRefreshMs: 60_000,
      managementTimeoutMs: 100,
      // Far away: anything faster below is the master-lost re-poll.
      routeRefreshMs: 60_000,
      requestTimeoutMs: 100,
      heartbeatIntervalMs: 60_000
    },
    {
      remoting: () => w.cluster.remoting(),
      management: w.management,
      ledger: w.ledger,
      clock: { now: () => performance.now() },
      random: () => 0
    }
  )
  core.join({ id: 'producer-1', topic: 'orders' })
  stops.push(() => core.close())
  return { remoting: core.remoting, directory: core.directory, routes: core.routes('orders') }
}

const stops: (() => void | Promise<void>)[] = []
afterEach(async () => {
  for (const s of stops.splice(0)) await s()
})

async function started(w: ReturnType<typeof world>) {
  const r = routing(w)
  await r.directory.refresh('start')
  await r.routes.refresh('start')
  r.routes.start()
  stops.push(() => r.routes.stop())
  return r
}

describe('RouteKeeper in controller mode', () => {
  it("places a set in its master's room by address, not by the name server's zone", async () => {
    const w = world()
    const { routes } = await started(w)
    expect(routes.brokers[0]).toMatchObject({
      brokerName: 'broker-a',
      room: 'room1',
      masterAddr: 'a1:10911'
    })
  })

  it('re-polls while the set has no master and records where the new one is', async () => {
    const w = world()
    const { routes } = await started(w)
    w.cluster.brokers.get('a1:10911')!.health = 'down'
    w.cluster.master = null
    await routes.refresh('test')
    expect(routes.waitingForMaster).toEqual(['broker-a'])
    const before = w.cluster.routeCalls
    await until(() => w.cluster.routeCalls >= before + 3, 'fast re-polls')
    w.cluster.master = 'a2:10911'
    await until(() => w.ledger.kinds('master-followed').length === 1, 'master-followed')
    const followed = w.ledger.kinds('master-followed')[0]!
    expect(followed).toMatchObject({
      brokerName: 'broker-a',
      from: 'a1:10911',
      fromRoom: 'room1',
      to: 'a2:10911',
      toRoom: 'room2',
      sameRoom: false
    })
    expect(followed.withoutMasterMs).toBeGreaterThanOrEqual(0)
    expect(routes.brokers[0]).toMatchObject({ room: 'room2', masterAddr: 'a2:10911' })
    expect(routes.waitingForMaster).toEqual([])
    // Back to the periodic refresh once the master is known.
    const settled = w.cluster.routeCalls
    await new Promise((r) => setTimeout(r, 300))
    expect(w.cluster.routeCalls - settled).toBeLessThanOrEqual(1)
  })

  it('starts re-polling when the master connection drops, before the name server notices', async () => {
    const w = world()
    const { routes } = await started(w)
    for (const e of w.cluster.emitters) {
      e.emit('connection-close', {
        address: 'a1:10911',
        error: new ConnectFailedError('a1:10911', 'ECONNRESET')
      })
    }
    expect(routes.waitingForMaster).toEqual(['broker-a'])
    const before = w.cluster.routeCalls
    await until(
      () => w.cluster.routeCalls >= before + 3,
      'fast re-polls while the route still names a1'
    )
    w.cluster.master = 'a3:10911'
    await until(() => w.ledger.kinds('master-followed').length === 1, 'master-followed')
    expect(w.ledger.kinds('master-followed')[0]).toMatchObject({
      to: 'a3:10911',
      toRoom: 'room3',
      sameRoom: false
    })
  })

  it('records a master moving straight to another replica with no gap', async () => {
    const w = world()
    const { routes } = await started(w)
    w.cluster.master = 'a2:10911'
    await routes.refresh('test')
    expect(w.ledger.kinds('master-followed')[0]).toMatchObject({
      from: 'a1:10911',
      to: 'a2:10911',
      withoutMasterMs: null
    })
  })

  it('leaves master/slave sets alone: no replica list, no re-polling or master-followed', async () => {
    const w = world([])
    const { routes } = await started(w)
    expect(routes.brokers[0]!.room).toBe('room3')
    w.cluster.master = null
    await routes.refresh('test')
    expect(routes.waitingForMaster).toEqual([])
    const before = w.cluster.routeCalls
    await new Promise((r) => setTimeout(r, 250))
    expect(w.cluster.routeCalls).toBe(before)
    w.cluster.master = 'a2:10911'
    await routes.refresh('test')
    expect(w.ledger.kinds('master-followed')).toEqual([])
  })
})

describe('DrProducer in controller mode', () => {
  it('follows the master to another room: the same set, a new room in its choice and the ledger', async () => {
    const w = world()
    const producer = new DrProducer(
      {
        id: 'producer-1',
        room: 'room1',
        topic: 'orders',
        group: 'pg',
        managementNodes: [{ id: 'mgmt-1', room: 'room1', url: 'http://127.0.0.1:1' }],
        probeIntervalMs: 10,
        routeRefreshMs: 60_000,
        managementRefreshMs: 60_000,
        sendTimeoutMs: 2000,
        requestTimeoutMs: 100
      },
      { remoting: () => w.cluster.remoting(), management: w.management, ledger: w.ledger }
    )
    stops.push(() => producer.stop())
    await producer.start()
    expect((await producer.send({ body: 'x' })).brokerRoom).toBe('room1')
    w.cluster.brokers.get('a1:10911')!.health = 'down'
    w.cluster.master = null
    for (const e of w.cluster.emitters) {
      e.emit('connection-close', {
        address: 'a1:10911',
        error: new ConnectFailedError('a1:10911', 'ECONNRESET')
      })
    }
    setTimeout(() => (w.cluster.master = 'a2:10911'), 50)
    const r = await producer.send({ body: 'y' })
    expect(r).toMatchObject({ ok: true, brokerName: 'broker-a', brokerRoom: 'room2' })
    await until(() => producer.choice().brokerRoom === 'room2', 'choice in room2')
    expect(w.ledger.kinds('broker-choice').map((c) => c.brokerRoom)).toEqual(['room1', 'room2'])
    expect(w.ledger.kinds('master-followed')[0]).toMatchObject({ toRoom: 'room2' })
  })
})
