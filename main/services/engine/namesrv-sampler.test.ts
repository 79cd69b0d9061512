import { describe, expect, it } from 'vitest'
import type { LedgerEventData } from '../../../common/scenario/events'
import { RemoteError, RemotingTimeoutError } from '../remoting/errors'
import type { BrokerData, ClusterInfo, TopicRoute } from '../remoting/types'
import type { NamesrvQueryPort, NamesrvTarget } from './namesrv-sampler'
import type { TimerPort } from './periodic-sweep'
import { NamesrvSampler } from './namesrv-sampler'

const broker = (name: string, zone: string, addr: string): BrokerData =>
  ({
    cluster: 'DrCluster',
    brokerName: name,
    brokerAddrs: { '0': addr },
    zoneName: zone,
    enableActingMaster: false
  }) satisfies BrokerData

/** A fake name-server port: what each address lists, changeable between sweeps. */
class FakeNamesrvs implements NamesrvQueryPort {
  listed = new Map<string, BrokerData[]>()
  down = new Set<string>()
  noTopic = new Set<string>()
  calls: string[] = []

  async getBrokerClusterInfo(address: string): Promise<ClusterInfo> {
    this.calls.push(`cluster ${address}`)
    if (this.down.has(address)) throw new RemotingTimeoutError(address, 106, 800)
    const table = Object.fromEntries((this.listed.get(address) ?? []).map((b) => [b.brokerName, b]))
    return { brokerAddrTable: table, clusterAddrTable: {} }
  }

  async getRouteInfoByTopic(address: string, topic: string): Promise<TopicRoute> {
    this.calls.push(`route ${address} ${topic}`)
    if (this.noTopic.has(address)) throw new RemoteError(address, 105, 17, 'No topic route info')
    const brokers = this.listed.get(address) ?? []
    return {
      orderTopicConf: undefined,
      queueDatas: brokers.map((b) => ({
        brokerName: b.brokerName,
        readQueueNums: 4,
        writeQueueNums: 4,
        perm: 6,
        topicSysFlag: 0
      })),
      brokerDatas: brokers,
      filterServerTable: {}
    } satisfies TopicRoute
  }
}

/** Manual timers: `fire()` runs what is due. */
class FakeTimers implements TimerPort {
  pending: { fn: () => void; ms: number }[] = []
  setTimeout(fn: () => void, ms: number): unknown {
    const t = { fn, ms }
    this.pending.push(t)
    return t
  }
  clearTimeout(h: unknown): void {
    this.pending = this.pending.filter((t) => t !== h)
  }
  fire(): void {
    const due = this.pending
    this.pending = []
    for (const t of due) t.fn()
  }
}

const targets: NamesrvTarget[] = [
  { namesrvId: 'ns-1', room: 'room1', address: '10.0.1.2:9876' },
  { namesrvId: 'ns-2', room: 'room2', address: '10.0.2.2:9876' }
]
const a = broker('broker-a', 'room1', '10.0.1.3:10911')
const b = broker('broker-b', 'room2', '10.0.2.3:10911')

function setup(topic?: string) {
  const rpc = new FakeNamesrvs()
  rpc.listed.set(targets[0]!.address, [b, a])
  rpc.listed.set(targets[1]!.address, [a, b])
  const timers = new FakeTimers()
  const views: { atMs: number; view: LedgerEventData['namesrv-view'] }[] = []
  let now = 1000
  const sampler = new NamesrvSampler({
    rpc,
    targets: () => targets,
    ...(topic ? { topic } : {}),
    emit: (view, atMs) => views.push({ view, atMs }),
    intervalMs: 1000,
    now: () => now,
    timers
  })
  return { rpc, timers, views, sampler, advance: (ms: number) => (now += ms) }
}

const flush = () => new Promise((r) => setImmediate(r))

describe('NamesrvSampler', () => {
  it('lists every broker a name server knows, with its room and master address, sorted', async () => {
    const { sampler, views } = setup()
    await sampler.sampleOnce()
    expect(views).toEqual([
      {
        atMs: 1000,
        view: {
          namesrvId: 'ns-1',
          room: 'room1',
          brokers: [
            { brokerName: 'broker-a', address: '10.0.1.3:10911', room: 'room1' },
            { brokerName: 'broker-b', address: '10.0.2.3:10911', room: 'room2' }
          ]
        }
      },
      {
        atMs: 1000,
        view: {
          namesrvId: 'ns-2',
          room: 'room2',
          brokers: [
            { brokerName: 'broker-a', address: '10.0.1.3:10911', room: 'room1' },
            { brokerName: 'broker-b', address: '10.0.2.3:10911', room: 'room2' }
          ]
        }
      }
    ])
  })

  it("samples the topic's route too", async () => {
    const { sampler, views, rpc } = setup('orders')
    rpc.listed.set(targets[0]!.address, [b])
    await sampler.sampleOnce()
    expect(views[0]!.view.route).toEqual({
      topic: 'orders',
      brokers: [{ brokerName: 'broker-b', address: '10.0.2.3:10911', room: 'room2' }]
    })
    expect(rpc.calls).toContain('route 10.0.1.2:9876 orders')
  })

  it('a name server that does not answer is recorded with an error naming it and its address', async () => {
    const { sampler, views, rpc } = setup('orders')
    rpc.down.add(targets[1]!.address)
    await sampler.sampleOnce()
    const v = views.find((x) => x.view.namesrvId === 'ns-2')!.view
    expect(v.brokers).toEqual([])
    expect(v.error).toMatch(/^ns-2 at 10\.0\.2\.2:9876: /)
    expect(v.route).toBeUndefined()
  })

  it('a topic the name server no longer routes is an empty route, not an error', async () => {
    const { sampler, views, rpc } = setup('orders')
    rpc.noTopic.add(targets[0]!.address)
    await sampler.sampleOnce()
    const v = views[0]!.view
    expect(v.route).toEqual({ topic: 'orders', brokers: [] })
    expect(v.error).toBeUndefined()
    expect(v.brokers).toHaveLength(2)
  })

  it('samples at start, then once per interval, until stopped', async () => {
    const { sampler, views, timers, advance } = setup()
    sampler.start()
    await flush()
    expect(views.map((v) => v.atMs)).toEqual([1000, 1000])
    expect(timers.pending.map((t) => t.ms)).toEqual([1000])
    advance(1000)
    timers.fire()
    await flush()
    expect(views.map((v) => v.atMs)).toEqual([1000, 1000, 2000, 2000])
    await sampler.stop()
    expect(timers.pending).toEqual([])
    timers.fire()
    await flush()
    expect(views).toHaveLength(4)
  })

  it('start twice does not double the sweeps; stop waits for the sweep in progress', async () => {
    const { sampler, views, timers } = setup()
    sampler.start()
    sampler.start()
    await sampler.stop()
    expect(views).toHaveLength(2)
    expect(timers.pending).toEqual([])
  })

  it('re-reads the targets every sweep (a restarted name server may have a new address)', async () => {
    const list = [...targets]
    const rpc = new FakeNamesrvs()
    const seen: string[] = []
    const sampler = new NamesrvSampler({
      rpc,
      targets: () => list,
      emit: (v) => seen.push(v.namesrvId),
      timers: new FakeTimers()
    })
    await sampler.sampleOnce()
    list.pop()
    await sampler.sampleOnce()
    expect(seen).toEqual(['ns-1', 'ns-2', 'ns-1'])
  })
})
