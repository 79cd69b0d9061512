import { describe, expect, it } from 'vitest'
import { isNetworkTwin } from '../stores/timeline-store'
import { describeLedgerEvent } from './ledger-text'
import { describeNetworkFault } from './network-text'
import { faultMarkers } from './plot-data'

describe('describeNetworkFault', () => {
  it('words every network action, source → destination for one-way faults', () => {
    expect(describeNetworkFault({ action: 'isolate', target: 'room1' })).toBe(
      'isolate room1 (drop)'
    )
    expect(
      describeNetworkFault({
        action: 'partition',
        target: 'room1',
        peer: 'room2',
        direction: 'to',
        mode: 'reject'
      })
    ).toBe('partition room1 → room2 (reject)')
    expect(
      describeNetworkFault({
        action: 'partition',
        target: 'room1',
        peer: 'room2',
        direction: 'from'
      })
    ).toBe('partition room2 → room1 (drop)')
    expect(
      describeNetworkFault({
        action: 'delay',
        target: 'room1',
        peer: 'room2',
        direction: 'both',
        latencyMs: 20,
        jitterMs: 2
      })
    ).toBe('delay room1 ~ room2 20 ms ± 2')
    expect(
      describeNetworkFault({ action: 'delay', target: 'room1', peer: 'room2', latencyMs: 20 })
    ).toBe('delay room1 ~ room2 20 ms')
    expect(
      describeNetworkFault({ action: 'loss', target: 'room1', peer: 'room2', lossPct: 30 })
    ).toBe('loss room1 ~ room2 30 %')
    expect(
      describeNetworkFault({ action: 'bandwidth', target: 'room2', peer: 'room1', mbit: 10 })
    ).toBe('bandwidth room2 ~ room1 10 Mbit/s')
  })

  it('words heals of a pair, of one end and of everything', () => {
    expect(describeNetworkFault({ action: 'heal', target: 'room1', peer: 'room2' })).toBe(
      'heal room1 ~ room2'
    )
    expect(describeNetworkFault({ action: 'heal', target: 'broker-1' })).toBe('heal broker-1')
    expect(describeNetworkFault({ action: 'heal' })).toBe('heal every network fault')
  })

  it('is null for what is not a network fault', () => {
    expect(describeNetworkFault({ action: 'kill', target: 'broker-1' })).toBeNull()
    expect(describeNetworkFault({ action: 'partition', target: 'room1' })).toBeNull()
    expect(describeNetworkFault({})).toBeNull()
  })
})

const faultRow = (
  atMs: number,
  network: Record<string, unknown>,
  extra: Record<string, unknown> = {}
) => ({
  kind: 'fault',
  atMs,
  clientId: null,
  room: null,
  data: {
    action: network.action,
    target: [network.target],
    nodes: [network.target],
    ok: true,
    network,
    ...extra
  }
})

describe('network faults in the Timeline and on plots', () => {
  it('reads the fault row of a network fault in the network words, failures included', () => {
    expect(
      describeLedgerEvent(faultRow(1, { action: 'isolate', target: 'room1', mode: 'drop' }))
    ).toBe('isolate room1 (drop)')
    expect(
      describeLedgerEvent(
        faultRow(
          1,
          { action: 'delay', target: 'ns-1', peer: 'room2', latencyMs: 5 },
          { ok: false, error: 'delay acts on the link between two rooms' }
        )
      )
    ).toBe('delay ns-1 ~ room2 5 ms failed: delay acts on the link between two rooms')
    expect(
      describeLedgerEvent({
        kind: 'fault',
        clientId: null,
        room: null,
        data: { action: 'kill', nodes: ['broker-1'] }
      })
    ).toBe('kill broker-1')
  })

  it('lists the name servers a client was given, so a shrinking list shows a cut', () => {
    const list = (available: unknown[], fallback = false) =>
      describeLedgerEvent({
        kind: 'namesrv-list',
        clientId: 'producer-1',
        room: 'room1',
        data: { managementRoom: fallback ? 'room2' : 'room1', fallback, available }
      })
    expect(list([{ id: 'ns-1' }, { id: 'ns-2' }])).toBe('name-server list from room1: ns-1, ns-2')
    expect(list([{ id: 'ns-2' }], true)).toBe('name-server list from room2 (fallback): ns-2')
    expect(list([])).toBe('name-server list from room1: none available')
  })

  it('reads the replay rows with their figures', () => {
    const row = (kind: string, data: Record<string, unknown>) => ({
      kind,
      atMs: 1,
      clientId: null,
      room: null,
      data
    })
    expect(
      describeLedgerEvent(
        row('network-fault', {
          action: 'delay',
          target: ['room1'],
          peer: ['room2'],
          delayMs: 20,
          jitterMs: 2
        })
      )
    ).toBe('network delay room1 ~ room2 20 ms ± 2')
    expect(
      describeLedgerEvent(
        row('network-fault', {
          action: 'bandwidth',
          target: ['room1'],
          peer: ['room2'],
          bandwidthKbit: 10000
        })
      )
    ).toBe('network bandwidth room1 ~ room2 10 Mbit/s')
    expect(describeLedgerEvent(row('network-heal', { target: ['room1'] }))).toBe(
      'network healed room1'
    )
    expect(describeLedgerEvent(row('network-heal', {}))).toBe('network healed everywhere')
  })

  it('drops the network-fault twin of a fault row from the Timeline, nothing else', () => {
    const fault = faultRow(1000, { action: 'isolate', target: 'room1' })
    const twin = { kind: 'network-fault', atMs: 1000 }
    expect(isNetworkTwin(twin, [fault])).toBe(true)
    expect(
      isNetworkTwin({ kind: 'network-heal', atMs: 1000 }, [
        fault,
        { ...fault, kind: 'phase', data: {} }
      ])
    ).toBe(true)
    expect(isNetworkTwin({ kind: 'network-fault', atMs: 1001 }, [fault])).toBe(false)
    expect(isNetworkTwin(twin, [{ ...fault, data: { action: 'kill' } }])).toBe(false)
    expect(isNetworkTwin({ kind: 'fault', atMs: 1000 }, [fault])).toBe(false)
  })

  it('marks plots with the network words', () => {
    const events = [
      faultRow(3000, {
        action: 'partition',
        target: 'room1',
        peer: 'room2',
        direction: 'to',
        mode: 'reject'
      }),
      faultRow(5000, { action: 'heal' }, { target: [], nodes: [] })
    ]
    expect(faultMarkers(events, 1000)).toEqual([
      { x: 2, label: 'partition room1 → room2 (reject)' },
      { x: 4, label: 'heal every network fault' }
    ])
  })
})
