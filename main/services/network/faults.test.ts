import { describe, expect, it } from 'vitest'
import type { ActiveFault, LastingFault } from './faults'
import { describeFault, directedPairs, matchesHeal, nodeRules, resolveFault } from './faults'
import { activeFaults, testPlan } from './test-plan'
import { networkFaultSchema } from '../../../common/scenario/schema'
import type { NetworkFaultInput } from '../../../common/scenario/schema'

const plan = testPlan()
const parse = (f: NetworkFaultInput) => networkFaultSchema.parse(f) as LastingFault
const resolve = (f: NetworkFaultInput) => resolveFault(plan, parse(f))

describe('resolveFault', () => {
  it('puts room↔room faults in the core and anything naming a node in node namespaces', () => {
    const pairs = [
      ['room1', 'room2', 'room'],
      ['a1', 'b1', 'node'],
      ['a1', 'a2', 'node'],
      ['a1', 'room2', 'node'],
      ['room2', 'a1', 'node'],
      ['a1', 'room1', 'node']
    ] as const
    for (const [target, peer, scope] of pairs) {
      expect(resolve({ action: 'partition', target, peer })).toEqual({ ok: true, scope })
      expect(resolve({ action: 'loss', target, peer, lossPct: 5 })).toEqual({ ok: true, scope })
    }
    expect(resolve({ action: 'isolate', target: 'room1' })).toEqual({ ok: true, scope: 'room' })
    expect(resolve({ action: 'isolate', target: 'b1' })).toEqual({ ok: true, scope: 'node' })
    expect(resolve({ action: 'delay', target: 'room1', peer: 'room3', latencyMs: 5 })).toEqual({
      ok: true,
      scope: 'room'
    })
    expect(resolve({ action: 'bandwidth', target: 'room1', peer: 'room3', mbit: 5 })).toEqual({
      ok: true,
      scope: 'room'
    })
  })

  it('refuses unknown ids, self-pairs and node-level delay or bandwidth, naming the fix', () => {
    const err = (f: NetworkFaultInput) => {
      const r = resolve(f)
      return r.ok ? '' : r.error
    }
    expect(err({ action: 'isolate', target: 'room9' })).toMatch(
      /isolate target "room9" is neither a room nor a node.*rooms: room1, room2, room3; nodes: a1, a2, b1, c1/
    )
    expect(err({ action: 'partition', target: 'room1', peer: 'zz' })).toMatch(/partition peer "zz"/)
    expect(err({ action: 'partition', target: 'room1', peer: 'room1' })).toMatch(/both "room1"/)
    expect(err({ action: 'delay', target: 'a1', peer: 'room2', latencyMs: 5 })).toMatch(
      /"a1" is a node; target its room "room1"/
    )
    expect(err({ action: 'bandwidth', target: 'room3', peer: 'b1', mbit: 5 })).toMatch(
      /"b1" is a node; target its room "room2"/
    )
  })
})

describe('directedPairs', () => {
  it('reads direction from the target', () => {
    expect(directedPairs('t', 'p', 'to')).toEqual([['t', 'p']])
    expect(directedPairs('t', 'p', 'from')).toEqual([['p', 't']])
    expect(directedPairs('t', 'p', 'both')).toEqual([
      ['t', 'p'],
      ['p', 't']
    ])
  })
})

describe('matchesHeal', () => {
  const [partition, isolate, loss] = activeFaults(plan, [
    { action: 'partition', target: 'room1', peer: 'room2' },
    { action: 'isolate', target: 'room3' },
    { action: 'loss', target: 'a1', peer: 'b1', lossPct: 10 }
  ]) as [ActiveFault, ActiveFault, ActiveFault]
  const healed = (sel: Parameters<typeof matchesHeal>[1]) =>
    [partition, isolate, loss].filter((f) => matchesHeal(f, sel)).map((f) => f.id)

  it('heals all without a selector, by id, by one end, or by an unordered pair', () => {
    expect(healed(undefined)).toEqual(['f1', 'f2', 'f3'])
    expect(healed({})).toEqual(['f1', 'f2', 'f3'])
    expect(healed({ id: 'f2' })).toEqual(['f2'])
    expect(healed({ target: 'room2' })).toEqual(['f1'])
    expect(healed({ target: 'room3' })).toEqual(['f2'])
    expect(healed({ target: 'room2', peer: 'room1' })).toEqual(['f1'])
    expect(healed({ target: 'room1', peer: 'room2' })).toEqual(['f1'])
    expect(healed({ target: 'b1', peer: 'a1' })).toEqual(['f3'])
    expect(healed({ target: 'room3', peer: 'room1' })).toEqual([])
    expect(healed({ peer: 'a1' })).toEqual(['f3'])
    expect(healed({ id: 'f1', target: 'room3' })).toEqual([])
  })
})

