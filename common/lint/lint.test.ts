import { describe, expect, it } from 'vitest'
import threeRoomsControllerJson from '../../resources/topologies/three-rooms-controller.json'
import threeRoomsJson from '../../resources/topologies/three-rooms.json'
import twoRoomsProxiesJson from '../../resources/topologies/two-rooms-proxies.json'
import twoRoomsJson from '../../resources/topologies/two-rooms.json'
import type { Topology } from '../topology/schema'
import { topologySchema } from '../topology/schema'
import { countFindings, formatFinding, hasLintErrors, lintTopology } from './lint'
import type { LintRuleId } from './rules'
import { LINT_RULES, lintRule } from './rules'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = any

/** two-rooms.json with an edit applied, parsed like a loaded file. */
function twoRooms(edit: (doc: Doc) => void = () => {}): Topology {
  const doc = structuredClone(twoRoomsJson) as Doc
  edit(doc)
  return topologySchema.parse(doc)
}

/** two-rooms-proxies.json (a zone-pinned proxy per room, a plain one in room1), clients on gRPC. */
function grpcRooms(edit: (doc: Doc) => void = () => {}): Topology {
  const doc = structuredClone(twoRoomsProxiesJson) as Doc
  for (const room of doc.rooms)
    for (const c of [...room.producers, ...room.consumers]) c.lane = 'grpc'
  edit(doc)
  return topologySchema.parse(doc)
}

function threeRooms(edit: (doc: Doc) => void = () => {}): Topology {
  const doc = structuredClone(threeRoomsJson) as Doc
  edit(doc)
  return topologySchema.parse(doc)
}

/** three-rooms-controller.json: a controller per room (embedded), two groups of three replicas. */
function controllerRooms(edit: (doc: Doc) => void = () => {}): Topology {
  const doc = structuredClone(threeRoomsControllerJson) as Doc
  edit(doc)
  return topologySchema.parse(doc)
}

function fired(t: Topology, rule: LintRuleId) {
  return lintTopology(t).filter((f) => f.ruleId === rule)
}

/** One broker on an explicit host. */
function placeBroker(doc: Doc, room: number, host: string, port: number, extra: object = {}) {
  Object.assign(doc.rooms[room].brokers[0], { host, port, ...extra })
}

/** Per rule: a topology that triggers it and one that does not. */
const CASES: Record<
  LintRuleId,
  { bad: () => Topology; good: () => Topology; nodes?: string[]; path?: string }
