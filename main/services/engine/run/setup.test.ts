import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { topologySchema } from '../../../../common/topology/schema'
import type { ClusterNode } from './cluster-port'
import type { AdminRemoting } from './run-context'
import { createTopologyTopics } from './setup'

const ROOT = resolve(import.meta.dirname, '../../../..')
const topology = (name: string) =>
  topologySchema.parse(
    JSON.parse(readFileSync(join(ROOT, `resources/topologies/${name}.json`), 'utf8'))
  )

/** A cluster whose name servers route what was created on each broker, as RocketMQ does. */
function world(nodes: ClusterNode[], brokerName: (address: string) => string) {
  const created: string[] = []
  const routed = new Map<string, Set<string>>()
  const admin: AdminRemoting = {
    updateAndCreateTopic: async (address, req) => {
      created.push(`${req.topic}@${address}`)
      const set = routed.get(req.topic) ?? new Set<string>()
      set.add(brokerName(address))
      routed.set(req.topic, set)
    },
    getRouteInfoByTopic: async (_ns, topic) =>
      ({
        brokerDatas: [...(routed.get(topic) ?? [])].map((b) => ({
          brokerName: b,
          brokerAddrs: { '0': 'x' }
        })),
        queueDatas: []
      }) as never,
    close: () => undefined
  }
  const cluster = { status: () => ({ nodes }), act: async () => undefined }
  return { admin, cluster, created }
}

const ctx = (w: ReturnType<typeof world>, t: ReturnType<typeof topology>) => ({
  ...w,
  topology: t,
  clock: { now: () => Date.now() },
  signal: new AbortController().signal,
  readyTimeoutMs: 2000
})

describe('createTopologyTopics', () => {
  it('creates every topic of the topology on every serving master and waits until it is routed', async () => {
    const nodes: ClusterNode[] = [
      { nodeId: 'ns-1', kind: 'nameserver', room: 'room1', state: 'up', address: 'ns1:9876' },
      { nodeId: 'broker-1', kind: 'broker', room: 'room1', state: 'up', address: 'b1:10911' },
      { nodeId: 'broker-2', kind: 'broker', room: 'room2', state: 'up', address: 'b2:10911' }
    ]
    const w = world(nodes, (a) => (a === 'b1:10911' ? 'broker-a' : 'broker-b'))
    expect(await createTopologyTopics(ctx(w, topology('two-rooms')))).toEqual(['orders'])
    expect(w.created.sort()).toEqual(['orders@b1:10911', 'orders@b2:10911'])
  })

  it('gives every controller-mode replica the topic: whichever is elected next serves it at once', async () => {
    const t = topology('three-rooms-controller')
    const nodes: ClusterNode[] = [
      { nodeId: 'ns-1', kind: 'nameserver', room: 'room1', state: 'up', address: 'ns1:9876' },
      ...t.rooms.flatMap((r) =>
        r.brokers.map((b) => ({
          nodeId: b.id,
          kind: 'broker',
          room: r.id,
          state: 'up',
          address: `${b.id}:10911`
        }))
      )
    ]
    const w = world(nodes, (a) => a.replace(/-\d:10911$/, ''))
    await createTopologyTopics(ctx(w, t))
    expect(w.created).toHaveLength(6)
    expect(new Set(w.created.map((c) => c.split('@')[1]))).toEqual(
      new Set(nodes.filter((n) => n.kind === 'broker').map((n) => n.address))
    )
  })
})
