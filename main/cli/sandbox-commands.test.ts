import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { listNodes, topologySchema } from '../../common/topology'
import { zoneProblems } from './sandbox-commands'

const ROOT = resolve(import.meta.dirname, '../..')
const load = (name: string) =>
  listNodes(
    topologySchema.parse(
      JSON.parse(readFileSync(join(ROOT, 'resources/topologies', `${name}.json`), 'utf8'))
    )
  ).filter((n) => n.kind === 'broker')

describe('sandbox check: brokers by zone on a name server', () => {
  it('wants a one-room broker under its own room, and says which it saw', () => {
    const brokers = load('two-rooms')
    const addressOf = (id: string) => `127.0.0.1:${id}`
    const right = brokers.map((b) => ({ address: addressOf(b.id), zone: b.room }))
    expect(zoneProblems(brokers, right, addressOf)).toEqual([])
    const swapped = brokers.map((b, i) => ({
      address: addressOf(b.id),
      zone: brokers[(i + 1) % brokers.length]!.room
    }))
    expect(zoneProblems(brokers, swapped, addressOf)).toEqual([
      'broker-1 zone room2, expected room1',
      'broker-2 zone room1, expected room2'
    ])
    expect(zoneProblems(brokers, right.slice(1), addressOf)).toEqual([
      'broker-1 (127.0.0.1:broker-1) missing'
    ])
  })

  it('takes a cross-room group under any of its rooms: the name server keeps one zone per group', () => {
    const brokers = load('three-rooms-controller')
    const addressOf = (id: string) => `127.0.0.1:${id}`
    // What the name servers listed on a real boot: each group under the room that registered it.
    const rows = brokers.map((b) => ({
      address: addressOf(b.id),
      zone: b.spec.brokerName === 'broker-a' ? 'room2' : 'room1'
    }))
    expect(zoneProblems(brokers, rows, addressOf)).toEqual([])
    const elsewhere = rows.map((r) => ({ ...r, zone: 'room9' }))
    expect(zoneProblems(brokers, elsewhere, addressOf)[0]).toBe(
      'broker-a-1 zone room9, expected room1 or room2 or room3'
    )
  })
})
