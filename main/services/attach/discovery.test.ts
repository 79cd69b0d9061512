import { describe, expect, it } from 'vitest'
import { AttachInputError } from './addresses'
import { mergeClusterInfos } from './cluster-merge'
import type { DiscoveryProgress } from './discovery'
import { DiscoveryError, discoverCluster, PROXY_NOTE } from './discovery'
import { clusterInfo, fakeDiscoveryPort, queue } from './testing-fakes'

const A = {
  brokerName: 'broker-a',
  zone: 'room1',
  addrs: { 0: '10.1.0.2:10911', 1: '10.2.0.2:10911' }
}
const B = { brokerName: 'broker-b', zone: 'room2', addrs: { 0: '10.2.0.3:10911' } }

describe('mergeClusterInfos', () => {
  it('unions what every name server knows, nodes sorted by brokerId', () => {
    const m = mergeClusterInfos([
      { address: 'ns1', info: clusterInfo([A, B]) },
      { address: 'ns2', info: clusterInfo([A, B]) }
    ])
    expect(m.issues).toEqual([])
    expect(m.clusters).toEqual([{ name: 'DefaultCluster', brokerNames: ['broker-a', 'broker-b'] }])
    expect(m.brokerSets[0]).toEqual({
      cluster: 'DefaultCluster',
      brokerName: 'broker-a',
      zone: 'room1',
      zoneConflict: false,
      enableActingMaster: false,
      nodes: [
        { brokerId: 0, address: '10.1.0.2:10911', seenBy: ['ns1', 'ns2'] },
        { brokerId: 1, address: '10.2.0.2:10911', seenBy: ['ns1', 'ns2'] }
      ]
    })
  })

  it('warns about a broker that only some name servers know, with the namesrvAddr fix', () => {
    const m = mergeClusterInfos([
      { address: 'ns1:9876', info: clusterInfo([A, B]) },
      { address: 'ns2:9876', info: clusterInfo([A]) }
    ])
    expect(m.brokerSets.map((s) => s.brokerName)).toEqual(['broker-a', 'broker-b'])
    expect(m.issues).toEqual([
      expect.objectContaining({
        level: 'warning',
        code: 'partial-registration',
        message: 'broker-b brokerId 0 (10.2.0.3:10911) is not registered with ns2:9876',
        fix: expect.stringContaining('namesrvAddr=ns1:9876;ns2:9876')
      })
    ])
  })

  it('reports zone disagreements and leaves the zone out', () => {
    const m = mergeClusterInfos([
      { address: 'ns1', info: clusterInfo([A]) },
      { address: 'ns2', info: clusterInfo([{ ...A, zone: 'room2' }]) }
    ])
    expect(m.brokerSets[0]?.zone).toBeUndefined()
    expect(m.brokerSets[0]?.zoneConflict).toBe(true)
    expect(m.issues[0]).toMatchObject({
      level: 'error',
      code: 'zone-conflict',
      message: expect.stringContaining('room1 (ns1) vs room2 (ns2)')
    })
  })

  it('counts a zone on one name server and none on another as a disagreement', () => {
    const { zone: _z, ...noZone } = A
    const m = mergeClusterInfos([
      { address: 'ns1', info: clusterInfo([A]) },
      { address: 'ns2', info: clusterInfo([noZone]) }
    ])
    expect(m.issues.map((i) => i.code)).toEqual(['zone-conflict'])
  })

  it('reports two addresses for one brokerId, a reused address, and a set without master', () => {
    const m = mergeClusterInfos([
      {
        address: 'ns1',
        info: clusterInfo([
          { brokerName: 'broker-a', addrs: { 0: '10.0.0.1:10911' } },
          { brokerName: 'broker-c', addrs: { 1: '10.0.0.9:10911' }, actingMaster: true }
        ])
      },
      {
        address: 'ns2',
        info: clusterInfo([
          { brokerName: 'broker-a', addrs: { 0: '10.0.0.2:10911' } },
          { brokerName: 'broker-b', addrs: { 0: '10.0.0.1:10911' } },
          { brokerName: 'broker-c', addrs: { 1: '10.0.0.9:10911' }, actingMaster: true }
        ])
      }
    ])
    const codes = m.issues.filter((i) => i.level === 'error').map((i) => i.code)
    expect(codes).toEqual(['address-conflict', 'address-reused', 'no-master'])
    expect(m.issues.find((i) => i.code === 'no-master')?.message).toBe(
      'broker set broker-c has no master registered (only brokerId 1); a slave is acting master in routes'
    )
    expect(m.brokerSets.find((s) => s.brokerName === 'broker-c')?.enableActingMaster).toBe(true)
  })

  it('reports one brokerName in two clusters', () => {
    const m = mergeClusterInfos([
      { address: 'ns1', info: clusterInfo([{ ...B, cluster: 'C1' }]) },
      { address: 'ns2', info: clusterInfo([{ ...B, cluster: 'C2' }]) }
    ])
    expect(m.issues.map((i) => i.code)).toContain('cluster-conflict')
  })
})

