import { describe, expect, it } from 'vitest'
import { isAttached, listNodes, validateTopology } from '../../../common/topology'
import { buildTopology } from './build-topology'
import { connectToCluster } from './connect'
import { discoverCluster } from './discovery'
import { APP_WORDS, placeRooms } from './placement'
import { checkTopic, formatTopicCheck, APP_CREATE_HINT } from './topic-check'
import { clusterInfo, fakeDiscoveryPort, queue } from './testing-fakes'

const info = clusterInfo([
  { brokerName: 'broker-a', zone: 'room1', addrs: { 0: '10.1.0.2:10911', 1: '10.1.0.3:10911' } },
  { brokerName: 'broker-b', zone: 'room2', addrs: { 0: '10.2.0.2:10911' } }
])
const ns = {
  info,
  topics: ['payments', 'orders-r1'],
  routes: {
    payments: [queue('broker-a'), queue('broker-b')],
    'orders-r1': [queue('broker-a', 8)]
  }
}
const servers = { '10.1.0.2:9876': ns, '10.2.0.2:9876': ns }
const NS = ['10.1.0.2:9876', '10.2.0.2:9876']

async function discovered() {
  const d = await discoverCluster(
    { namesrv: NS, now: () => new Date('2025-05-01T00:00:00Z') },
    fakeDiscoveryPort(servers)
  )
  const p = placeRooms({ brokerSets: d.brokerSets, nameServers: NS }, {})
  return { d, p }
}

describe('buildTopology', () => {
  it('writes a valid topology of attached nodes with static name servers and the source', async () => {
    const { d, p } = await discovered()
    const t = buildTopology(d, p, { createTopic: false })
    expect(validateTopology(t).ok).toBe(true)
    expect(t.name).toBe('discovered-DefaultCluster')
    expect(t.settings.namesrvDiscovery).toBe('static')
    expect(t.source).toEqual({
      kind: 'discovered',
      namesrv: '10.1.0.2:9876;10.2.0.2:9876',
      at: '2025-05-01T00:00:00.000Z',
      rooms: 'zone',
      createTopic: false
    })
    expect(t.topics).toEqual([
      { name: 'orders-r1', queues: 8 },
      { name: 'payments', queues: 4 }
    ])
    const nodes = listNodes(t)
    expect(nodes.every((n) => isAttached(n))).toBe(true)
    expect(nodes.map((n) => [n.room, n.kind, n.id])).toEqual([
      ['room1', 'nameserver', 'ns-1'],
      ['room1', 'broker', 'broker-a'],
      ['room1', 'broker', 'broker-a-s1'],
      ['room2', 'nameserver', 'ns-2'],
      ['room2', 'broker', 'broker-b']
    ])
    expect(t.rooms[0]?.brokers[1]).toEqual({
      id: 'broker-a-s1',
      cluster: 'DefaultCluster',
      brokerName: 'broker-a',
      role: 'slave',
      brokerId: 1,
      host: '10.1.0.3',
      port: 10911
    })
    expect(t.rooms.every((r) => r.producers.length === 0 && r.consumers.length === 0)).toBe(true)
  })

  it('adds one producer and one consumer per room on the named topic when asked', async () => {
    const { d, p } = await discovered()
    const t = buildTopology(d, p, { createTopic: false, clientsTopic: 'payments', name: 'prod' })
    expect(t.name).toBe('prod')
    expect(
      t.rooms.map((r) => [
        r.producers.map((x) => [x.id, x.topic, x.group, x.rate]),
        r.consumers.map((c) => [c.id, c.group])
      ])
    ).toEqual([
      [
        [['producer-room1', 'payments', 'drstudio-producer', 5]],
        [['consumer-room1', 'drstudio-consumer']]
      ],
      [
        [['producer-room2', 'payments', 'drstudio-producer', 5]],
        [['consumer-room2', 'drstudio-consumer']]
      ]
    ])
  })

  it('lists a topic DR Studio may create, and only then', async () => {
    const { d, p } = await discovered()
    expect(
      buildTopology(d, p, { createTopic: true, clientsTopic: 'new-topic' }).topics
    ).toContainEqual({ name: 'new-topic', queues: 4 })
    expect(
      buildTopology(d, p, { createTopic: false, clientsTopic: 'new-topic' }).topics.map(
        (x) => x.name
      )
    ).not.toContain('new-topic')
  })

  it('keeps ids unique against room ids and other nodes', async () => {
    const clash = clusterInfo([
      { brokerName: 'room1', zone: 'room1', addrs: { 0: '10.1.0.2:10911' } },
      { brokerName: 'ns-1', zone: 'room1', addrs: { 0: '10.1.0.2:10921' } },
      { brokerName: '9lives', zone: 'room1', addrs: { 0: '10.1.0.2:10931' } }
    ])
    const port = fakeDiscoveryPort({ 'h:1': { info: clash } })
    const d = await discoverCluster({ namesrv: ['h:1'] }, port)
    const p = placeRooms(
      { brokerSets: d.brokerSets, nameServers: ['h:1'] },
      {
        mode: 'zone',
        map: {
          source: 'm',
          entries: [{ selector: 'h:1', kind: 'address', room: 'room1', where: 'm' }]
        }
      }
    )
    const t = buildTopology(d, p, { createTopic: false })
    expect(listNodes(t).map((n) => n.id)).toEqual(['ns-1-2', 'n-9lives', 'ns-1', 'room1-2'])
    expect(validateTopology(t).ok).toBe(true)
  })

  it('refuses to build while nodes have no room', async () => {
    const d = await discoverCluster({ namesrv: NS }, fakeDiscoveryPort(servers))
    const p = placeRooms({ brokerSets: d.brokerSets, nameServers: ['10.9.9.9:9876'] }, {})
    expect(() => buildTopology(d, p, { createTopic: false })).toThrow(/have no room/)
  })
})