> = {
  'single-room-topology': {
    bad: () => twoRooms((d) => d.rooms.pop()),
    good: () => twoRooms(),
    path: '$.rooms'
  },
  'room-without-nameserver': {
    bad: () => twoRooms((d) => (d.rooms[1].nameServers = [])),
    good: () => twoRooms(),
    nodes: ['room2'],
    path: '$.rooms[1].nameServers'
  },
  'nameservers-single-room': {
    bad: () =>
      twoRooms((d) => {
        d.rooms[0].nameServers.push(...d.rooms[1].nameServers)
        d.rooms[1].nameServers = []
      }),
    good: () => twoRooms(),
    nodes: ['ns-1', 'ns-2'],
    path: '$.rooms[0].nameServers'
  },
  'single-nameserver-per-room': {
    bad: () => twoRooms(),
    good: () => threeRooms(),
    nodes: ['ns-1']
  },
  'room-without-management': {
    bad: () => twoRooms((d) => (d.rooms[0].managementNodes = [])),
    good: () => twoRooms(),
    nodes: ['room1'],
    path: '$.rooms[0].managementNodes'
  },
  'room-without-broker': {
    bad: () =>
      twoRooms((d) =>
        d.rooms.push({
          id: 'witness',
          nameServers: [{ id: 'ns-w' }],
          managementNodes: [{ id: 'mgmt-w' }]
        })
      ),
    good: () => twoRooms(),
    nodes: ['witness'],
    path: '$.rooms[2].brokers'
  },
  'producer-room-without-broker': {
    bad: () => twoRooms((d) => (d.rooms[1].brokers = [])),
    good: () => twoRooms(),
    nodes: ['producer-2']
  },
  'consumer-room-without-broker': {
    bad: () => twoRooms((d) => (d.rooms[1].brokers = [])),
    good: () => twoRooms(),
    nodes: ['consumer-2']
  },
  'topic-single-room': {
    bad: () =>
      twoRooms((d) => {
        d.rooms[0].brokers.push(d.rooms[1].brokers[0])
        d.rooms[1].brokers = []
      }),
    good: () => twoRooms(),
    nodes: ['broker-1', 'broker-2'],
    path: '$.topics[0]'
  },
  'consumer-group-single-room': {
    bad: () => twoRooms((d) => (d.rooms[1].consumers[0].group = 'other-group')),
    good: () => twoRooms(),
    nodes: ['consumer-1']
  },
  'consumer-group-mixed-topics': {
    bad: () => twoRooms((d) => (d.rooms[1].consumers[0].topic = 'payments')),
    good: () => twoRooms(),
    nodes: ['consumer-1', 'consumer-2'],
    path: '$.rooms[1].consumers[0].topic'
  },
  'zone-mode-no-fallback': {
    bad: () => twoRooms((d) => (d.settings.zoneMode = true)),
    good: () =>
      twoRooms((d) => {
        d.settings.zoneMode = true
        d.rooms[0].producers[0].fallbackRooms = ['room2']
        d.rooms[0].consumers[0].fallbackRooms = ['room2']
        d.rooms[1].producers[0].fallbackRooms = ['room1']
        d.rooms[1].consumers[0].fallbackRooms = ['room1']
      }),
    nodes: ['producer-1', 'consumer-1', 'producer-2', 'consumer-2'],
    path: '$.settings.zoneMode'
  },
  'java-clients-without-extension': {
    bad: () =>
      twoRooms((d) => {
        d.rooms[0].producers[0].lane = 'java'
        d.rooms[1].consumers[0].lane = 'java-zone'
      }),
    good: () =>
      twoRooms((d) => {
        d.rooms[0].producers[0].lane = 'java-dr'
        d.rooms[1].consumers[0].lane = 'java-dr'
      }),
    nodes: ['producer-1', 'consumer-2'],
    path: '$.rooms[0].producers[0].lane'
  },
  'fallback-room-without-broker': {
    bad: () => twoRooms((d) => (d.rooms[0].producers[0].fallbackRooms = ['room1'])),
    good: () => twoRooms((d) => (d.rooms[0].producers[0].fallbackRooms = ['room2'])),
    nodes: ['producer-1'],
    path: '$.rooms[0].producers[0].fallbackRooms[0]'
  },
  'master-slave-same-room': {
    bad: () => threeRooms(),
    good: () =>
      threeRooms((d) => {
        // move every slave one room further
        const slaves = d.rooms.map((r: Doc) => r.brokers.pop())
        slaves.forEach((s: Doc, i: number) => d.rooms[(i + 1) % 3].brokers.push(s))
      }),
    nodes: ['broker-1m', 'broker-1s']
  },
  'broker-group-no-remote-replica': {
    bad: () => twoRooms(),
    good: () =>
      twoRooms((d) => {
        d.rooms[1].brokers.push({
          id: 'broker-1r',
          cluster: 'DrCluster',
          brokerName: 'broker-a',
          role: 'slave',
          brokerId: 1
        })
        d.rooms[0].brokers.push({
          id: 'broker-2r',
          cluster: 'DrCluster',
          brokerName: 'broker-b',
          role: 'slave',
          brokerId: 1
        })
      }),
    nodes: ['broker-1'],
    path: '$.rooms[0].brokers[0]'
  },
  'broker-group-spans-rooms': {
    bad: () =>
      twoRooms((d) =>
        d.rooms[1].brokers.push({
          id: 'broker-1r',
          cluster: 'DrCluster',
          brokerName: 'broker-a',
          role: 'slave',
          brokerId: 1
        })
      ),
    good: () => twoRooms(),
    nodes: ['broker-1', 'broker-1r']
  },
  'duplicate-broker-names-across-rooms': {
    bad: () =>
      twoRooms((d) => {
        d.rooms[1].brokers[0].brokerName = 'broker-a'
        d.rooms[1].brokers[0].cluster = 'OtherCluster'
      }),
    good: () => twoRooms(),
    nodes: ['broker-1', 'broker-2'],
    path: '$.rooms[1].brokers[0].brokerName'
  },
  'master-slave-same-host': {
    bad: () =>
      threeRooms((d) => {
        Object.assign(d.rooms[0].brokers[0], { host: '10.1.0.5', port: 10911 })
        Object.assign(d.rooms[0].brokers[1], { host: '10.1.0.5', port: 10921 })
      }),
    good: () =>
      threeRooms((d) => {
        Object.assign(d.rooms[0].brokers[0], { host: '10.1.0.5', port: 10911 })
        Object.assign(d.rooms[0].brokers[1], { host: '10.1.0.6', port: 10911 })
      }),
    nodes: ['broker-1m', 'broker-1s'],
    path: '$.rooms[0].brokers[1].host'
  },
  'port-collision-on-host': {
    // broker-2 at 10913 binds its fast channel on 10911, broker-1's listen port
    bad: () =>
      twoRooms((d) => {
        placeBroker(d, 0, '10.1.0.5', 10911)
        placeBroker(d, 1, '10.1.0.5', 10913)
      }),
    good: () =>
      twoRooms((d) => {
        placeBroker(d, 0, '10.1.0.5', 10911)
        placeBroker(d, 1, '10.1.0.5', 10921)
      }),
    nodes: ['broker-1', 'broker-2'],
    path: '$.rooms[1].brokers[0].port'
  },
  'store-path-collision-on-host': {
    bad: () =>
      twoRooms((d) => {
        placeBroker(d, 0, '10.1.0.5', 10911, { storePath: '/data/rmq' })
        placeBroker(d, 1, '10.1.0.5', 10921, { storePath: '/data/rmq/' })
      }),
    good: () =>
      twoRooms((d) => {
        placeBroker(d, 0, '10.1.0.5', 10911, { storePath: '/data/rmq' })
        placeBroker(d, 1, '10.1.0.6', 10911, { storePath: '/data/rmq' })
      }),
    nodes: ['broker-1', 'broker-2'],
    path: '$.rooms[1].brokers[0].storePath'
  },
  'loopback-host': {
    bad: () =>
      twoRooms((d) => Object.assign(d.rooms[0].nameServers[0], { host: 'localhost', port: 9876 })),
    good: () =>
      twoRooms((d) =>
        Object.assign(d.rooms[0].nameServers[0], { host: 'ns1.room1.example', port: 9876 })
      ),
    nodes: ['ns-1'],
    path: '$.rooms[0].nameServers[0].host'
  },
  'probe-interval-exceeds-route-refresh': {
    bad: () => twoRooms((d) => (d.settings.probeIntervalMs = 5000)),
    good: () => twoRooms(),
    path: '$.settings.probeIntervalMs'
  },
  'probe-timeout-exceeds-interval': {
    bad: () => twoRooms((d) => (d.settings.probeTimeoutMs = 1000)),
    good: () => twoRooms(),
    path: '$.settings.probeTimeoutMs'
  },
  'queues-fewer-than-consumers': {
    bad: () =>
      twoRooms((d) => {
        d.topics[0].queues = 1
        d.rooms[0].consumers.push({ id: 'consumer-1b', topic: 'orders', group: 'orders-consumer' })
      }),
    good: () => twoRooms(),
    nodes: ['consumer-1', 'consumer-1b']
  },
  'grpc-clients-without-proxy': {
    // room2's only zone-pinned proxy removed: its gRPC clients hang on room1's proxy alone.
    bad: () => grpcRooms((d) => (d.rooms[1].proxies = [])),
    good: () => grpcRooms(),
    nodes: ['producer-2', 'consumer-2'],
    path: '$.rooms[1].proxies'
  },
  'grpc-clients-remote-proxy': {
    // Three rooms, proxies in room1 and room3 only: room2's gRPC clients survive one loss, cross-room.
    bad: () =>
      threeRooms((d) => {
        d.rooms[0].proxies = [{ id: 'proxy-1' }]
        d.rooms[2].proxies = [{ id: 'proxy-3' }]
        d.rooms[1].producers[0].lane = 'grpc'
      }),
    good: () =>
      threeRooms((d) => {
        d.rooms.forEach((r: Doc, i: number) => (r.proxies = [{ id: `proxy-${i + 1}` }]))
        d.rooms[1].producers[0].lane = 'grpc'
      }),
    nodes: ['producer-2'],
    path: '$.rooms[1].proxies'
  },
  'topic-split-across-clusters': {
    bad: () => twoRooms((d) => (d.rooms[1].brokers[0].cluster = 'Room2Cluster')),
    good: () => twoRooms(),
    nodes: ['broker-1', 'broker-2'],
    path: '$.topics[0]'
  },
  'host-in-several-rooms': {
    bad: () =>
      twoRooms((d) => {
        Object.assign(d.rooms[0].nameServers[0], { host: 'rack7-a.example', port: 9876 })
        Object.assign(d.rooms[1].brokers[0], { host: 'RACK7-A.example.', port: 10911 })
      }),
    good: () =>
      twoRooms((d) => {
        Object.assign(d.rooms[0].nameServers[0], { host: 'rack7-a.example', port: 9876 })
        Object.assign(d.rooms[1].brokers[0], { host: 'rack9-a.example', port: 10911 })
      }),
    nodes: ['ns-1', 'broker-2'],
    path: '$.rooms[1].brokers[0].host'
  },
  'failover-timers-too-slow': {
    // RocketMQ's own client default (pollNameServerInterval) is 30 s.
    bad: () => twoRooms((d) => (d.settings.routeRefreshMs = 30000)),
    good: () => twoRooms((d) => (d.settings.routeRefreshMs = 10000)),
    path: '$.settings.routeRefreshMs'
  },
  'controller-quorum-majority-one-room': {
    bad: () =>
      controllerRooms((d) => {
        d.rooms[0].nameServers.push({ id: 'ns-1b', controller: {} })
        delete d.rooms[1].nameServers[0].controller
      }),
    good: () => controllerRooms(),
    nodes: ['ns-1', 'ns-1b'],
    path: '$.rooms[0].nameServers[0]'
  },
  'controller-quorum-too-small': {
    bad: () =>
      controllerRooms((d) => {
        delete d.rooms[1].nameServers[0].controller
        delete d.rooms[2].nameServers[0].controller
      }),
    good: () => controllerRooms(),
    nodes: ['ns-1']
  },
  'in-sync-replicas-after-room-loss': {
    bad: () => controllerRooms((d) => (d.controllerMode.minInSyncReplicas = 3)),
    good: () => controllerRooms((d) => (d.controllerMode.minInSyncReplicas = 2)),
    nodes: ['broker-a-1', 'broker-a-2', 'broker-a-3'],
    path: '$.controllerMode.minInSyncReplicas'
  },
  'unclean-election-enabled': {
    bad: () => controllerRooms((d) => (d.controllerMode.enableElectUncleanMaster = true)),
    good: () => controllerRooms(),
    nodes: ['ns-1', 'ns-2', 'ns-3'],
    path: '$.controllerMode.enableElectUncleanMaster'
  },
  'replication-asynchronous': {
    bad: () => controllerRooms((d) => (d.controllerMode.allAckInSyncStateSet = false)),
    good: () =>
      controllerRooms((d) => {
        d.controllerMode.allAckInSyncStateSet = false
        d.controllerMode.inSyncReplicas = 2
      }),
    path: '$.controllerMode.allAckInSyncStateSet'
  },
  'producer-topic-without-consumer': {
    bad: () =>
      twoRooms((d) =>
        d.rooms[0].producers.push({ id: 'producer-1b', topic: 'audit', group: 'audit-producer' })
      ),
    good: () => twoRooms(),
    nodes: ['producer-1b']
  }
}

