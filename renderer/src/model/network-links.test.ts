import { describe, expect, it } from 'vitest'
import type { NetworkStatusPayload } from '../../../common/contract'
import type { LinkView } from './network-links'
import {
  canvasLinks,
  designLinks,
  linkAriaLabel,
  linkCaption,
  linkState,
  networkShapesOf,
  replayLinkFaults,
  shapeText
} from './network-links'

const open = { blocked: null, lossPct: 0, latencyMs: 0, jitterMs: 0, bandwidthMbit: null }
const wan = { mode: 'auto' as const, links: { default: { latencyMs: 20, jitterMs: 2 } } }

function view(patch: Partial<LinkView>): LinkView {
  return {
    key: 'room1~room2',
    a: 'room1',
    b: 'room2',
    configured: { latencyMs: 0, jitterMs: 0, lossPct: 0, bandwidthMbit: null },
    ab: open,
    ba: open,
    faulted: false,
    source: 'lab',
    notApplied: null,
    ...patch
  }
}

describe('shapeText', () => {
  it('says latency, loss and bandwidth, or cut, or 0 ms for an untouched link', () => {
    expect(shapeText(open)).toBe('0 ms')
    expect(shapeText({ ...open, latencyMs: 20 })).toBe('20 ms')
    expect(shapeText({ ...open, latencyMs: 20, jitterMs: 2 })).toBe('20 ms ± 2')
    expect(shapeText({ ...open, lossPct: 30 })).toBe('30 % loss')
    expect(shapeText({ ...open, bandwidthMbit: 10 })).toBe('10 Mbit/s')
    expect(shapeText({ ...open, latencyMs: 5, lossPct: 0.5, bandwidthMbit: 100 })).toBe(
      '5 ms · 0.5 % loss · 100 Mbit/s'
    )
    expect(shapeText({ ...open, blocked: 'reject', latencyMs: 20 })).toBe('cut')
  })
})

describe('designLinks', () => {
  it('has one link per room pair in topology order, shaped as configured', () => {
    const links = designLinks(['room1', 'room2', 'room3'], {
      ...wan,
      links: { ...wan.links, 'room3~room1': { latencyMs: 80 } }
    })
    expect(links.map((l) => l.key)).toEqual(['room1~room2', 'room1~room3', 'room2~room3'])
    expect(links[0]!.ab).toEqual({ ...open, latencyMs: 20, jitterMs: 2 })
    expect(links[1]!.ba.latencyMs).toBe(80)
    expect(links.every((l) => !l.faulted && l.source === 'design')).toBe(true)
  })

  it('lays room faults over in order: isolate cuts every link of the room, partition one direction', () => {
    const links = designLinks(['room1', 'room2', 'room3'], undefined, [
      { action: 'isolate', target: 'room1', mode: 'reject' },
      { action: 'partition', target: 'room3', peer: 'room2', direction: 'to' },
      { action: 'delay', target: 'room2', peer: 'room3', latencyMs: 50, direction: 'from' }
    ])
    const [r12, r13, r23] = links
    expect([r12!.ab.blocked, r12!.ba.blocked, r13!.ab.blocked, r13!.ba.blocked]).toEqual([
      'reject',
      'reject',
      'reject',
      'reject'
    ])
    // room3 → room2 is cut (drop by default) and delayed by the later fault; room2 → room3 is open.
    expect(r23!.ba).toEqual({ ...open, blocked: 'drop', latencyMs: 50 })
    expect(r23!.ab).toEqual(open)
    expect(links.every((l) => l.faulted)).toBe(true)
  })

  it('leaves links alone for node-level faults', () => {
    const links = designLinks(['room1', 'room2'], undefined, [
      { action: 'partition', target: 'broker-1', peer: 'room2' },
      { action: 'isolate', target: 'ns-1' }
    ])
    expect(links[0]).toMatchObject({ ab: open, ba: open, faulted: false })
  })
})

describe('canvasLinks', () => {
  const status = (patch: Partial<NetworkStatusPayload>): NetworkStatusPayload => ({
    mode: 'namespaces',
    faultsDisabled: null,
    notice: null,
    links: [],
    faults: [],
    ...patch
  })
  const labLink = {
    key: 'room1~room2',
    a: 'room1',
    b: 'room2',
    configured: { latencyMs: 20, jitterMs: 0, lossPct: 0, bandwidthMbit: null },
    ab: { ...open, blocked: 'drop' as const, latencyMs: 20 },
    ba: { ...open, latencyMs: 20 },
    faultIds: ['f1']
  }
  const rooms = ['room1', 'room2']

  it('shows the lab links while running on namespaces', () => {
    const [l] = canvasLinks({
      rooms,
      network: undefined,
      running: true,
      status: status({ links: [labLink] }),
      replay: null
    })
    expect(l).toMatchObject({ source: 'lab', faulted: true, ab: labLink.ab, notApplied: null })
    expect(l!.configured.latencyMs).toBe(20)
  })

  it('falls back to the design, marked not applied, while rooms share loopback', () => {
    const [l] = canvasLinks({
      rooms,
      network: wan,
      running: true,
      status: status({
        mode: 'loopback',
        faultsDisabled: 'network faults disabled: CAP_NET_ADMIN'
      }),
      replay: null
    })
    expect(l).toMatchObject({ source: 'design', ab: { latencyMs: 20 } })
    expect(l!.notApplied).toBe('rooms share loopback (network faults disabled: CAP_NET_ADMIN)')
  })

  it('shows the design when not running, whatever the last status said', () => {
    const [l] = canvasLinks({
      rooms,
      network: wan,
      running: false,
      status: status({ links: [labLink] }),
      replay: null
    })
    expect(l).toMatchObject({ source: 'design', notApplied: null, ab: { blocked: null } })
  })

  it('replays the faults of a recorded run over its topology', () => {
    const [l] = canvasLinks({
      rooms,
      network: undefined,
      running: true,
      status: status({ links: [labLink] }),
      replay: [{ action: 'isolate', target: 'room2', mode: 'drop' }]
    })
    expect(l).toMatchObject({ source: 'replay', ab: { blocked: 'drop' }, ba: { blocked: 'drop' } })
  })
})

