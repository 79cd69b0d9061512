import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { brokerGroupRoom, brokerGroupRooms, brokerRoleOf, nodesOfKind } from './model'
import { topologySchema } from './schema'

const load = (name: string) =>
  topologySchema.parse(JSON.parse(readFileSync(`resources/topologies/${name}.json`, 'utf8')))

describe('broker groups', () => {
  it("places a group in its master's room, whichever room its slave is in", () => {
    const t = load('two-rooms-sync')
    expect(brokerGroupRooms(t)).toEqual({ 'broker-a': 'room1', 'broker-b': 'room2' })
    const slave = nodesOfKind(t, 'broker').find((b) => b.id === 'broker-1-slave')!
    expect(slave.room).toBe('room2')
    expect(brokerGroupRoom(t, slave)).toBe('room1')
  })

  it('keeps a controller-mode replica in its own room (its group has no fixed master)', () => {
    const t = load('three-rooms-controller')
    const replicas = nodesOfKind(t, 'broker').filter((b) => b.spec.role === 'replica')
    expect(replicas.length).toBeGreaterThan(1)
    for (const r of replicas) expect(brokerGroupRoom(t, r)).toBe(r.room)
  })

  it("names RocketMQ's brokerRole: SYNC_MASTER only for a synchronous master", () => {
    expect(brokerRoleOf({ role: 'master', replication: 'sync' })).toBe('SYNC_MASTER')
    expect(brokerRoleOf({ role: 'master' })).toBe('ASYNC_MASTER')
    expect(brokerRoleOf({ role: 'slave', replication: 'sync' })).toBe('SLAVE')
    expect(brokerRoleOf({ role: 'replica' })).toBe('SLAVE')
  })
})