describe('lintTopology', () => {
  it('has a case for every rule, and rule ids are unique kebab-case', () => {
    const ids = LINT_RULES.map((r) => r.id)
    expect(new Set(ids).size).toBe(ids.length)
    for (const id of ids) expect(id).toMatch(/^[a-z]+(-[a-z]+)*$/)
    expect(Object.keys(CASES).sort()).toEqual([...ids].sort())
  })

  for (const rule of LINT_RULES) {
    describe(rule.id, () => {
      const c = CASES[rule.id]
      it('fires on a topology with the mistake', () => {
        const found = fired(c.bad(), rule.id)
        expect(found.length).toBeGreaterThan(0)
        const f = found[0]!
        expect(f.severity).toBe(rule.severity)
        expect(f.message.length).toBeGreaterThan(10)
        expect(f.hint.length).toBeGreaterThan(5)
        expect(f.path).toMatch(/^\$/)
        if (c.nodes) expect(f.nodeIds).toEqual(expect.arrayContaining(c.nodes))
        if (c.path) expect(f.path).toBe(c.path)
      })
      it('stays quiet when the mistake is fixed', () => {
        expect(fired(c.good(), rule.id)).toEqual([])
      })
    })
  }

  it('reports the shipped topologies without errors', () => {
    for (const t of [twoRooms(), threeRooms()]) {
      const findings = lintTopology(t)
      expect(hasLintErrors(findings), findings.map(formatFinding).join('\n')).toBe(false)
    }
    expect(lintTopology(twoRooms()).map((f) => f.ruleId)).toEqual([
      'single-nameserver-per-room',
      'single-nameserver-per-room',
      'broker-group-no-remote-replica',
      'broker-group-no-remote-replica'
    ])
  })

  it('orders findings by rule table, then document order', () => {
    const t = twoRooms((d) => {
      d.rooms[1].nameServers = []
      d.rooms[0].nameServers = []
      d.settings.probeIntervalMs = 5000
    })
    const ids = lintTopology(t).map((f) => f.ruleId)
    const order = LINT_RULES.map((r) => r.id as string)
    expect([...ids].sort((a, b) => order.indexOf(a) - order.indexOf(b))).toEqual(ids)
    expect(
      lintTopology(t)
        .filter((f) => f.ruleId === 'room-without-nameserver')
        .map((f) => f.nodeIds[0])
    ).toEqual(['room1', 'room2'])
  })

  it('formats one CLI line per finding and counts severities', () => {
    const t = twoRooms((d) => (d.rooms[1].nameServers = []))
    const f = lintTopology(t).find((x) => x.ruleId === 'room-without-nameserver')!
    expect(formatFinding(f)).toBe(
      'error room-without-nameserver room2: room "room2" has no name server (fix: add a name server to room "room2" (two for host redundancy))'
    )
    expect(countFindings(lintTopology(t)).error).toBeGreaterThan(0)
    expect(lintRule('room-without-nameserver')?.severity).toBe('error')
    expect(lintRule('nope')).toBeUndefined()
  })
})

