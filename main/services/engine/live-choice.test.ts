import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { liveChoiceEventSchema } from '../../../common/contract'
import { topologySchema } from '../../../common/topology/schema'
import { masterNodeIds, toLiveChoice } from './live-choice'

const topology = topologySchema.parse(
  JSON.parse(
    readFileSync(
      join(resolve(import.meta.dirname, '../../..'), 'resources/topologies/two-rooms.json'),
      'utf8'
    )
  )
)

describe('toLiveChoice', () => {
  it('resolves brokerName to the master node id and keeps the name-server node id', () => {
    const c = toLiveChoice(
      {
        clientId: 'producer-1',
        role: 'producer',
        room: 'room1',
        namesrvId: 'ns-1',
        namesrvRoom: 'room1',
        brokerName: 'broker-b',
        brokerRoom: 'room2'
      },
      masterNodeIds(topology),
      7,
      1234
    )
    expect(c).toEqual({
      runId: 7,
      clientId: 'producer-1',
      role: 'producer',
      room: 'room1',
      namesrvId: 'ns-1',
      namesrvRoom: 'room1',
      brokerId: 'broker-2',
      brokerName: 'broker-b',
      brokerRoom: 'room2',
      at: 1234
    })
    expect(liveChoiceEventSchema.safeParse(c).success).toBe(true)
  })

  it('gives nulls for what the client has not chosen and for unknown brokers', () => {
    const masters = masterNodeIds(topology)
    const none = toLiveChoice({ clientId: 'c', role: 'consumer', room: 'room2' }, masters, null)
    expect(none).toMatchObject({
      runId: null,
      namesrvId: null,
      namesrvRoom: null,
      brokerId: null,
      brokerName: null,
      brokerRoom: null
    })
    expect(liveChoiceEventSchema.safeParse(none).success).toBe(true)
    const unknown = toLiveChoice(
      { clientId: 'c', role: 'consumer', room: 'room2', brokerName: 'nope' },
      masters,
      1
    )
    expect(unknown).toMatchObject({ brokerId: null, brokerName: 'nope' })
  })

  it('maps only masters; a slave sharing the name is ignored', () => {
    const withSlave = topologySchema.parse({
      ...topology,
      rooms: topology.rooms.map((r, i) =>
        i === 1
          ? {
              ...r,
              brokers: [
                {
                  id: 'broker-a-s',
                  cluster: 'DrCluster',
                  brokerName: 'broker-a',
                  role: 'slave',
                  brokerId: 1
                },
                ...r.brokers
              ]
            }
          : r
      )
    })
    expect(masterNodeIds(withSlave).get('broker-a')).toBe('broker-1')
  })
})
