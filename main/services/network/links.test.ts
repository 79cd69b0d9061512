import { describe, expect, it } from 'vitest'
import type { DirectedLink } from './links'
import { effectiveLinks } from './links'
import { activeFaults, testPlan } from './test-plan'

const plan = testPlan()
const open: DirectedLink = {
  blocked: null,
  lossPct: 0,
  latencyMs: 0,
  jitterMs: 0,
  bandwidthMbit: null
}

function link(key: string, inputs: Parameters<typeof activeFaults>[1], p = plan) {
  return effectiveLinks(p, activeFaults(p, inputs)).find((l) => l.key === key)!
}

describe('link model', () => {
  it('starts every room pair as configured, both ways, with no faults', () => {
    const links = effectiveLinks(plan, [])
    expect(links.map((l) => l.key)).toEqual(['room1~room2', 'room1~room3', 'room2~room3'])
    for (const l of links) expect([l.ab, l.ba, l.faultIds]).toEqual([open, open, []])
  })

  it('maps direction to, from and both onto the right side, whatever the pair order', () => {
    const cases = [
      { target: 'room1', peer: 'room2', direction: 'to', ab: true, ba: false },
      { target: 'room1', peer: 'room2', direction: 'from', ab: false, ba: true },
      { target: 'room1', peer: 'room2', direction: 'both', ab: true, ba: true },
      { target: 'room2', peer: 'room1', direction: 'to', ab: false, ba: true },
      { target: 'room2', peer: 'room1', direction: 'from', ab: true, ba: false },
      { target: 'room2', peer: 'room1', direction: 'both', ab: true, ba: true }
    ] as const
    for (const mode of ['drop', 'reject'] as const) {
      for (const c of cases) {
        const l = link('room1~room2', [
          { action: 'partition', target: c.target, peer: c.peer, direction: c.direction, mode }
        ])
        expect([l.ab.blocked, l.ba.blocked], JSON.stringify({ ...c, mode })).toEqual([
          c.ab ? mode : null,
          c.ba ? mode : null
        ])
        expect(l.faultIds).toEqual(['f1'])
        expect(
          link('room1~room3', [
            { action: 'partition', target: c.target, peer: c.peer, direction: c.direction, mode }
          ]).faultIds
        ).toEqual([])
      }
    }
  })

  it('sets the field of each action and nothing else', () => {
    const l = link('room1~room2', [
      { action: 'delay', target: 'room1', peer: 'room2', latencyMs: 20, jitterMs: 2 },
      { action: 'loss', target: 'room1', peer: 'room2', lossPct: 30, direction: 'to' },
      { action: 'bandwidth', target: 'room2', peer: 'room1', mbit: 10, direction: 'to' }
    ])
    expect(l.ab).toEqual({
      blocked: null,
      lossPct: 30,
      latencyMs: 20,
      jitterMs: 2,
      bandwidthMbit: null
    })
    expect(l.ba).toEqual({
      blocked: null,
      lossPct: 0,
      latencyMs: 20,
      jitterMs: 2,
      bandwidthMbit: 10
    })
    expect(l.faultIds).toEqual(['f1', 'f2', 'f3'])
  })

  it('isolate cuts every link of the room both ways and leaves the others', () => {
    for (const mode of ['drop', 'reject'] as const) {
      const links = effectiveLinks(
        plan,
        activeFaults(plan, [{ action: 'isolate', target: 'room2', mode }])
      )
      const byKey = Object.fromEntries(links.map((l) => [l.key, [l.ab.blocked, l.ba.blocked]]))
      expect(byKey).toEqual({
        'room1~room2': [mode, mode],
        'room1~room3': [null, null],
        'room2~room3': [mode, mode]
      })
    }
  })

  it('lets a later fault override an earlier one; dropping it restores the earlier, then the configured shape', () => {
    const p = testPlan({ mode: 'auto', links: { 'room1~room2': { latencyMs: 5, lossPct: 1 } } })
    const faults = activeFaults(p, [
      { action: 'delay', target: 'room1', peer: 'room2', latencyMs: 50 },
      { action: 'delay', target: 'room1', peer: 'room2', latencyMs: 80, direction: 'to' },
      { action: 'partition', target: 'room1', peer: 'room2', mode: 'drop' },
      { action: 'partition', target: 'room1', peer: 'room2', mode: 'reject', direction: 'from' }
    ])
    const at = (n: number) =>
      effectiveLinks(p, faults.slice(0, n)).find((l) => l.key === 'room1~room2')!
    expect([at(0).ab.latencyMs, at(0).ab.lossPct, at(0).ab.blocked]).toEqual([5, 1, null])
    expect([at(1).ab.latencyMs, at(1).ba.latencyMs]).toEqual([50, 50])
    expect([at(2).ab.latencyMs, at(2).ba.latencyMs]).toEqual([80, 50])
    expect([at(4).ab.blocked, at(4).ba.blocked]).toEqual(['drop', 'reject'])
    const healedFirst = effectiveLinks(p, faults.slice(1)).find((l) => l.key === 'room1~room2')!
    expect([healedFirst.ab.latencyMs, healedFirst.ba.latencyMs]).toEqual([80, 5])
  })

  it('ignores node faults: they live in node namespaces, not on room links', () => {
    const links = effectiveLinks(
      plan,
      activeFaults(plan, [
        { action: 'partition', target: 'a1', peer: 'b1' },
        { action: 'isolate', target: 'c1' },
        { action: 'loss', target: 'a1', peer: 'room2', lossPct: 50 }
      ])
    )
    for (const l of links) expect([l.ab, l.ba, l.faultIds]).toEqual([open, open, []])
  })
})