describe('controller mode', () => {
  it('reports the shipped controller topology without errors or false broker-room findings', () => {
    expect(lintTopology(controllerRooms()).map((f) => f.ruleId)).toEqual([
      'single-nameserver-per-room',
      'single-nameserver-per-room',
      'single-nameserver-per-room'
    ])
  })

  it('treats replicas as able to serve their room, and one room of replicas as no remote copy', () => {
    const oneRoom = controllerRooms((d) => {
      d.rooms[0].brokers.push(...d.rooms[1].brokers, ...d.rooms[2].brokers)
      d.rooms[1].brokers = []
      d.rooms[2].brokers = []
    })
    const found = fired(oneRoom, 'broker-group-no-remote-replica')
    expect(found).toHaveLength(2)
    expect(found[0]!.hint).toContain('role "replica"')
    expect(fired(oneRoom, 'topic-single-room')).toHaveLength(1)
    expect(fired(controllerRooms(), 'producer-room-without-broker')).toEqual([])
  })

  it('counts what a room loss leaves against inSyncReplicas when acknowledgement is not all-ack', () => {
    const t = (n: number, auto = false) =>
      controllerRooms((d) => {
        d.controllerMode.allAckInSyncStateSet = false
        d.controllerMode.inSyncReplicas = n
        d.controllerMode.enableAutoInSyncReplicas = auto
      })
    expect(fired(t(2), 'in-sync-replicas-after-room-loss')).toEqual([])
    const [f] = fired(t(3), 'in-sync-replicas-after-room-loss')
    expect(f!.message).toContain(
      'keeps 2 replica(s) when room "room1" is lost, but its master needs 3'
    )
    expect(f!.path).toBe('$.controllerMode.inSyncReplicas')
    expect(fired(t(3, true), 'in-sync-replicas-after-room-loss')).toEqual([])
  })

  it('counts standalone controllers in the quorum', () => {
    const t = controllerRooms((d) => {
      for (const r of d.rooms) delete r.nameServers[0].controller
      d.rooms[0].controllers = [{ id: 'ctl-1' }, { id: 'ctl-1b' }]
      d.rooms[1].controllers = [{ id: 'ctl-2' }]
    })
    expect(fired(t, 'controller-quorum-majority-one-room')[0]!.nodeIds).toEqual(['ctl-1', 'ctl-1b'])
  })
})

