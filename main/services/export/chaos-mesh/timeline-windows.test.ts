import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { scenarioSchema } from '../../../../common/scenario/schema'
import type { ScenarioInput } from '../../../../common/scenario/schema'
import { topologySchema } from '../../../../common/topology/schema'
import { chaosSpec } from './chaos-objects'
import { ChaosExportError, planTimeline } from './timeline-windows'

function topology(name = 'two-rooms', edit: (d: Record<string, unknown>) => void = () => {}) {
  const doc = JSON.parse(readFileSync(`resources/topologies/${name}.json`, 'utf8'))
  edit(doc)
  return topologySchema.parse(doc)
}

function plan(timeline: ScenarioInput['timeline'], topo = topology(), duration = '30s') {
  const scenario = scenarioSchema.parse({
    name: 't',
    topology: topo.name,
    workload: { duration },
    timeline
  })
  return planTimeline(scenario, topo)
}

const ctx = { namespace: 'drs-two-rooms', rooms: new Set(['room1', 'room2']) }

describe('planTimeline: every fault kind of the scenario schema', () => {
  it('kill until start: pod-failure for exactly that span', () => {
    const p = plan([
      { at: '5s', action: 'kill', target: 'all brokers of room1' },
      { at: '12s', action: 'start', target: 'all brokers of room1' }
    ])
    expect(p.windows).toEqual([
      { kind: 'pod-failure', nodes: ['broker-1'], startMs: 5000, endMs: 12000 }
    ])
    expect(chaosSpec(ctx, p.windows[0]!)).toEqual({
      templateType: 'PodChaos',
      podChaos: {
        action: 'pod-failure',
        mode: 'all',
        selector: {
          namespaces: ['drs-two-rooms'],
          labelSelectors: { 'drstudio.io/node': 'broker-1' }
        }
      }
    })
  })

  it('stop never started again: down until the end of the workload', () => {
    const p = plan([{ at: '5s', action: 'stop', target: 'ns-1' }], topology(), '20s')
    expect(p.windows).toEqual([
      { kind: 'pod-failure', nodes: ['ns-1'], startMs: 5000, endMs: 20000 }
    ])
    expect(p.endMs).toBe(20000)
  })

  it('restart of a running node: an instant pod-kill; restart of a killed node: the end of its failure', () => {
    const p = plan([
      { at: '3s', action: 'restart', target: 'broker-2' },
      { at: '5s', action: 'kill', target: 'broker-1' },
      { at: '8s', action: 'restart', target: 'broker-1' }
    ])
    expect(p.windows).toEqual([
      { kind: 'pod-kill', nodes: ['broker-2'], startMs: 3000 },
      { kind: 'pod-failure', nodes: ['broker-1'], startMs: 5000, endMs: 8000 }
    ])
    expect(chaosSpec(ctx, p.windows[0]!)).toMatchObject({
      podChaos: { action: 'pod-kill', gracePeriod: 0 }
    })
  })

  it('a second kill of a node already down changes nothing; start of a running node neither', () => {
    const p = plan([
      { at: '2s', action: 'start', target: 'broker-1' },
      { at: '5s', action: 'kill', target: 'broker-1' },
      { at: '6s', action: 'kill', target: 'broker-1' },
      { at: '9s', action: 'start', target: 'broker-1' }
    ])
    expect(p.windows).toEqual([
      { kind: 'pod-failure', nodes: ['broker-1'], startMs: 5000, endMs: 9000 }
    ])
  })

  it('nodes down over the same span share one PodChaos', () => {
    const p = plan([
      { at: '5s', action: 'kill', target: ['ns-1', 'broker-1'] },
      { at: '9s', action: 'start', target: ['ns-1', 'broker-1'] }
    ])
    expect(p.windows).toEqual([
      { kind: 'pod-failure', nodes: ['ns-1', 'broker-1'], startMs: 5000, endMs: 9000 }
    ])
    expect(chaosSpec(ctx, p.windows[0]!)).toMatchObject({
      podChaos: {
        selector: {
          expressionSelectors: [
            { key: 'drstudio.io/node', operator: 'In', values: ['ns-1', 'broker-1'] }
          ]
        }
      }
    })
  })

  it('pause and resume: no object, a note that says container-kill is not the same', () => {
    const p = plan([
      { at: '5s', action: 'pause', target: 'broker-1' },
      { at: '9s', action: 'resume', target: 'broker-1' }
    ])
    expect(p.windows).toEqual([])
    expect(p.notes.map((n) => n.atMs)).toEqual([5000, 9000])
    expect(p.notes[0]!.instead).toMatch(/cannot pause.*container-kill is NOT the same/)
  })

  it('isolate until heal: a partition of the room from everything else, both ways', () => {
    const p = plan([
      { at: '5s', action: 'isolate', target: 'room1' },
      { at: '15s', action: 'heal' }
    ])
    expect(p.windows).toEqual([
      {
        kind: 'network',
        chaos: { action: 'isolate', target: 'room1' },
        startMs: 5000,
        endMs: 15000
      }
    ])
    expect(chaosSpec(ctx, p.windows[0]!)).toEqual({
      templateType: 'NetworkChaos',
      networkChaos: {
        action: 'partition',
        mode: 'all',
        selector: {
          namespaces: ['drs-two-rooms'],
          labelSelectors: { 'drstudio.io/room': 'room1' }
        },
        direction: 'both',
        target: {
          mode: 'all',
          selector: {
            namespaces: ['drs-two-rooms'],
            expressionSelectors: [{ key: 'drstudio.io/room', operator: 'NotIn', values: ['room1'] }]
          }
        }
      }
    })
  })

  it('partition of one node pair, one way: direction to, node selectors', () => {
    const p = plan([
      { at: '5s', action: 'partition', target: 'broker-1', peer: 'ns-2', direction: 'to' }
    ])
    const spec = chaosSpec(ctx, p.windows[0]!)
    expect(spec).toMatchObject({
      networkChaos: {
        action: 'partition',
        direction: 'to',
        selector: { labelSelectors: { 'drstudio.io/node': 'broker-1' } },
        target: { selector: { labelSelectors: { 'drstudio.io/node': 'ns-2' } } }
      }
    })
    expect(p.windows[0]).toMatchObject({ startMs: 5000, endMs: 30000 })
  })

  it('reject mode is exported as a drop, with a note', () => {
    const p = plan([
      { at: '5s', action: 'partition', target: 'room1', peer: 'room2', mode: 'reject' }
    ])
    expect(p.windows).toHaveLength(1)
    expect(p.notes[0]!.instead).toMatch(/drop/)
  })

  it('delay, loss and bandwidth map to NetworkChaos delay, loss and bandwidth (rate, limit, buffer)', () => {
    const one = (step: NonNullable<ScenarioInput['timeline']>[number]) =>
      chaosSpec(ctx, plan([step]).windows[0]!)
    expect(
      one({ at: 0, action: 'delay', target: 'room1', peer: 'room2', latencyMs: 20, jitterMs: 2 })
    ).toMatchObject({
      networkChaos: {
        action: 'delay',
        direction: 'both',
        delay: { latency: '20ms', jitter: '2ms' }
      }
    })
    expect(
      one({ at: 0, action: 'loss', target: 'room1', peer: 'room2', lossPct: 30 })
    ).toMatchObject({
      networkChaos: { action: 'loss', loss: { loss: '30' } }
    })
    expect(
      one({ at: 0, action: 'bandwidth', target: 'room1', peer: 'room2', mbit: 0.2 })
    ).toMatchObject({
      networkChaos: {
        action: 'bandwidth',
        bandwidth: { rate: '200kbit', limit: 15140, buffer: 3028 }
      }
    })
    expect(
      one({ at: 0, action: 'bandwidth', target: 'room1', peer: 'room2', mbit: 100 })
    ).toMatchObject({
      networkChaos: { bandwidth: { rate: '100mbit', limit: 1_250_000, buffer: 125_000 } }
    })
  })

  it('heal with a target heals only the faults naming it', () => {
    const p = plan([
      { at: '2s', action: 'loss', target: 'broker-1', peer: 'ns-2', lossPct: 10 },
      { at: '2s', action: 'partition', target: 'room1', peer: 'room2' },
      { at: '6s', action: 'heal', target: 'broker-1' }
    ])
    expect(
      p.windows.map((w) => [
        w.kind === 'network' && w.chaos.action,
        w.startMs,
        'endMs' in w && w.endMs
      ])
    ).toEqual([
      ['netem', 2000, 6000],
      ['partition', 2000, 30000]
    ])
  })
})

