import { describe, expect, it } from 'vitest'
import type { HaRuntimeInfo } from '../../remoting/types'
import type { ClusterNode } from './cluster-port'
import { replicationTraffic, sampleReplicas } from './replication'

const broker = (nodeId: string, room: string, port: number, state = 'up'): ClusterNode => ({
  nodeId,
  kind: 'broker',
  room,
  state,
  address: `127.0.0.1:${port}`
})

// two-rooms-sync: broker-a's master in room1, its slave in room2; broker-b the other way round.
const nodes = [
  broker('broker-1', 'room1', 20000),
  broker('broker-2-slave', 'room1', 20010),
  broker('broker-2', 'room2', 20020),
  broker('broker-1-slave', 'room2', 20030),
  { nodeId: 'ns-1', kind: 'nameserver', room: 'room1', state: 'up', address: '127.0.0.1:9876' }
]

const slave = (masterAddr: string, maxOffset: number): HaRuntimeInfo => ({
  master: false,
  haClientRuntimeInfo: { masterAddr, maxOffset }
})

describe('replication traffic', () => {
  it("asks every answering broker, keeps those that copy from a master, and skips the silent", async () => {
    const asked: string[] = []
    const samples = await sampleReplicas(
      [...nodes, broker('broker-3', 'room3', 20040, 'killed')],
      async (address) => {
        asked.push(address)
        if (address.endsWith(':20030')) return slave('127.0.0.1:20001', 5000)
        if (address.endsWith(':20010')) throw new Error('connect ECONNREFUSED')
        return { master: true, haClientRuntimeInfo: null }
      }
    )
    expect(asked).toHaveLength(4)
    expect(samples).toEqual([
      { nodeId: 'broker-1-slave', masterHaAddress: '127.0.0.1:20001', maxOffset: 5000 }
    ])
  })

  it('attributes each replica’s commit-log growth to its master’s room, per direction', () => {
    const start = [
      { nodeId: 'broker-1-slave', masterHaAddress: '127.0.0.1:20001', maxOffset: 1000 },
      { nodeId: 'broker-2-slave', masterHaAddress: '127.0.0.1:20021', maxOffset: 400 }
    ]
    const end = [
      { nodeId: 'broker-1-slave', masterHaAddress: '127.0.0.1:20001', maxOffset: 61_000 },
      { nodeId: 'broker-2-slave', masterHaAddress: '127.0.0.1:20021', maxOffset: 30_400 }
    ]
    expect(replicationTraffic(start, end, nodes)).toEqual([
      {
        fromRoom: 'room1',
        toRoom: 'room2',
        bytes: 60_000,
        pairs: [{ master: 'broker-1', slave: 'broker-1-slave', bytes: 60_000 }]
      },
      {
        fromRoom: 'room2',
        toRoom: 'room1',
        bytes: 30_000,
        pairs: [{ master: 'broker-2', slave: 'broker-2-slave', bytes: 30_000 }]
      }
    ])
  })

  it('leaves out a replica seen once, one whose store was wiped, and an unknown master', () => {
    const end = [
      { nodeId: 'broker-1-slave', masterHaAddress: '127.0.0.1:20001', maxOffset: 10 },
      { nodeId: 'broker-2-slave', masterHaAddress: '10.0.0.9:10912', maxOffset: 900 }
    ]
    expect(
      replicationTraffic(
        [
          { nodeId: 'broker-1-slave', masterHaAddress: '127.0.0.1:20001', maxOffset: 500 },
          { nodeId: 'broker-2-slave', masterHaAddress: null, maxOffset: 100 }
        ],
        end,
        nodes
      )
    ).toEqual([])
    expect(replicationTraffic([], end, nodes)).toEqual([])
  })
})