describe('multi-room rules: what a room loss costs decides the severity', () => {
  const ruleIds = (t: Topology) => lintTopology(t).map((f) => f.ruleId)

  describe('gRPC lane without a proxy in the room', () => {
    it('is an error when no zone-pinned proxy exists at all (a plain one does not count)', () => {
      const t = grpcRooms((d) => {
        d.rooms[0].proxies = [{ id: 'proxy-plain', zoneMode: false }]
        d.rooms[1].proxies = []
      })
      const found = fired(t, 'grpc-clients-without-proxy')
      expect(found.map((f) => f.path)).toEqual(['$.rooms[0].proxies', '$.rooms[1].proxies'])
      expect(found[0]!.message).toMatch(/cannot connect at all/)
      expect(found[0]!.severity).toBe('error')
    })

    it('names the room whose loss cuts the clients off', () => {
      const [f] = fired(
        grpcRooms((d) => (d.rooms[1].proxies = [])),
        'grpc-clients-without-proxy'
      )
      expect(f!.message).toContain('losing room "room1" stops them although room "room2" is up')
      expect(f!.hint).toBe('add a zone-pinned proxy ("zoneMode": true) to room "room2"')
    })

    it('is only a warning when proxies in two other rooms survive either loss', () => {
      const t = threeRooms((d) => {
        d.rooms[0].proxies = [{ id: 'proxy-1' }]
        d.rooms[2].proxies = [{ id: 'proxy-3' }]
        d.rooms[1].consumers[0].lane = 'grpc'
      })
      expect(fired(t, 'grpc-clients-without-proxy')).toEqual([])
      expect(fired(t, 'grpc-clients-remote-proxy')[0]!.message).toMatch(
        /every call crosses to rooms "room1", "room3"/
      )
    })

    it('stays quiet for remoting clients in a room without a proxy', () => {
      const t = twoRooms((d) => (d.rooms[0].proxies = [{ id: 'proxy-1' }]))
      expect(ruleIds(t)).not.toContain('grpc-clients-without-proxy')
      expect(ruleIds(t)).not.toContain('grpc-clients-remote-proxy')
    })
  })

  describe('one topic in several clusters', () => {
    it('stays quiet when each cluster spans every room with masters', () => {
      const t = twoRooms((d) => {
        d.rooms[0].brokers.push({
          id: 'broker-1c',
          cluster: 'C2',
          brokerName: 'c2-a',
          role: 'master',
          brokerId: 0
        })
        d.rooms[1].brokers.push({
          id: 'broker-2c',
          cluster: 'C2',
          brokerName: 'c2-b',
          role: 'master',
          brokerId: 0
        })
      })
      expect(fired(t, 'topic-split-across-clusters')).toEqual([])
    })

    it('fires when one cluster lives in one room only, once per topic', () => {
      const t = twoRooms((d) => {
        d.rooms[0].brokers.push({
          id: 'broker-1c',
          cluster: 'C2',
          brokerName: 'c2-a',
          role: 'master',
          brokerId: 0
        })
        d.topics.push({ name: 'payments', queues: 4 })
      })
      const found = fired(t, 'topic-split-across-clusters')
      expect(found.map((f) => f.path)).toEqual(['$.topics[0]', '$.topics[1]'])
      expect(found[0]!.message).toContain(
        'cluster "DrCluster" in "room1", "room2"; cluster "C2" in "room1"'
      )
      expect(found[0]!.hint).toContain('updateTopic -c <cluster>')
    })

    it('leaves a topology with masters in one room to topic-single-room', () => {
      const t = twoRooms((d) => {
        d.rooms[0].brokers.push({ ...d.rooms[1].brokers[0], cluster: 'Other' })
        d.rooms[1].brokers = []
      })
      expect(fired(t, 'topic-split-across-clusters')).toEqual([])
      expect(ruleIds(t)).toContain('topic-single-room')
    })
  })

  describe('one host in several rooms', () => {
    it('names every room and node on the host', () => {
      const [f] = fired(CASES['host-in-several-rooms'].bad(), 'host-in-several-rooms')
      expect(f!.message).toBe(
        'host rack7-a.example holds nodes of rooms "room1" (ns-1), "room2" (broker-2); one machine failure takes part of every one of these rooms'
      )
      expect(f!.severity).toBe('error')
    })

    it('leaves loopback to loopback-host, and several nodes of one room on one host alone', () => {
      const loop = twoRooms((d) => {
        Object.assign(d.rooms[0].nameServers[0], { host: 'localhost', port: 9876 })
        Object.assign(d.rooms[1].nameServers[0], { host: '127.0.0.1', port: 9877 })
      })
      expect(fired(loop, 'host-in-several-rooms')).toEqual([])
      expect(fired(loop, 'loopback-host')).toHaveLength(2)
      const oneRoom = twoRooms((d) => {
        Object.assign(d.rooms[0].nameServers[0], { host: '10.1.0.5', port: 9876 })
        Object.assign(d.rooms[0].brokers[0], { host: '10.1.0.5', port: 10911 })
      })
      expect(fired(oneRoom, 'host-in-several-rooms')).toEqual([])
    })
  })

  describe('failover timers', () => {
    it('flags a probe that notices a dead name server only after more than 10 s', () => {
      const slow = twoRooms((d) => (d.settings.probeIntervalMs = 9501))
      const [f] = fired(slow, 'failover-timers-too-slow')
      expect(f).toMatchObject({ path: '$.settings.probeIntervalMs', severity: 'warning' })
      expect(f!.message).toContain('up to 10001 ms')
      expect(
        fired(
          twoRooms((d) => (d.settings.probeIntervalMs = 9500)),
          'failover-timers-too-slow'
        )
      ).toEqual([])
    })

    it('stays quiet where the topology does not rely on the timer', () => {
      const staticNs = twoRooms((d) => {
        d.settings.namesrvDiscovery = 'static'
        d.settings.probeIntervalMs = 60000
        d.settings.probeTimeoutMs = 1000
        d.settings.routeRefreshMs = 60000
      })
      expect(fired(staticNs, 'failover-timers-too-slow').map((f) => f.path)).toEqual([
        '$.settings.routeRefreshMs'
      ])
      const grpcOnly = grpcRooms((d) => (d.settings.routeRefreshMs = 60000))
      expect(fired(grpcOnly, 'failover-timers-too-slow')).toEqual([])
      const oneMasterRoom = twoRooms((d) => {
        d.rooms[1].brokers = []
        d.settings.routeRefreshMs = 60000
      })
      expect(fired(oneMasterRoom, 'failover-timers-too-slow')).toEqual([])
    })
  })
})

describe('room-without-management on an operator’s cluster', () => {
  /** A discovered room: every name server and broker has its host and port. */
  const attachedRoom = (d: Doc, r: number) => {
    const room = d.rooms[r]
    room.managementNodes = []
    room.nameServers.forEach((n: Record<string, unknown>, i: number) =>
      Object.assign(n, { host: `10.0.${r}.${i + 1}`, port: 9876 })
    )
    room.brokers.forEach((b: Record<string, unknown>, i: number) =>
      Object.assign(b, { host: `10.0.${r}.${i + 10}`, port: 10911 })
    )
  }

  it('is a warning that says what the clients do instead, not an error that blocks the run', () => {
    const f = fired(
      twoRooms((d) => attachedRoom(d, 0)),
      'room-without-management'
    )
    expect(f).toEqual([
      expect.objectContaining({
        severity: 'warning',
        nodeIds: ['room1'],
        message: expect.stringContaining("clients use the topology's name servers as a fixed list")
      })
    ])
  })

  it('stays an error in a room DR Studio runs itself', () => {
    const f = fired(
      twoRooms((d) => (d.rooms[0].managementNodes = [])),
      'room-without-management'
    )
    expect(f.map((x) => x.severity)).toEqual(['error'])
  })
})
