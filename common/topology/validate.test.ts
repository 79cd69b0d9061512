import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { listNodes, occupiedPorts, topicsOf } from './model'
import type { Problem } from './validate'
import { formatProblem, parseTopologyText, serializeTopology, validateTopology } from './validate'

type Doc = ReturnType<typeof twoRooms>
const twoRooms = () => JSON.parse(readFileSync('resources/topologies/two-rooms.json', 'utf8'))

function problemsOf(edit: (doc: Doc) => void): Problem[] {
  const doc = twoRooms()
  edit(doc)
  const r = validateTopology(doc)
  return r.ok ? [] : r.problems
}

describe('validateTopology', () => {
  it('accepts the shipped topologies', () => {
    for (const f of ['two-rooms', 'three-rooms', 'two-rooms-proxies']) {
      const r = parseTopologyText(readFileSync(`resources/topologies/${f}.json`, 'utf8'))
      expect(r.ok, JSON.stringify(r)).toBe(true)
    }
  })

  it('defaults a proxy to zone mode; zoneMode false keeps a plain proxy', () => {
    const r = parseTopologyText(readFileSync('resources/topologies/two-rooms-proxies.json', 'utf8'))
    if (!r.ok) throw new Error('invalid')
    expect(r.topology.rooms.flatMap((room) => room.proxies.map((p) => [p.id, p.zoneMode]))).toEqual(
      [
        ['proxy-1', true],
        ['proxy-plain', false],
        ['proxy-2', true]
      ]
    )
    const doc = twoRooms()
    doc.rooms[0].proxies = [{ id: 'proxy-x' }]
    const d = validateTopology(doc)
    expect(d.ok && d.topology.rooms[0]!.proxies[0]!.zoneMode).toBe(true)
    expect(problemsOf((x) => (x.rooms[0].proxies = [{ id: 'p', zoneMode: 'yes' }]))).toEqual([
      expect.objectContaining({ path: '$.rooms[0].proxies[0].zoneMode' })
    ])
  })

  it('round-trips through serializeTopology unchanged', () => {
    const r = validateTopology(twoRooms())
    if (!r.ok) throw new Error('invalid')
    const again = validateTopology(JSON.parse(serializeTopology(r.topology)))
    expect(again).toEqual(r)
  })

  it('reports duplicate ids with both paths', () => {
    const p = problemsOf((d) => (d.rooms[1].brokers[0].id = 'broker-1'))
    expect(p).toEqual([
      expect.objectContaining({
        code: 'duplicate-id',
        path: '$.rooms[1].brokers[0].id',
        nodeId: 'broker-1'
      })
    ])
    expect(p[0]?.message).toContain('$.rooms[0].brokers[0].id')
  })

  it('treats room ids and node ids as one namespace', () => {
    const p = problemsOf((d) => (d.rooms[0].nameServers[0].id = 'room2'))
    expect(p.map((x) => [x.code, x.path])).toEqual([
      ['duplicate-id', '$.rooms[0].nameServers[0].id']
    ])
  })

  it('reports an unknown room in a fallback list', () => {
    const p = problemsOf((d) => (d.rooms[0].producers[0].fallbackRooms = ['room2', 'room9']))
    expect(p).toEqual([
      expect.objectContaining({
        code: 'unknown-room',
        path: '$.rooms[0].producers[0].fallbackRooms[1]'
      })
    ])
    expect(p[0]?.hint).toContain('room1, room2')
  })

  it('reports a slave without a master', () => {
    const p = problemsOf((d) =>
      d.rooms[1].brokers.push({
        id: 'broker-2s',
        cluster: 'DrCluster',
        brokerName: 'broker-z',
        role: 'slave',
        brokerId: 1
      })
    )
    expect(p).toEqual([
      expect.objectContaining({
        code: 'slave-without-master',
        path: '$.rooms[1].brokers[1].brokerName'
      })
    ])
    expect(
      problemsOf((d) =>
        d.rooms[1].brokers.push({
          id: 'broker-2s',
          cluster: 'DrCluster',
          brokerName: 'broker-a',
          role: 'slave',
          brokerId: 1
        })
      )
    ).toEqual([])
  })

  it('enforces RocketMQ broker id rules', () => {
    expect(problemsOf((d) => (d.rooms[0].brokers[0].brokerId = 2)).map((x) => x.code)).toEqual([
      'master-broker-id'
    ])
    expect(
      problemsOf((d) =>
        d.rooms[1].brokers.push({
          id: 's',
          cluster: 'DrCluster',
          brokerName: 'broker-a',
          role: 'slave',
          brokerId: 0
        })
      ).map((x) => x.code)
    ).toEqual(['slave-broker-id'])
    expect(
      problemsOf((d) =>
        d.rooms[1].brokers.push({
          id: 'm2',
          cluster: 'DrCluster',
          brokerName: 'broker-a',
          role: 'master',
          brokerId: 0
        })
      ).map((x) => x.code)
    ).toEqual(['duplicate-master'])
  })

  it("reports port collisions, including a broker's extra ports", () => {
    const direct = problemsOf((d) => {
      d.rooms[0].nameServers[0].port = 9876
      d.rooms[1].nameServers[0].port = 9876
    })
    expect(direct).toEqual([
      expect.objectContaining({ code: 'port-collision', path: '$.rooms[1].nameServers[0].port' })
    ])
    const haPort = problemsOf((d) => {
      d.rooms[0].brokers[0].port = 10911
      d.rooms[1].nameServers[0].port = 10912
    })
    expect(haPort.map((x) => x.code)).toEqual(['port-collision'])
    expect(haPort[0]?.message).toContain('127.0.0.1:10912')
    const otherHost = problemsOf((d) => {
      d.rooms[0].nameServers[0].port = 9876
      d.rooms[1].nameServers[0] = { id: 'ns-2', host: '10.0.0.2', port: 9876 }
    })
    expect(otherHost).toEqual([])
  })

  it('reports a host without a port', () => {
    expect(
      problemsOf((d) => (d.rooms[0].nameServers[0].host = '10.0.0.1')).map((x) => x.code)
    ).toEqual(['host-without-port'])
  })

  it('reports an empty topology', () => {
    expect(problemsOf((d) => (d.rooms = [])).map((x) => x.code)).toEqual(['empty-topology'])
    expect(problemsOf((d) => (d.rooms = [{ id: 'room1' }])).map((x) => x.code)).toEqual([
      'empty-topology'
    ])
  })

  it('reports a wrong version or kind with a fix', () => {
    const v = problemsOf((d) => (d.version = 2))
    expect(v).toEqual([expect.objectContaining({ code: 'wrong-version', path: '$.version' })])
    const k = problemsOf((d) => (d.kind = 'something/else'))
    expect(k).toEqual([expect.objectContaining({ code: 'wrong-kind', path: '$.kind' })])
  })

  it('reports schema errors at their JSON path', () => {
    const p = problemsOf((d) => (d.rooms[0].brokers[0].role = 'leader'))
    expect(p).toEqual([
      expect.objectContaining({ code: 'schema', path: '$.rooms[0].brokers[0].role' })
    ])
    expect(formatProblem(p[0]!)).toMatch(/^\$\.rooms\[0\]\.brokers\[0\]\.role: .* \(fix: .*\)$/)
  })

  it('reports JSON syntax errors instead of throwing', () => {
    const r = parseTopologyText('{ "kind": ')
    expect(r).toMatchObject({
      ok: false,
      problems: [{ code: 'json-unexpected-end', path: '$.kind', line: 1, column: 11 }]
    })
  })
})

