import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseTopologyText, validateTopology } from './validate'

const twoRooms = () => JSON.parse(readFileSync('resources/topologies/two-rooms.json', 'utf8'))

describe('validateTopology', () => {
  it('accepts the shipped topologies', () => {
    for (const f of ['two-rooms', 'three-rooms']) {
      const r = parseTopologyText(readFileSync(`resources/topologies/${f}.json`, 'utf8'))
      expect(r.ok, JSON.stringify(r)).toBe(true)
    }
  })
  it('reports duplicate ids with both paths', () => {
    const doc = twoRooms()
    doc.rooms[1].brokers[0].id = 'broker-1'
    const r = validateTopology(doc)
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.problems).toEqual([
      expect.objectContaining({ code: 'duplicate-id', path: '$.rooms[1].brokers[0].id' })
    ])
    expect(r.problems[0]?.message).toContain('$.rooms[0].brokers[0].id')
  })
})
