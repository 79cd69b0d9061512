import type { RoomSpec, Topology } from '../../../common/topology'
import { topologySettingsSchema } from '../../../common/topology'

/**
 * A large, valid topology for the canvas benchmark: `rooms` rooms sharing `nodes` nodes, each room
 * with a management node, name servers, master/slave broker pairs and clients.
 */
export function generateTopology(nodes = 300, rooms = 6): Topology {
  const perRoom = Math.max(6, Math.floor(nodes / rooms))
  const out: RoomSpec[] = []
  let made = 0
  for (let r = 1; r <= rooms; r++) {
    const budget = r === rooms ? nodes - made : perRoom
    const ns = Math.max(1, Math.round(budget * 0.06))
    const pairs = Math.max(1, Math.round(budget * 0.1))
    const clients = Math.max(2, budget - 1 - ns - pairs * 2)
    const room: RoomSpec = {
      id: `room${r}`,
      name: `Room ${r}`,
      managementNodes: [{ id: `mgmt-${r}` }],
      nameServers: Array.from({ length: ns }, (_, i) => ({ id: `ns-${r}-${i + 1}` })),
      brokers: Array.from({ length: pairs }, (_, i) => [
        {
          id: `broker-${r}-${i + 1}m`,
          cluster: 'BenchCluster',
          brokerName: `b-${r}-${i + 1}`,
          role: 'master' as const,
          brokerId: 0
        },
        {
          id: `broker-${r}-${i + 1}s`,
          cluster: 'BenchCluster',
          brokerName: `b-${r}-${i + 1}`,
          role: 'slave' as const,
          brokerId: 1
        }
      ]).flat(),
      proxies: [],
      producers: Array.from({ length: Math.ceil(clients / 2) }, (_, i) => ({
        id: `producer-${r}-${i + 1}`,
        topic: 'bench',
        group: 'bench-producer',
        rate: 50,
        messageSize: 256,
        lane: 'remoting' as const
      })),
      consumers: Array.from({ length: Math.floor(clients / 2) }, (_, i) => ({
        id: `consumer-${r}-${i + 1}`,
        topic: 'bench',
        group: 'bench-consumer',
        lane: 'remoting' as const
      }))
    }
    made += 1 + ns + pairs * 2 + clients
    out.push(room)
  }
  return {
    kind: 'drstudio/topology',
    version: 1,
    name: `bench-${nodes}`,
    settings: topologySettingsSchema.parse({}),
    topics: [{ name: 'bench', queues: 8 }],
    rooms: out
  }
}
