import { describe, expect, it } from 'vitest'
import type { NetworkStatusPayload } from '../../../common/contract'
import type { NetworkEntry, NetworkGate } from './network-menu'
import {
  faultsBetween,
  faultsBlockedBy,
  faultsNaming,
  latencyBlockedBy,
  linkMenuEntries,
  nodeMenuEntries,
  roomMenuEntries
} from './network-menu'

const status = (patch: Partial<NetworkStatusPayload> = {}): NetworkStatusPayload => ({
  mode: 'namespaces',
  faultsDisabled: null,
  notice: null,
  links: [],
  faults: [],
  ...patch
})
const live: NetworkGate = { running: true, replaying: false, status: status() }
const active = (fault: Record<string, unknown>, id = 'f1') => ({
  id,
  scope: 'room' as const,
  appliedAt: 1,
  fault
})

function byLabel(entries: NetworkEntry[], label: string): NetworkEntry {
  const e = entries.find((x) => x.label === label)
  if (!e) throw new Error(`no entry "${label}" in ${entries.map((x) => x.label).join(', ')}`)
  return e
}

describe('why network faults are greyed out', () => {
  it('needs a running sandbox, not a replay, with faults enabled', () => {
    expect(faultsBlockedBy(live)).toBeNull()
    expect(faultsBlockedBy({ ...live, running: false })).toMatch(/^start the sandbox first/)
    expect(faultsBlockedBy({ ...live, replaying: true })).toMatch(/^a replay shows a recorded run/)
    expect(faultsBlockedBy({ ...live, status: null })).toMatch(/waiting for the sandbox/)
    const loopback = status({
      mode: 'loopback',
      faultsDisabled: 'network faults disabled: CAP_NET_ADMIN (run as root)'
    })
    expect(faultsBlockedBy({ ...live, status: loopback })).toBe(
      'network faults disabled: CAP_NET_ADMIN (run as root)'
    )
  })

  it('greys out latency alone when the sandbox says latency faults are disabled', () => {
    const notice = 'latency faults disabled: missing the delay router; fix: npm run setup'
    const gate = { ...live, status: status({ notice }) }
    expect(faultsBlockedBy(gate)).toBeNull()
    expect(latencyBlockedBy(gate)).toBe(notice)
    expect(latencyBlockedBy(live)).toBeNull()
  })
})

describe('room menu', () => {
  const rooms = ['room1', 'room2']

  it('offers drop/reject, Isolate, Cut, Cut one way, Slow, Lossy, Bandwidth and Heal', () => {
    const entries = roomMenuEntries('room1', rooms, live, 'drop')
    expect(entries.map((e) => e.label)).toEqual([
      'Drop packets',
      'Reject packets',
      'Isolate room1',
      'Cut…',
      'Cut one way…',
      'Slow…',
      'Lossy…',
      'Bandwidth…',
      'Heal room1'
    ])
    expect(
      entries.filter((e) => e.type === 'mode').map((e) => e.type === 'mode' && e.checked)
    ).toEqual([true, false])
  })

  it('isolates in the chosen mode and opens dialogs toward the only other room', () => {
    const entries = roomMenuEntries('room1', rooms, live, 'reject')
    expect(byLabel(entries, 'Isolate room1')).toMatchObject({
      type: 'apply',
      disabled: null,
      faults: [{ action: 'isolate', target: 'room1', mode: 'reject' }]
    })
    expect(byLabel(entries, 'Cut one way…')).toMatchObject({
      type: 'dialog',
      dialog: { kind: 'cut', target: 'room1', peer: 'room2', direction: 'to' }
    })
    // With more rooms the dialog asks for the peer.
    const three = roomMenuEntries('room1', [...rooms, 'room3'], live, 'drop')
    expect(byLabel(three, 'Slow…')).toMatchObject({ dialog: { kind: 'delay', peer: null } })
  })

  it('greys everything out with the reason while the sandbox is stopped', () => {
    const entries = roomMenuEntries('room1', rooms, { ...live, running: false }, 'drop')
    for (const e of entries.filter((x) => x.type !== 'mode')) {
      expect(e.disabled, e.label).toMatch(/^start the sandbox first/)
    }
  })

  it('heals only when a fault names the room, and has nothing to cut with one room', () => {
    expect(byLabel(roomMenuEntries('room1', rooms, live, 'drop'), 'Heal room1').disabled).toBe(
      'no network fault names room1'
    )
    const faulted = {
      ...live,
      status: status({ faults: [active({ action: 'partition', target: 'room2', peer: 'room1' })] })
    }
    expect(byLabel(roomMenuEntries('room1', rooms, faulted, 'drop'), 'Heal room1')).toMatchObject({
      disabled: null,
      faults: [{ action: 'heal', target: 'room1' }]
    })
    expect(
      byLabel(roomMenuEntries('room1', ['room1'], live, 'drop'), 'Isolate room1').disabled
    ).toBe('room1 is the only room: there is no link to act on')
  })
})