describe('nodeRules', () => {
  const ip = (id: string) => `${plan.nodes.find((n) => n.id === id)!.ip}/32`
  const subnet = (id: string) => plan.rooms.find((r) => r.id === id)!.subnet
  const rulesOf = (f: NetworkFaultInput) => {
    const out: [string, string, string | null][] = []
    for (const [node, rules] of nodeRules(plan, activeFaults(plan, [f]))) {
      for (const r of rules) out.push([node, r.chain, r.cidr])
    }
    return out
  }

  it('cuts src→dst in the source node output, or the destination node input when the source is a room', () => {
    const expected: Record<string, Record<string, [string, string, string | null][]>> = {
      'a1>b1': {
        to: [['a1', 'output', ip('b1')]],
        from: [['b1', 'output', ip('a1')]],
        both: [
          ['a1', 'output', ip('b1')],
          ['b1', 'output', ip('a1')]
        ]
      },
      'a1>room2': {
        to: [['a1', 'output', subnet('room2')]],
        from: [['a1', 'input', subnet('room2')]],
        both: [
          ['a1', 'output', subnet('room2')],
          ['a1', 'input', subnet('room2')]
        ]
      },
      'room3>a2': {
        to: [['a2', 'input', subnet('room3')]],
        from: [['a2', 'output', subnet('room3')]],
        both: [
          ['a2', 'input', subnet('room3')],
          ['a2', 'output', subnet('room3')]
        ]
      }
    }
    for (const [pair, byDirection] of Object.entries(expected)) {
      const [target, peer] = pair.split('>') as [string, string]
      for (const [direction, rules] of Object.entries(byDirection)) {
        for (const mode of ['drop', 'reject'] as const) {
          const f = { action: 'partition', target, peer, direction, mode } as NetworkFaultInput
          expect(rulesOf(f), `${pair} ${direction} ${mode}`).toEqual(rules)
          const verdicts = [...nodeRules(plan, activeFaults(plan, [f])).values()]
            .flat()
            .map((r) => r.verdict)
          expect(verdicts.every((v) => v.kind === 'block' && v.mode === mode)).toBe(true)
        }
        const loss = { action: 'loss', target, peer, direction, lossPct: 12 } as NetworkFaultInput
        expect(rulesOf(loss)).toEqual(rules)
      }
    }
  })

  it('isolates a node both ways with an everything-but-the-engine rule', () => {
    expect(rulesOf({ action: 'isolate', target: 'c1' })).toEqual([
      ['c1', 'output', null],
      ['c1', 'input', null]
    ])
  })

  it('leaves room faults to the core', () => {
    expect(rulesOf({ action: 'partition', target: 'room1', peer: 'room2' })).toEqual([])
    expect(rulesOf({ action: 'isolate', target: 'room1' })).toEqual([])
  })
})

describe('describeFault', () => {
  it('says what, where and how much in one line', () => {
    expect(
      describeFault(parse({ action: 'partition', target: 'room1', peer: 'room2', direction: 'to' }))
    ).toBe('partition room1→room2 (drop)')
    expect(
      describeFault(
        parse({ action: 'delay', target: 'room1', peer: 'room2', latencyMs: 20, jitterMs: 2 })
      )
    ).toBe('delay room1↔room2 (20 ms ± 2)')
    expect(
      describeFault(
        parse({ action: 'loss', target: 'a1', peer: 'b1', lossPct: 30, direction: 'from' })
      )
    ).toBe('loss a1←b1 (30 %)')
    expect(
      describeFault(parse({ action: 'bandwidth', target: 'room1', peer: 'room2', mbit: 10 }))
    ).toBe('bandwidth room1↔room2 (10 Mbit/s)')
    expect(describeFault(parse({ action: 'isolate', target: 'room1', mode: 'reject' }))).toBe(
      'isolate room1 (reject)'
    )
  })
})