describe('discoverCluster', () => {
  const healthy = {
    info: clusterInfo([A, B]),
    topics: ['TBW102', 'payments', '%RETRY%g', 'broker-a', 'DefaultCluster', 'orders'],
    routes: { payments: [queue('broker-a'), queue('broker-b')], orders: [queue('broker-a', 8)] }
  }

  it('merges name servers, skips system topics, routes application topics, reports progress', async () => {
    const port = fakeDiscoveryPort({ 'ns1:9876': healthy, 'ns2:9876': healthy })
    const progress: DiscoveryProgress[] = []
    const d = await discoverCluster(
      {
        namesrv: ['ns1:9876', 'ns2:9876'],
        onProgress: (p) => progress.push(p),
        now: () => new Date('2025-05-01T10:00:00Z')
      },
      port
    )
    expect(d.at).toBe('2025-05-01T10:00:00.000Z')
    expect(d.nameServers).toEqual([
      { address: 'ns1:9876', from: 'list', ok: true, brokers: 3 },
      { address: 'ns2:9876', from: 'list', ok: true, brokers: 3 }
    ])
    expect(d.topics.map((t) => [t.name, t.exists, t.queues.length])).toEqual([
      ['orders', true, 1],
      ['payments', true, 2]
    ])
    expect(d.systemTopicsSkipped).toBe(4)
    expect(d.proxies).toEqual({ discoverable: false, note: PROXY_NOTE })
    expect(d.issues).toEqual([])
    expect(progress.map((p) => p.step)).toEqual([
      'cluster-info',
      'cluster-info',
      'cluster-info',
      'topics',
      'routes',
      'done'
    ])
    expect(progress.at(-1)?.message).toBe('found 2 broker sets in 1 cluster(s) and 2 topics')
  })

  it('goes on without a name server that does not answer, and says which', async () => {
    const port = fakeDiscoveryPort({
      'ns1:9876': healthy,
      'ns2:9876': { down: 'cannot connect to ns2:9876: ECONNREFUSED' }
    })
    const d = await discoverCluster({ namesrv: ['ns1:9876', 'ns2:9876'] }, port)
    expect(d.nameServers[1]).toEqual({
      address: 'ns2:9876',
      from: 'list',
      ok: false,
      error: 'cannot connect to ns2:9876: ECONNREFUSED'
    })
    expect(d.issues).toEqual([
      expect.objectContaining({ level: 'warning', code: 'namesrv-unreachable' })
    ])
    expect(port.calls.filter((c) => c.includes('ns2')).length).toBe(1)
  })

  it('fails with every address and its error when no name server answers', async () => {
    const port = fakeDiscoveryPort({})
    const err = await discoverCluster({ namesrv: ['ns1:9876', 'ns2:9876'] }, port).catch(
      (e: unknown) => e
    )
    expect(err).toBeInstanceOf(DiscoveryError)
    expect((err as Error).message).toBe(
      'no name server answered: ns1:9876 (cannot connect to ns1:9876: ECONNREFUSED); ns2:9876 (cannot connect to ns2:9876: ECONNREFUSED). ' +
        'Check the addresses, that the name servers run, and that this machine can reach them (firewall, VPN)'
    )
  })

  it('refuses to run with no name servers at all', async () => {
    await expect(discoverCluster({ namesrv: [] }, fakeDiscoveryPort({}))).rejects.toThrow(
      AttachInputError
    )
  })

  it('adds the address server’s name servers after the listed ones', async () => {
    const url = 'http://as:8080/rocketmq/nsaddr'
    const port = fakeDiscoveryPort(
      { 'ns1:9876': healthy, 'ns2:9876': healthy },
      { [url]: 'ns2:9876;ns1:9876\n' }
    )
    const d = await discoverCluster({ namesrv: ['ns1:9876'], addressServer: 'as' }, port)
    expect(d.addressServer).toEqual({ url, listed: ['ns2:9876', 'ns1:9876'] })
    expect(d.nameServers.map((n) => [n.address, n.from])).toEqual([
      ['ns1:9876', 'list'],
      ['ns2:9876', 'address-server']
    ])
  })

  it('names the address server and the fix when it does not answer', async () => {
    const port = fakeDiscoveryPort({})
    await expect(discoverCluster({ namesrv: [], addressServer: 'as:9999' }, port)).rejects.toThrow(
      /address server http:\/\/as:9999\/rocketmq\/nsaddr did not answer: ECONNREFUSED \(check the URL/
    )
  })

  it('routes a requested topic even when listing is disabled, and marks a missing one', async () => {
    const port = fakeDiscoveryPort({
      'ns1:9876': { ...healthy, topicsError: 'request 206 to ns1:9876 failed with code 1: disable' }
    })
    const d = await discoverCluster({ namesrv: ['ns1:9876'], topics: ['payments', 'nope'] }, port)
    expect(d.topics).toEqual([
      {
        name: 'payments',
        exists: true,
        requested: true,
        queues: [queue('broker-a'), queue('broker-b')]
      },
      { name: 'nope', exists: false, requested: true, queues: [] }
    ])
    expect(d.issues.map((i) => i.code)).toEqual(['topics-unlisted'])
  })

  it('asks the next name server for a route the first does not have', async () => {
    const port = fakeDiscoveryPort({
      'ns1:9876': { info: healthy.info, topics: ['late'], routes: {} },
      'ns2:9876': { info: healthy.info, topics: [], routes: { late: [queue('broker-b')] } }
    })
    const d = await discoverCluster({ namesrv: ['ns1:9876', 'ns2:9876'] }, port)
    expect(d.topics).toEqual([
      { name: 'late', exists: true, requested: false, queues: [queue('broker-b')] }
    ])
  })
})
