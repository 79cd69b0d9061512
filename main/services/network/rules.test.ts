import { describe, expect, it } from 'vitest'
import type { NetworkFaultInput } from '../../../common/scenario/schema'
import { nodeRules } from './faults'
import { effectiveLinks } from './links'
import { planNetwork } from './plan'
import {
  blockStatements,
  coreRuleset,
  delayRuleArgs,
  delayedPairs,
  lossStatement,
  nodeRuleset,
  replaceTable,
  routerSetLine,
  shapingPlan,
  tcBatch
} from './rules'
import { activeFaults, testPlan } from './test-plan'

const plan = testPlan()
const R1 = '198.18.1.0/24'
const R2 = '198.18.2.0/24'
const R3 = '198.18.3.0/24'
const RESET = 'table inet drstudio {}\ndelete table inet drstudio\n'

const core = (faults: NetworkFaultInput[], p = plan) =>
  coreRuleset(p, effectiveLinks(p, activeFaults(p, faults)))

/** The (saddr, daddr, verdict) triples of a core ruleset. */
function triples(ruleset: string): string[] {
  return [...ruleset.matchAll(/ip saddr (\S+) ip daddr (\S+) (.+)/g)].map(
    (m) => `${m[1]}>${m[2]} ${m[3]}`
  )
}

describe('verdict statements', () => {
  it('drop is silent; reject resets TCP and answers everything else with ICMP', () => {
    expect(blockStatements('M', 'drop')).toEqual(['M drop'])
    expect(blockStatements('M', 'reject')).toEqual([
      'M meta l4proto tcp reject with tcp reset',
      'M reject with icmpx type admin-prohibited'
    ])
  })

  it('loss uses numgen with 0.01 % steps; 0 is no rule, 100 a plain drop', () => {
    expect(lossStatement('M', 0)).toBeNull()
    expect(lossStatement('M', 0.004)).toBeNull()
    expect(lossStatement('M', 30)).toBe('M numgen random mod 10000 < 3000 drop')
    expect(lossStatement('M', 0.5)).toBe('M numgen random mod 10000 < 50 drop')
    expect(lossStatement('M', 100)).toBe('M drop')
  })
})