describe('topology model', () => {
  it('flattens nodes with rooms and paths', () => {
    const r = validateTopology(twoRooms())
    if (!r.ok) throw new Error('invalid')
    const nodes = listNodes(r.topology)
    expect(nodes).toHaveLength(10)
    expect(nodes.find((n) => n.id === 'broker-2')).toMatchObject({
      kind: 'broker',
      room: 'room2',
      path: '$.rooms[1].brokers[0]'
    })
    expect(topicsOf(r.topology)).toEqual([{ name: 'orders', queues: 4 }])
    const broker = { ...nodes.find((n) => n.id === 'broker-1')! }
    if (broker.kind === 'broker')
      expect(occupiedPorts({ ...broker, spec: { ...broker.spec, port: 100 } })).toEqual([
        98, 100, 101
      ])
  })
})

describe('controller mode', () => {
  const controller = () =>
    JSON.parse(readFileSync('resources/topologies/three-rooms-controller.json', 'utf8'))
  function problemsIn(edit: (doc: Doc) => void): Problem[] {
    const doc = controller()
    edit(doc)
    const r = validateTopology(doc)
    return r.ok ? [] : r.problems
  }

  it('accepts the shipped controller topologies and round-trips them', () => {
    for (const f of ['three-rooms-controller', 'three-rooms-controller-async']) {
      const r = parseTopologyText(readFileSync(`resources/topologies/${f}.json`, 'utf8'))
      expect(r.ok, JSON.stringify(r)).toBe(true)
      if (r.ok) expect(validateTopology(JSON.parse(serializeTopology(r.topology)))).toEqual(r)
    }
  })

  it('does not add empty controller lists to topologies without them', () => {
    const r = validateTopology(twoRooms())
    if (!r.ok) throw new Error('invalid')
    expect(serializeTopology(r.topology)).not.toContain('controllers')
    expect(serializeTopology(r.topology)).not.toContain('controllerMode')
  })

  it('lists embedded and standalone controllers as nodes and ports', () => {
    const r = validateTopology(
      (() => {
        const d = controller()
        d.rooms[0].controllers = [{ id: 'ctl-1', host: '10.1.0.9', port: 9878 }]
        Object.assign(d.rooms[1].nameServers[0], {
          host: '10.2.0.9',
          port: 9876,
          controller: { port: 9878 }
        })
        return d
      })()
    )
    if (!r.ok) throw new Error(JSON.stringify(r.problems))
    const nodes = listNodes(r.topology)
    expect(nodes.filter((n) => n.kind === 'controller').map((n) => [n.id, n.path])).toEqual([
      ['ctl-1', '$.rooms[0].controllers[0]']
    ])
    expect(occupiedPorts(nodes.find((n) => n.id === 'ns-2')!)).toEqual([9876, 9878])
  })

  it('wants brokerId -1 on a replica', () => {
    expect(problemsIn((d) => (d.rooms[0].brokers[0].brokerId = 0))).toEqual([
      expect.objectContaining({ code: 'replica-broker-id', path: '$.rooms[0].brokers[0].brokerId' })
    ])
  })

  it('refuses a group that mixes replicas with a fixed master or slave', () => {
    const p = problemsIn((d) =>
      Object.assign(d.rooms[1].brokers[0], {
        role: 'master',
        brokerId: 0,
        electionPriority: undefined
      })
    )
    expect(p.map((x) => x.code)).toEqual(['mixed-group-roles'])
    expect(p[0]!.path).toBe('$.rooms[1].brokers[0].role')
  })

  it('refuses replicas without any controller, naming the fix', () => {
    const p = problemsIn((d) => {
      for (const room of d.rooms) delete room.nameServers[0].controller
    })
    expect(p).toEqual([
      expect.objectContaining({ code: 'replicas-without-controller', nodeId: 'broker-a-1' })
    ])
    expect(p[0]!.hint).toContain('"controller": {}')
  })

  it('refuses an election priority outside controller mode, and a slave with brokerId -1', () => {
    expect(
      problemsOf((d) => (d.rooms[0].brokers[0].electionPriority = 1)).map((x) => x.code)
    ).toEqual(['election-priority-not-replica'])
    expect(
      problemsOf((d) =>
        d.rooms[0].brokers.push({
          id: 's',
          cluster: 'DrCluster',
          brokerName: 'broker-a',
          role: 'slave',
          brokerId: -1
        })
      ).map((x) => x.code)
    ).toEqual(['slave-broker-id'])
  })

  it('takes synchronous replication on a master with a slave only, naming the fix', () => {
    const slave = { id: 's', cluster: 'DrCluster', brokerName: 'broker-a', role: 'slave', brokerId: 1 }
    expect(
      problemsOf((d) => {
        d.rooms[0].brokers[0].replication = 'sync'
        d.rooms[1].brokers.push(slave)
      })
    ).toEqual([])
    const alone = problemsOf((d) => (d.rooms[0].brokers[0].replication = 'sync'))
    expect(alone).toEqual([
      expect.objectContaining({ code: 'sync-master-without-slave', nodeId: 'broker-1' })
    ])
    expect(alone[0]!.hint).toContain('add a slave')
    const onSlave = problemsOf((d) => d.rooms[1].brokers.push({ ...slave, replication: 'sync' }))
    expect(onSlave.map((x) => x.code)).toEqual(['replication-not-master'])
    expect(onSlave[0]!.path).toBe('$.rooms[1].brokers[1].replication')
  })

  it('rejects unknown keys in the controllerMode block', () => {
    expect(problemsIn((d) => (d.controllerMode.allAck = true))[0]!.path).toBe(
      '$.controllerMode.allAck'
    )
  })
})
