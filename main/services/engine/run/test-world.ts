import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { topologySchema } from '../../../../common/topology/schema'
import type { Topology } from '../../../../common/topology/schema'
import { FakeCluster, FakeManagement } from '../../clients/room-aware/test-fakes'
import type { ClusterNode, ClusterPort } from './cluster-port'
import type { WorkerFactory } from '../../workers/client-fleet'
import { LocalWorker } from '../../room-worker/local-worker'
import type { Recorder } from '../../ledger/recorder'
import type { AdminRemoting } from './run-context'
import type { RunDeps } from './run-wiring'

/** The default two-room topology, as users open it. */
export function twoRooms(): Topology {
  const root = resolve(import.meta.dirname, '../../../..')
  return topologySchema.parse(
    JSON.parse(readFileSync(join(root, 'resources/topologies/two-rooms.json'), 'utf8'))
  )
}

/**
 * A two-room deployment of fake brokers behind the real client code, for unit tests of the run
 * phases: clients run in LocalWorkers (the ClientRuntime a room worker runs), sends land in the
 * fake brokers' queues and consumers pull them back.
 */
export function fakeWorld(): {
  fake: FakeCluster
  management: FakeManagement
  cluster: ClusterPort & { states: Map<string, string> }
  workers: WorkerFactory
  spawned: LocalWorker[]
  admin: () => AdminRemoting
  /** What a run needs, on this world, recording into `recorder`. */
  deps(recorder: Recorder): RunDeps
} {
  const fake = new FakeCluster()
  fake.loopback = true
  fake.nameServers.set('ns1:9876', 'up')
  fake.nameServers.set('ns2:9876', 'up')
  fake.brokers.set('a:10911', { name: 'broker-a', room: 'room1', health: 'up' })
  fake.brokers.set('b:10911', { name: 'broker-b', room: 'room2', health: 'up' })
  const management = new FakeManagement([
    { id: 'ns-1', room: 'room1', address: 'ns1:9876', available: true },
    { id: 'ns-2', room: 'room2', address: 'ns2:9876', available: true }
  ])
  const nodes: Omit<ClusterNode, 'state'>[] = [
    { nodeId: 'mgmt-1', kind: 'management', room: 'room1', address: '127.0.0.1:1' },
    { nodeId: 'mgmt-2', kind: 'management', room: 'room2', address: '127.0.0.1:2' },
    { nodeId: 'ns-1', kind: 'nameserver', room: 'room1', address: 'ns1:9876' },
    { nodeId: 'ns-2', kind: 'nameserver', room: 'room2', address: 'ns2:9876' },
    { nodeId: 'broker-1', kind: 'broker', room: 'room1', address: 'a:10911' },
    { nodeId: 'broker-2', kind: 'broker', room: 'room2', address: 'b:10911' }
  ]
  const states = new Map(nodes.map((n) => [n.nodeId, 'up']))
  const cluster = {
    states,
    status: () => ({ nodes: nodes.map((n) => ({ ...n, state: states.get(n.nodeId)! })) }),
    act: async (nodeId: string, action: string) => {
      const n = nodes.find((x) => x.nodeId === nodeId)
      if (!n) throw new Error(`no node ${nodeId}`)
      const state = action === 'kill' || action === 'stop' ? 'killed' : 'up'
      states.set(nodeId, state)
      if (n.kind === 'broker') fake.brokers.get(n.address!)!.health = state === 'up' ? 'up' : 'down'
      return undefined
    }
  }
  const spawned: LocalWorker[] = []
  const workers: WorkerFactory = () => {
    const w = new LocalWorker({
      remoting: () => fake.remoting(),
      management,
      clock: { now: () => performance.timeOrigin + performance.now() }
    })
    spawned.push(w)
    return w
  }
  const admin = (): AdminRemoting => ({
    updateAndCreateTopic: async () => undefined,
    getRouteInfoByTopic: async () => fake.route(),
    close: () => undefined
  })
  const clock = { now: () => performance.timeOrigin + performance.now() }
  const deps = (recorder: Recorder): RunDeps => ({
    recorder,
    cluster,
    workers,
    management,
    admin,
    clock,
    readyTimeoutMs: 5000
  })
  return { fake, management, cluster, workers, spawned, admin, deps }
}
