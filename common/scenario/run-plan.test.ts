import { describe, expect, it } from 'vitest'
import twoRoomsJson from '../../resources/topologies/two-rooms.json'
import twoRoomsProxiesJson from '../../resources/topologies/two-rooms-proxies.json'
import threeRoomsControllerJson from '../../resources/topologies/three-rooms-controller.json'
import { topologySchema } from '../topology/schema'
import type { Topology } from '../topology/schema'
import { scenarioSchema } from './schema'
import type { LoadedScenario } from './run-plan'
import { resolveRunPlan, runNaming } from './run-plan'

const twoRooms = (): Topology => topologySchema.parse(twoRoomsJson)
const loaded = (topology: Topology, scenario: Record<string, unknown> = {}): LoadedScenario => ({
  scenario: scenarioSchema.parse({ name: 't', topology: topology.name, ...scenario }),
  topology,
  file: null,
  topologyFile: ''
})

const attached = () => {
  const t = twoRooms()
  t.rooms[0]!.brokers[0] = { ...t.rooms[0]!.brokers[0]!, host: '10.1.0.5', port: 10911 }
  return t
}

describe('runNaming', () => {
  it('gives a sandbox scenario run a fresh topic and group, a session the topology’s', () => {
    const run = runNaming({ topology: twoRooms(), runId: 7, kind: 'scenario' })
    expect([run.names.topicOf('orders'), run.names.groupOf('g'), run.topicPolicy]).toEqual([
      'orders-r7',
      'g-r7',
      'create'
    ])
    const session = runNaming({ topology: twoRooms(), runId: 7, kind: 'session' })
    expect([session.names.topicOf('orders'), session.names.groupOf('g')]).toEqual(['orders', 'g'])
  })

  it('never creates a topic or reuses a production group on an attached cluster unless asked', () => {
    for (const kind of ['scenario', 'session'] as const) {
      const run = runNaming({ topology: attached(), runId: 7, kind })
      expect(run.topicPolicy).toBe('require-existing')
      expect(run.names.topicOf('payments')).toBe('payments')
      expect(run.names.groupOf('payments-consumer')).toBe('drstudio-run-7')
    }
    expect(
      runNaming({ topology: attached(), runId: 7, kind: 'scenario', createTopic: true }).topicPolicy
    ).toBe('create')
    const t = attached()
    t.source = { kind: 'discovered', namesrv: 'x', at: 'now', rooms: 'zone', createTopic: true }
    expect(runNaming({ topology: t, runId: 7, kind: 'session' }).topicPolicy).toBe('create')
  })
})