describe('coreRuleset (room faults → core forward rules)', () => {
  it('is an empty replace when nothing is faulted', () => {
    expect(core([])).toBe(RESET)
    expect(replaceTable([])).toBe(RESET)
  })

  it('writes the whole table atomically, letting delay-router packets pass', () => {
    expect(
      core([
        { action: 'partition', target: 'room1', peer: 'room2', direction: 'to', mode: 'reject' }
      ])
    ).toBe(
      RESET +
        'table inet drstudio {\n' +
        '  chain forward {\n' +
        '    type filter hook forward priority 0; policy accept;\n' +
        '    iifname "drstun" accept\n' +
        `    ip saddr ${R1} ip daddr ${R2} meta l4proto tcp reject with tcp reset\n` +
        `    ip saddr ${R1} ip daddr ${R2} reject with icmpx type admin-prohibited\n` +
        '  }\n' +
        '}\n'
    )
  })

  it('covers every direction × mode of a partition, from either end', () => {
    const verdict = {
      drop: ['drop'],
      reject: ['meta l4proto tcp reject with tcp reset', 'reject with icmpx type admin-prohibited']
    }
    const expected = {
      to: [`${R1}>${R2}`],
      from: [`${R2}>${R1}`],
      both: [`${R1}>${R2}`, `${R2}>${R1}`]
    }
    for (const mode of ['drop', 'reject'] as const) {
      for (const direction of ['to', 'from', 'both'] as const) {
        const want = expected[direction].flatMap((pair) => verdict[mode].map((v) => `${pair} ${v}`))
        expect(
          triples(core([{ action: 'partition', target: 'room1', peer: 'room2', direction, mode }])),
          `${direction} ${mode}`
        ).toEqual(want)
        const flipped = { to: 'from', from: 'to', both: 'both' } as const
        expect(
          triples(
            core([
              {
                action: 'partition',
                target: 'room2',
                peer: 'room1',
                direction: flipped[direction],
                mode
              }
            ])
          )
        ).toEqual(want)
      }
    }
  })

  it('isolates a room from every other room both ways, engine traffic untouched', () => {
    const rules = triples(core([{ action: 'isolate', target: 'room3' }]))
    expect(rules).toEqual([
      `${R1}>${R3} drop`,
      `${R3}>${R1} drop`,
      `${R2}>${R3} drop`,
      `${R3}>${R2} drop`
    ])
    expect(core([{ action: 'isolate', target: 'room3' }])).not.toContain('198.18.0.')
  })

  it('adds loss per direction, configured or faulted, and a cut wins over loss', () => {
    const p = testPlan({ mode: 'auto', links: { 'room2~room3': { lossPct: 1 } } })
    expect(
      triples(
        core(
          [{ action: 'loss', target: 'room1', peer: 'room2', lossPct: 30, direction: 'from' }],
          p
        )
      )
    ).toEqual([
      `${R2}>${R1} numgen random mod 10000 < 3000 drop`,
      `${R2}>${R3} numgen random mod 10000 < 100 drop`,
      `${R3}>${R2} numgen random mod 10000 < 100 drop`
    ])
    expect(
      triples(
        core([
          { action: 'loss', target: 'room1', peer: 'room2', lossPct: 30 },
          { action: 'partition', target: 'room1', peer: 'room2', direction: 'to' }
        ])
      )
    ).toEqual([`${R1}>${R2} drop`, `${R2}>${R1} numgen random mod 10000 < 3000 drop`])
  })

  it('leaves delay and bandwidth out of nftables', () => {
    expect(
      core([
        { action: 'delay', target: 'room1', peer: 'room2', latencyMs: 10 },
        { action: 'bandwidth', target: 'room1', peer: 'room2', mbit: 10 }
      ])
    ).toBe(RESET)
  })
})

describe('nodeRuleset (node faults → rules in the node namespace)', () => {
  const text = (node: string, faults: NetworkFaultInput[]) =>
    nodeRuleset(plan, nodeRules(plan, activeFaults(plan, faults)).get(node) ?? [])

  it('matches the node interface and the peer, in output for what it sends, input for what it gets', () => {
    const out = text('a1', [
      { action: 'partition', target: 'a1', peer: 'b1', direction: 'to', mode: 'reject' },
      { action: 'loss', target: 'a1', peer: 'room3', direction: 'from', lossPct: 25 }
    ])
    expect(out).toBe(
      RESET +
        'table inet drstudio {\n' +
        '  chain output {\n' +
        '    type filter hook output priority 0; policy accept;\n' +
        '    oifname "eth0" ip daddr 198.18.2.10/32 meta l4proto tcp reject with tcp reset\n' +
        '    oifname "eth0" ip daddr 198.18.2.10/32 reject with icmpx type admin-prohibited\n' +
        '  }\n' +
        '  chain input {\n' +
        '    type filter hook input priority 0; policy accept;\n' +
        `    iifname "eth0" ip saddr ${R3} numgen random mod 10000 < 2500 drop\n` +
        '  }\n' +
        '}\n'
    )
  })

  it('isolate keeps only the engine address', () => {
    const out = text('c1', [{ action: 'isolate', target: 'c1', mode: 'drop' }])
    expect(out).toContain('oifname "eth0" ip daddr != 198.18.0.1 drop')
    expect(out).toContain('iifname "eth0" ip saddr != 198.18.0.1 drop')
  })

  it('is an empty replace for an unfaulted node', () => {
    expect(text('a2', [{ action: 'partition', target: 'a1', peer: 'b1' }])).toBe(RESET)
  })
})