describe('checkTopic', () => {
  it('passes a topic with writable queues in every room', async () => {
    const { d, p } = await discovered()
    const t = buildTopology(d, p, { createTopic: false })
    const c = checkTopic({
      topic: 'payments',
      queues: [queue('broker-a'), queue('broker-b')],
      topology: t
    })
    expect(c).toEqual({
      ok: true,
      topic: 'payments',
      rooms: [
        { room: 'room1', brokers: ['broker-a'], writeQueues: 4 },
        { room: 'room2', brokers: ['broker-b'], writeQueues: 4 }
      ],
      notes: []
    })
    expect(formatTopicCheck(c)).toEqual(['topic "payments": room1 4 queue(s), room2 4 queue(s)'])
  })

  it('names a missing topic, the rooms and the two fixes', async () => {
    const { d, p } = await discovered()
    const t = buildTopology(d, p, { createTopic: false })
    const c = checkTopic({ topic: 'payments-r1', queues: null, topology: t })
    expect(c).toMatchObject({
      ok: false,
      missing: true,
      roomsWithoutQueues: ['room1', 'room2'],
      message:
        'topic "payments-r1" does not exist on this cluster (name servers 10.1.0.2:9876;10.2.0.2:9876)',
      fixes: [
        "create it yourself: mqadmin updateTopic -n '10.1.0.2:9876;10.2.0.2:9876' -c DefaultCluster -t payments-r1 -r 4 -w 4",
        'or let DR Studio create it on this cluster: pass --create-topic'
      ]
    })
  })

  it('names the rooms without writable queues and the brokers to create them on', async () => {
    const { d, p } = await discovered()
    const t = buildTopology(d, p, { createTopic: false })
    const c = checkTopic({
      topic: 'orders-r1',
      queues: [queue('broker-a', 8), queue('broker-b', 8, 4)],
      topology: t,
      createHint: APP_CREATE_HINT
    })
    expect(c).toMatchObject({
      ok: false,
      missing: false,
      roomsWithoutQueues: ['room2'],
      message:
        'topic "orders-r1" has no writable queues in room2 (brokers broker-b), so producers there would cross rooms from the start',
      fixes: [
        "create its queues yourself: mqadmin updateTopic -n '10.1.0.2:9876;10.2.0.2:9876' -b 10.2.0.2:10911 -t orders-r1 -r 8 -w 8",
        'or let DR Studio create it on this cluster: tick “Let DR Studio create the topic” in Connect to cluster…'
      ]
    })
    expect(formatTopicCheck(c)[1]).toMatch(/^ {2}fix 1: create its queues yourself/)
  })

  it('notes a broker serving the topic that the topology does not know', async () => {
    const { d, p } = await discovered()
    const t = buildTopology(d, p, { createTopic: false })
    const c = checkTopic({
      topic: 'payments',
      queues: [queue('broker-a'), queue('broker-b'), queue('broker-z')],
      topology: t
    })
    expect(c.ok).toBe(true)
    expect(c.notes).toEqual([
      'broker set broker-z serves payments but is not in the topology; discover again to include it'
    ])
  })
})

describe('connectToCluster', () => {
  it('discovers, places and builds; checks the named topic without blocking', async () => {
    const map = { text: '10.1.0.2:9876: room1\n10.2.0.2:9876: room2', source: 'map' }
    const steps: string[] = []
    const r = await connectToCluster(
      {
        namesrv: NS,
        roomMap: map,
        mode: 'zone',
        topic: 'payments-r1',
        clients: true,
        createTopic: false
      },
      fakeDiscoveryPort(servers),
      (p) => steps.push(p.step)
    )
    expect(r.ok).toBe(true)
    expect(r.problems).toEqual([])
    expect(r.topology?.rooms.map((x) => x.id)).toEqual(['room1', 'room2'])
    expect(r.topic).toMatchObject({ ok: false, missing: true })
    expect(r.warnings.at(-1)).toMatch(/proxies do not register with name servers/)
    expect(steps).toContain('done')
  })

  it('returns every unplaced node as a problem and no topology', async () => {
    const bare = clusterInfo([{ brokerName: 'b1', addrs: { 0: '10.1.0.2:10911' } }])
    const r = await connectToCluster(
      { namesrv: ['10.1.0.9:9876'], clients: false, createTopic: false, words: APP_WORDS },
      fakeDiscoveryPort({ '10.1.0.9:9876': { info: bare } })
    )
    expect(r.ok).toBe(false)
    expect(r.topology).toBeNull()
    expect(r.problems.map((x) => [x.code, x.subject])).toEqual([
      ['broker-unplaced', 'b1 brokerId 0 (10.1.0.2:10911)'],
      ['namesrv-unplaced', 'name server 10.1.0.9:9876']
    ])
    expect(r.problems[0]?.fix).toContain('the Room map')
  })

  it('refuses an empty cluster', async () => {
    const r = await connectToCluster(
      { namesrv: ['h:1'], clients: false, createTopic: false },
      fakeDiscoveryPort({ 'h:1': {} })
    )
    expect(r.problems.map((p) => p.code)).toEqual(['no-brokers'])
  })

  it('fails on a bad map before touching the network', async () => {
    const port = fakeDiscoveryPort(servers)
    await expect(
      connectToCluster(
        {
          namesrv: NS,
          roomMap: { text: 'x: 1bad', source: 'rooms.yaml' },
          clients: false,
          createTopic: false
        },
        port
      )
    ).rejects.toThrow(/rooms\.yaml: "x": room "1bad"/)
    expect(port.calls).toEqual([])
  })
})