describe('resolveRunPlan', () => {
  it("creates a gRPC lane's topic MIXED in a delayed run (the proxy checks types per topic), the others plain", () => {
    const proxies = topologySchema.parse(twoRoomsProxiesJson)
    const plan = (workload: Record<string, unknown>) =>
      resolveRunPlan({ loaded: loaded(proxies, { workload }), runId: 3, kind: 'scenario' }).topics
    const delayed = plan({ messages: 'delayed', lanes: ['remoting', 'grpc', 'baseline'] })
    expect(delayed.map((t) => [t.name, t.attributes ?? null])).toEqual([
      ['orders-remoting-r3', null],
      ['orders-grpc-r3', '+message.type=MIXED'],
      ['orders-baseline-r3', '+message.type=MIXED']
    ])
    expect(plan({ lanes: ['remoting', 'grpc'] }).every((t) => t.attributes === undefined)).toBe(
      true
    )
  })

  it("makes a gRPC lane's ordered run MIXED and its consumer group FIFO, nothing of the other lanes'", () => {
    const proxies = topologySchema.parse(twoRoomsProxiesJson)
    const plan = resolveRunPlan({
      loaded: loaded(proxies, {
        workload: { messages: 'ordered', lanes: ['remoting', 'grpc', 'baseline'] }
      }),
      runId: 3,
      kind: 'scenario'
    })
    expect(plan.topics.map((t) => [t.name, t.attributes ?? null])).toEqual([
      ['orders-remoting-r3', null],
      ['orders-grpc-r3', '+message.type=MIXED'],
      ['orders-baseline-r3', '+message.type=MIXED']
    ])
    expect(plan.fifoGroups).toEqual(
      plan.consumerGroups.filter((g) => g.includes('-grpc-') || g.includes('-baseline-'))
    )
    expect(plan.fifoGroups).toHaveLength(2)
    const plain = resolveRunPlan({
      loaded: loaded(proxies, { workload: { lanes: ['remoting', 'grpc'] } }),
      runId: 3,
      kind: 'scenario'
    })
    expect(plain.fifoGroups).toEqual([])
    // Transactions: a TRANSACTION topic, the only type a proxy heartbeats transaction groups for.
    const tx = resolveRunPlan({
      loaded: loaded(proxies, {
        workload: { messages: 'transactional', lanes: ['remoting', 'grpc'] }
      }),
      runId: 3,
      kind: 'scenario'
    })
    expect(tx.topics.map((t) => [t.name, t.attributes ?? null])).toEqual([
      ['orders-remoting-r3', null],
      ['orders-grpc-r3', '+message.type=TRANSACTION']
    ])
  })

  it('resolves clients, names, topics, groups, targets and rooms once', () => {
    const plan = resolveRunPlan({ loaded: loaded(twoRooms()), runId: 12, kind: 'scenario' })
    expect(plan.attached).toBe(false)
    expect(plan.topicPolicy).toBe('create')
    expect(plan.clients.map((c) => c.id)).toEqual([
      'producer-1',
      'consumer-1',
      'producer-2',
      'consumer-2'
    ])
    expect(plan.topics).toEqual([{ base: 'orders', name: 'orders-r12', queues: 4 }])
    expect(plan.consumerGroups).toEqual(['orders-consumer-r12'])
    expect(plan.roomOf.get('broker-2')).toBe('room2')
    expect(plan.roomOf.get('producer-1')).toBe('room1')
    expect(plan.roomOf.get('room2')).toBe('room2')
    expect(plan.targets.map((t) => t.id)).toContain('ns-1')
    expect(plan.targets.map((t) => t.id)).toContain('consumer-2')
    expect(plan.replicaGroups).toEqual([])
    expect(plan.rateNote).toBeNull()
  })

  it('suffixes every lane of a side-by-side run and names each lane topic once', () => {
    const plan = resolveRunPlan({
      loaded: loaded(twoRooms(), { workload: { lanes: ['remoting', 'java'] } }),
      runId: 3,
      kind: 'scenario'
    })
    expect(plan.topics.map((t) => t.name)).toEqual(['orders-remoting-r3', 'orders-java-r3'])
    expect(plan.consumerGroups).toEqual(['orders-consumer-remoting-r3', 'orders-consumer-java-r3'])
    expect(plan.roomOf.get('producer-1-java')).toBe('room1')
  })

  it('names the controller-mode groups of a controller topology', () => {
    const topology = topologySchema.parse(threeRoomsControllerJson)
    const plan = resolveRunPlan({ loaded: loaded(topology), runId: 1, kind: 'scenario' })
    expect(plan.replicaGroups).toEqual(['broker-a', 'broker-b'])
    expect(plan.brokerNameOf.get('broker-a-1')).toBe('broker-a')
  })

  it('caps producer rates on an attached cluster and says why', () => {
    const t = twoRooms()
    t.rooms[0]!.brokers[0] = { ...t.rooms[0]!.brokers[0]!, host: '10.1.0.5', port: 10911 }
    const plan = resolveRunPlan({ loaded: loaded(t), runId: 4, kind: 'scenario' })
    expect(plan.attached).toBe(true)
    expect(plan.topicPolicy).toBe('require-existing')
    expect(plan.clients.filter((c) => c.role === 'producer').map((c) => c.rate)).toEqual([5, 5])
    expect(plan.rateNote).toMatch(/attached cluster: 5 msg\/s per producer/)
  })
})