describe('shaping (bandwidth, and delay where netem exists)', () => {
  const links = (faults: NetworkFaultInput[]) => effectiveLinks(plan, activeFaults(plan, faults))

  it('shapes on the core end of the destination room uplink, one class per source room', () => {
    const shaped = shapingPlan(
      plan,
      links([{ action: 'bandwidth', target: 'room1', peer: 'room2', mbit: 10, direction: 'to' }]),
      'tun'
    )
    expect([...shaped.entries()].filter(([, f]) => f.length)).toEqual([
      ['r2', [{ srcRoom: 'room1', srcCidr: R1, classMinor: '11', rateMbit: 10, netem: null }]]
    ])
    expect(tcBatch('r2', shaped.get('r2')!)).toEqual([
      'qdisc add dev r2 root handle 1: htb default 1',
      'class add dev r2 parent 1: classid 1:1 htb rate 100gbit quantum 200000',
      'class add dev r2 parent 1: classid 1:11 htb rate 10000kbit ceil 10000kbit quantum 125000',
      `filter add dev r2 parent 1: protocol ip prio 1 u32 match ip src ${R1} flowid 1:11`
    ])
    expect(tcBatch('r1', [])).toEqual([])
  })

  it('caps both ways for direction both', () => {
    const shaped = shapingPlan(
      plan,
      links([{ action: 'bandwidth', target: 'room3', peer: 'room1', mbit: 1 }]),
      'tun'
    )
    expect(shaped.get('r1')!.map((f) => f.srcRoom)).toEqual(['room3'])
    expect(shaped.get('r3')!.map((f) => f.srcRoom)).toEqual(['room1'])
    expect(shaped.get('r2')).toEqual([])
  })

  it('puts delay in netem leaves only in netem mode', () => {
    const delayed = links([
      {
        action: 'delay',
        target: 'room1',
        peer: 'room2',
        latencyMs: 20,
        jitterMs: 2,
        direction: 'to'
      }
    ])
    expect([...shapingPlan(plan, delayed, 'tun').values()].flat()).toEqual([])
    const netem = shapingPlan(plan, delayed, 'netem').get('r2')!
    expect(netem).toEqual([
      {
        srcRoom: 'room1',
        srcCidr: R1,
        classMinor: '11',
        rateMbit: null,
        netem: { latencyMs: 20, jitterMs: 2 }
      }
    ])
    expect(tcBatch('r2', netem)).toContain(
      'qdisc add dev r2 parent 1:11 handle 11: netem delay 20ms 2ms limit 10000'
    )
  })
})

describe('delayedPairs (latency through the TUN router)', () => {
  it('gives each delayed direction a policy rule from its source uplink and a router line in µs', () => {
    const pairs = delayedPairs(
      plan,
      effectiveLinks(
        plan,
        activeFaults(plan, [
          { action: 'delay', target: 'room3', peer: 'room1', latencyMs: 20, jitterMs: 2.5 }
        ])
      )
    )
    expect(pairs.map((p) => [p.key, p.iif, delayRuleArgs(p).join(' '), routerSetLine(p)])).toEqual([
      [
        'room1>room3',
        'r1',
        `pref 1019 iif r1 from ${R1} to ${R3} lookup 100`,
        `set ${R1} ${R3} 20000 2500`
      ],
      [
        'room3>room1',
        'r3',
        `pref 1049 iif r3 from ${R3} to ${R1} lookup 100`,
        `set ${R3} ${R1} 20000 2500`
      ]
    ])
  })

  it('has a distinct preference for every directed pair of a full lab', () => {
    const rooms = Array.from({ length: 15 }, (_, i) => `r${i}`)
    const big = planNetwork({ instance: 0, rooms, nodes: [] })
    const all = delayedPairs(
      big,
      effectiveLinks(
        big,
        activeFaults(
          big,
          rooms
            .slice(1)
            .map(
              (r) => ({ action: 'delay', target: 'r0', peer: r, latencyMs: 1 }) as NetworkFaultInput
            )
        )
      )
    )
    expect(all).toHaveLength(28)
    expect(new Set(all.map((p) => p.pref)).size).toBe(28)
  })

  it('is empty without latency or jitter', () => {
    expect(delayedPairs(plan, effectiveLinks(plan, []))).toEqual([])
  })
})