describe('planTimeline: overlapping faults on one pair', () => {
  it('delay, then loss on the same pair: the delay object ends and ONE netem object carries both', () => {
    const p = plan([
      { at: '5s', action: 'delay', target: 'room1', peer: 'room2', latencyMs: 50 },
      { at: '10s', action: 'loss', target: 'room2', peer: 'room1', lossPct: 5 },
      { at: '15s', action: 'heal', target: 'room1', peer: 'room2' }
    ])
    expect(p.windows.map((w) => ({ ...w }))).toEqual([
      {
        kind: 'network',
        chaos: {
          action: 'netem',
          from: 'room1',
          to: 'room2',
          direction: 'both',
          delay: { latencyMs: 50, jitterMs: 0 }
        },
        startMs: 5000,
        endMs: 10000
      },
      {
        kind: 'network',
        chaos: {
          action: 'netem',
          from: 'room1',
          to: 'room2',
          direction: 'both',
          delay: { latencyMs: 50, jitterMs: 0 },
          lossPct: 5
        },
        startMs: 10000,
        endMs: 15000
      }
    ])
    expect(chaosSpec(ctx, p.windows[1]!)).toMatchObject({
      networkChaos: { action: 'netem', delay: { latency: '50ms' }, loss: { loss: '5' } }
    })
    // At no instant do two shaping objects of the pair overlap.
    expect(p.windows[0]!.kind === 'network' && p.windows[0]!.endMs).toBe(p.windows[1]!.startMs)
  })

  it("the topology's configured link is the base the faults combine with, from the start", () => {
    const wan = topology('two-rooms-wan')
    const p = plan(
      [{ at: '4s', action: 'loss', target: 'room1', peer: 'room2', lossPct: 10 }],
      wan,
      '10s'
    )
    expect(
      p.windows.map((w) => [
        w.kind === 'network' && w.chaos.action === 'netem' && w.chaos.lossPct,
        w.startMs
      ])
    ).toEqual([
      [undefined, 0],
      [10, 4000]
    ])
  })

  it('an isolated room keeps no shaping object (its packets are cut anyway)', () => {
    const p = plan(
      [
        { at: '2s', action: 'delay', target: 'room1', peer: 'room2', latencyMs: 50 },
        { at: '5s', action: 'isolate', target: 'room1' }
      ],
      topology(),
      '10s'
    )
    expect(p.windows.map((w) => [w.kind === 'network' && w.chaos.action, w.startMs])).toEqual([
      ['netem', 2000],
      ['isolate', 5000]
    ])
  })
})

describe('planTimeline: what cannot be exported', () => {
  it('client targets become notes', () => {
    const p = plan([{ at: '5s', action: 'kill', target: 'consumers of room1' }])
    expect(p.windows).toEqual([])
    expect(p.notes[0]!.instead).toMatch(/consumer-1.*room worker pod/)
  })

  it('a run-time role is a note, and a later restart of a node it may have been is one too', () => {
    const topo = topology('three-rooms-controller')
    const p = plan(
      [
        { at: '5s', action: 'kill', target: 'master of group broker-a' },
        { at: '9s', action: 'restart', target: 'broker-a-1' }
      ],
      topo
    )
    expect(p.windows).toEqual([])
    expect(p.notes.map((n) => n.atMs)).toEqual([5000, 9000])
    expect(p.notes[1]!.instead).toMatch(/state here is unknown/)
  })

  it('an id that is neither room nor node is an error naming it and the rooms', () => {
    expect(() => plan([{ at: '5s', action: 'isolate', target: 'room9' }])).toThrow(ChaosExportError)
    expect(() => plan([{ at: '5s', action: 'isolate', target: 'room9' }])).toThrow(
      /"room9" is neither a room nor a server node of two-rooms; name a room \(room1, room2\)/
    )
  })
})