describe('link menu', () => {
  it('cuts both ways or one way in the chosen mode', () => {
    const entries = linkMenuEntries('room1', 'room2', live, 'drop')
    expect(byLabel(entries, 'Cut room1 ~ room2')).toMatchObject({
      faults: [
        { action: 'partition', target: 'room1', peer: 'room2', direction: 'both', mode: 'drop' }
      ]
    })
    expect(byLabel(entries, 'Cut room1 → room2 only')).toMatchObject({
      faults: [{ direction: 'to' }]
    })
    expect(byLabel(entries, 'Cut room2 → room1 only')).toMatchObject({
      faults: [{ direction: 'from' }]
    })
    expect(byLabel(entries, 'Isolate room2')).toMatchObject({
      faults: [{ action: 'isolate', target: 'room2' }]
    })
    expect(byLabel(entries, 'Bandwidth…')).toMatchObject({
      dialog: { kind: 'bandwidth', target: 'room1', peer: 'room2', direction: 'both' }
    })
  })

  it('heals the pair, and offers healing an isolated end, which the pair heal does not undo', () => {
    const pair = {
      ...live,
      status: status({ faults: [active({ action: 'loss', target: 'room2', peer: 'room1' })] })
    }
    expect(
      byLabel(linkMenuEntries('room1', 'room2', pair, 'drop'), 'Heal room1 ~ room2')
    ).toMatchObject({
      disabled: null,
      faults: [{ action: 'heal', target: 'room1', peer: 'room2' }]
    })
    const iso = {
      ...live,
      status: status({ faults: [active({ action: 'isolate', target: 'room1' })] })
    }
    const entries = linkMenuEntries('room1', 'room2', iso, 'drop')
    expect(byLabel(entries, 'Heal room1 ~ room2').disabled).toBe(
      'the link is cut by an isolated room; heal that room'
    )
    expect(byLabel(entries, 'Heal room1')).toMatchObject({
      disabled: null,
      faults: [{ action: 'heal', target: 'room1' }]
    })
    expect(entries.some((e) => e.label === 'Heal room2')).toBe(false)
    expect(
      byLabel(linkMenuEntries('room1', 'room2', live, 'drop'), 'Heal room1 ~ room2').disabled
    ).toBe('no network fault between room1 and room2')
  })
})

describe('node menu', () => {
  it('cuts a server from a chosen peer and heals what names it', () => {
    const node = { id: 'broker-1', room: 'room1', ownNamespace: true }
    const [cut, heal] = nodeMenuEntries(node, live)
    expect(cut).toMatchObject({
      label: 'Cut from…',
      disabled: null,
      dialog: { kind: 'cut', target: 'broker-1', peer: null }
    })
    expect(heal!.disabled).toBe('no network fault names broker-1')
    const faulted = {
      ...live,
      status: status({
        faults: [active({ action: 'partition', target: 'ns-2', peer: 'broker-1' })]
      })
    }
    expect(nodeMenuEntries(node, faulted)[1]).toMatchObject({
      label: 'Heal network of broker-1',
      disabled: null,
      faults: [{ action: 'heal', target: 'broker-1' }]
    })
  })

  it('sends clients to their room, whose worker they share', () => {
    const [cut] = nodeMenuEntries({ id: 'producer-1', room: 'room1', ownNamespace: false }, live)
    expect(cut!.disabled).toBe(
      "producer-1 runs in room1's client worker, not in a namespace of its own; cut room1 instead"
    )
  })
})

describe('fault lookups', () => {
  const faults = [
    active({ action: 'isolate', target: 'room1' }, 'a'),
    active({ action: 'delay', target: 'room2', peer: 'room1' }, 'b'),
    active({ action: 'partition', target: 'room2', peer: 'room3' }, 'c')
  ]
  it('finds faults naming an id and faults between a pair (never an isolate)', () => {
    expect(faultsNaming(faults, 'room1').map((f) => f.id)).toEqual(['a', 'b'])
    expect(faultsBetween(faults, 'room1', 'room2').map((f) => f.id)).toEqual(['b'])
    expect(faultsBetween(faults, 'room3', 'room1')).toEqual([])
  })
})
