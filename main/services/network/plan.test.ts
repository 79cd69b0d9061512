import { describe, expect, it } from 'vitest'
import { planNetwork, upSteps } from './plan'

const input = {
  instance: 1,
  rooms: ['room1', 'room2'],
  nodes: [
    { id: 'ns-1', room: 'room1' },
    { id: 'broker-1', room: 'room1' },
    { id: 'ns-2', room: 'room2' }
  ]
}

describe('planNetwork', () => {
  it('gives the instance its slice, each room a /24 and each node its own address', () => {
    const plan = planNetwork(input)
    expect(plan.slice).toBe('198.18.16.0/20')
    expect(plan.host).toEqual({
      ifName: 'drs1-host',
      addr: '198.18.16.1',
      coreAddr: '198.18.16.2',
      linkCidr: '198.18.16.0/30'
    })
    expect(plan.core.ns).toBe('drs-1-core')
    expect(plan.rooms).toEqual([
      {
        id: 'room1',
        index: 1,
        ns: 'drs-1-r-room1',
        subnet: '198.18.17.0/24',
        gateway: '198.18.17.1',
        coreIf: 'r1'
      },
      {
        id: 'room2',
        index: 2,
        ns: 'drs-1-r-room2',
        subnet: '198.18.18.0/24',
        gateway: '198.18.18.1',
        coreIf: 'r2'
      }
    ])
    expect(plan.nodes).toEqual([
      { id: 'ns-1', room: 'room1', ns: 'drs-1-n-ns-1', ip: '198.18.17.10', roomIf: 'n1' },
      { id: 'broker-1', room: 'room1', ns: 'drs-1-n-broker-1', ip: '198.18.17.11', roomIf: 'n2' },
      { id: 'ns-2', room: 'room2', ns: 'drs-1-n-ns-2', ip: '198.18.18.10', roomIf: 'n1' }
    ])
  })

  it('keeps every interface name within 15 characters', () => {
    const plan = planNetwork({ ...input, instance: 31 })
    const names = [
      plan.host.ifName,
      ...plan.rooms.map((r) => r.coreIf),
      ...plan.nodes.map((n) => n.roomIf),
      'drstun',
      'uplink'
    ]
    for (const n of names) expect(n.length).toBeLessThanOrEqual(15)
  })

  it('resolves each room pair from the topology network settings, once per unordered pair', () => {
    const plan = planNetwork({
      ...input,
      rooms: ['room1', 'room2', 'room3'],
      network: {
        mode: 'auto',
        links: { default: { latencyMs: 2 }, 'room3~room1': { bandwidthMbit: 100 } }
      }
    })
    expect(
      plan.links.map((l) => [l.key, l.configured.latencyMs, l.configured.bandwidthMbit])
    ).toEqual([
      ['room1~room2', 2, null],
      ['room1~room3', 2, 100],
      ['room2~room3', 2, null]
    ])
  })

  it('honours another range and refuses what does not fit, naming the fix', () => {
    expect(planNetwork({ ...input, instance: 0, range: '10.213.0.0/16' }).nodes[0]!.ip).toBe(
      '10.213.1.10'
    )
    expect(() => planNetwork({ ...input, instance: 32 })).toThrow(
      /instances 0\.\.31.*DRSTUDIO_NET_RANGE/
    )
    expect(() => planNetwork({ ...input, range: '8.8.0.0/16' })).toThrow(/not a private range/)
    expect(() =>
      planNetwork({ ...input, rooms: Array.from({ length: 16 }, (_, i) => `r${i}`) })
    ).toThrow(/at most 15 rooms/)
    expect(() => planNetwork({ ...input, nodes: [{ id: 'x', room: 'room9' }] })).toThrow(
      /node "x" is in room "room9"/
    )
    expect(() => planNetwork({ ...input, nodes: [{ id: 'room1', room: 'room1' }] })).toThrow(
      /"room1" is used twice/
    )
    const many = Array.from({ length: 246 }, (_, i) => ({ id: `n${i}`, room: 'room1' }))
    expect(() => planNetwork({ ...input, nodes: many })).toThrow(/more than 245 nodes/)
  })
})

describe('upSteps', () => {
  it('builds namespaces first, the host route last, and never forwards outside the core', () => {
    const plan = planNetwork(input)
    const steps = upSteps(plan)
    expect(steps[0]!.input).toBe(
      [
        'drs-1-core',
        'drs-1-r-room1',
        'drs-1-r-room2',
        'drs-1-n-ns-1',
        'drs-1-n-broker-1',
        'drs-1-n-ns-2'
      ]
        .map((n) => `netns add ${n}`)
        .join('\n') + '\n'
    )
    const forwarding = steps.filter((s) => s.argv.some((a) => a.includes('ip_forward')))
    expect(forwarding.map((s) => s.argv.slice(0, 4))).toEqual([
      ['ip', 'netns', 'exec', 'drs-1-core']
    ])
    const last = steps[steps.length - 1]!
    expect(last.argv).toEqual(['ip', '-batch', '-'])
    expect(last.input).toContain('route add 198.18.16.0/20 via 198.18.16.2 dev drs1-host')
    const room1 = steps.find((s) => s.argv.includes('drs-1-r-room1'))!
    expect(room1.input).toContain('link add uplink type veth peer name r1 netns drs-1-core')
    expect(room1.input).toContain('link add n2 type veth peer name eth0 netns drs-1-n-broker-1')
    const node = steps.find((s) => s.argv.includes('drs-1-n-broker-1'))!
    expect(node.input).toBe(
      'link set lo up\naddr add 198.18.17.11/24 dev eth0\nlink set eth0 up\nroute add 198.18.16.0/20 via 198.18.17.1\n'
    )
    // Nothing in any step adds a default route: the only routes are the slice's.
    for (const s of steps) expect(s.input ?? '').not.toMatch(/route add default/)
  })
})
