import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { configuredLink, linkKey, parseLinkKey } from './network'
import { validateTopology } from './validate'

const twoRooms = () => JSON.parse(readFileSync('resources/topologies/two-rooms.json', 'utf8'))

function problemsWith(network: unknown) {
  const doc = twoRooms()
  doc.network = network
  const r = validateTopology(doc)
  return r.ok ? [] : r.problems
}

describe('network settings', () => {
  it('are optional and default to auto with instant links', () => {
    const r = validateTopology(twoRooms())
    expect(r.ok && r.topology.network).toBeUndefined()
    expect(configuredLink(undefined, 'room1', 'room2')).toEqual({
      latencyMs: 0,
      jitterMs: 0,
      lossPct: 0,
      bandwidthMbit: null
    })
  })

  it('accept the issue example in either pair order', () => {
    for (const key of ['room1~room2', 'room2~room1']) {
      const network = {
        mode: 'namespaces',
        links: {
          default: { latencyMs: 1, jitterMs: 0, lossPct: 0, bandwidthMbit: null },
          [key]: { latencyMs: 20, bandwidthMbit: 100 }
        }
      }
      expect(problemsWith(network)).toEqual([])
      expect(configuredLink(network as never, 'room1', 'room2')).toEqual({
        latencyMs: 20,
        jitterMs: 0,
        lossPct: 0,
        bandwidthMbit: 100
      })
      expect(configuredLink(network as never, 'room2', 'room1').latencyMs).toBe(20)
    }
  })

  it('inherits default fields a pair entry leaves out, and lets a pair clear a default cap', () => {
    const network = {
      links: { default: { lossPct: 5, bandwidthMbit: 50 }, 'room1~room2': { bandwidthMbit: null } }
    }
    expect(configuredLink(network as never, 'room1', 'room2')).toEqual({
      latencyMs: 0,
      jitterMs: 0,
      lossPct: 5,
      bandwidthMbit: null
    })
  })

  it('rejects an unknown mode with its path', () => {
    expect(problemsWith({ mode: 'docker' })).toEqual([
      expect.objectContaining({ code: 'schema', path: '$.network.mode' })
    ])
  })

  it('rejects out-of-range link values with a bracketed JSON path', () => {
    expect(problemsWith({ links: { 'room1~room2': { lossPct: 101 } } })).toEqual([
      expect.objectContaining({ code: 'schema', path: '$.network.links["room1~room2"].lossPct' })
    ])
  })

  it('rejects self-links, malformed keys, unknown rooms and a pair given twice', () => {
    const p = problemsWith({
      links: {
        'room1~room1': {},
        room1: {},
        'room1~room9': {},
        'room1~room2': {},
        'room2~room1': {}
      }
    })
    expect(p.map((x) => [x.code, x.path])).toEqual([
      ['bad-link-key', '$.network.links["room1~room1"]'],
      ['bad-link-key', '$.network.links["room1"]'],
      ['unknown-room', '$.network.links["room1~room9"]'],
      ['duplicate-link', '$.network.links["room2~room1"]']
    ])
    expect(p[0]!.message).toContain('itself')
    expect(p[2]!.message).toContain('room "room9"')
    expect(p[2]!.hint).toContain('room1, room2')
    expect(p[3]!.message).toContain('$.network.links["room1~room2"]')
  })
})

describe('link keys', () => {
  it('parse and canonicalise in room order', () => {
    expect(parseLinkKey('a~b')).toEqual({ ok: true, a: 'a', b: 'b' })
    expect(parseLinkKey('a~b~c').ok).toBe(false)
    expect(parseLinkKey('~b').ok).toBe(false)
    expect(linkKey('b', 'a', ['a', 'b'])).toBe('a~b')
    expect(linkKey('a', 'b', ['a', 'b'])).toBe('a~b')
  })
})