describe('link captions', () => {
  const cut = { ...open, blocked: 'drop' as const }
  it('reads one caption when both directions agree', () => {
    expect(
      linkCaption(view({ ab: { ...open, latencyMs: 20 }, ba: { ...open, latencyMs: 20 } }), true)
    ).toEqual({ main: '20 ms', note: null })
    expect(linkCaption(view({ ab: cut, ba: cut, faulted: true }), true)).toEqual({
      main: 'cut',
      note: null
    })
  })

  it('points a one-way cut in the direction it cuts, as drawn left to right', () => {
    const v = view({ ab: cut, faulted: true })
    expect(linkCaption(v, true).main).toBe('cut →')
    expect(linkCaption(v, false).main).toBe('← cut')
    const slow = view({ ab: cut, ba: { ...open, latencyMs: 20 }, faulted: true })
    expect(linkCaption(slow, true).main).toBe('cut → · ← 20 ms')
    expect(linkCaption(slow, false).main).toBe('20 ms → · ← cut')
  })

  it('shows each direction when a fault shapes one way only, and what the link is configured to', () => {
    const v = view({
      configured: { latencyMs: 20, jitterMs: 0, lossPct: 0, bandwidthMbit: null },
      ab: { ...open, latencyMs: 80 },
      ba: { ...open, latencyMs: 20 },
      faulted: true
    })
    expect(linkCaption(v, true)).toEqual({ main: '→ 80 ms · ← 20 ms', note: 'configured 20 ms' })
    const lossy = view({
      ab: { ...open, lossPct: 30 },
      ba: { ...open, lossPct: 30 },
      faulted: true
    })
    expect(linkCaption(lossy, true)).toEqual({ main: '30 % loss', note: 'configured 0 ms' })
  })

  it('says when the configured shape is not applied (loopback)', () => {
    const v = view({
      source: 'design',
      notApplied: 'rooms share loopback',
      ab: { ...open, latencyMs: 20 },
      ba: { ...open, latencyMs: 20 }
    })
    expect(linkCaption(v, true)).toEqual({ main: '20 ms', note: 'not applied: loopback' })
  })

  it('names the link, both directions and the cut mode for screen readers and tests', () => {
    expect(linkAriaLabel(view({ ab: cut, ba: cut, faulted: true }))).toBe(
      'Network link room1 ~ room2: both ways cut (drop); configured 0 ms'
    )
    expect(linkAriaLabel(view({ ab: { ...cut, blocked: 'reject' }, faulted: true }))).toBe(
      'Network link room1 ~ room2: room1 → room2 cut (reject); room2 → room1 0 ms; configured 0 ms'
    )
    expect(linkAriaLabel(view({ source: 'replay' }))).toBe(
      'Network link room1 ~ room2 (replay): both ways 0 ms'
    )
  })

  it('states: cut, cut one way, faulted, configured', () => {
    expect(linkState(view({ ab: cut, ba: cut }))).toBe('cut')
    expect(linkState(view({ ba: cut }))).toBe('cut-one-way')
    expect(linkState(view({ faulted: true }))).toBe('faulted')
    expect(linkState(view({}))).toBe('configured')
  })
})

describe('replayed links', () => {
  it('takes direction and mode from the fault row written with each network-fault row', () => {
    const events = [
      {
        kind: 'fault',
        atMs: 1000,
        data: {
          action: 'partition',
          ok: true,
          network: {
            action: 'partition',
            target: 'room1',
            peer: 'room2',
            direction: 'to',
            mode: 'reject'
          }
        }
      },
      { kind: 'fault', atMs: 2000, data: { action: 'kill', nodes: ['broker-1'], ok: true } },
      {
        kind: 'fault',
        atMs: 3000,
        data: { action: 'heal', ok: true, network: { action: 'heal', target: 'room1' } }
      }
    ]
    const shapes = networkShapesOf(events)
    expect([...shapes.keys()]).toEqual(['1000|partition:room1:room2'])
    const faults = replayLinkFaults(
      [
        {
          at: 1000,
          key: 'partition:room1:room2',
          action: 'partition',
          target: ['room1'],
          peer: ['room2'],
          params: {}
        },
        {
          at: 1500,
          key: 'bandwidth:room2:room1',
          action: 'bandwidth',
          target: ['room2'],
          peer: ['room1'],
          params: { bandwidthKbit: 5000 }
        }
      ],
      shapes
    )
    expect(faults[0]).toMatchObject({
      direction: 'to',
      mode: 'reject',
      target: 'room1',
      peer: 'room2'
    })
    // No fault row behind it (an older ledger): both ways, figures from the network-fault row.
    expect(faults[1]).toMatchObject({ direction: 'both', mbit: 5 })
    const [l] = designLinks(['room1', 'room2'], undefined, faults, 'replay')
    expect(l!.ab).toMatchObject({ blocked: 'reject', bandwidthMbit: 5 })
    expect(l!.ba).toMatchObject({ blocked: null, bandwidthMbit: 5 })
  })
})
