import { describe, expect, it } from 'vitest'
import type { FaultDraft } from './network-dialog'
import {
  EVERY_OTHER_ROOM,
  dialogTitle,
  directionOptions,
  draftFaults,
  parseBounded
} from './network-dialog'

const rooms = ['room1', 'room2', 'room3']
const draft = (patch: Partial<FaultDraft>): FaultDraft => ({
  kind: 'delay',
  target: 'room1',
  peer: 'room2',
  direction: 'both',
  mode: 'drop',
  latencyMs: '',
  jitterMs: '',
  lossPct: '',
  mbit: '',
  ...patch
})

describe('parseBounded', () => {
  it('accepts numbers in range (a decimal comma too) and names the field and the fix otherwise', () => {
    expect(parseBounded('20', 'latencyMs')).toEqual({ ok: true, value: 20 })
    expect(parseBounded(' 0,5 ', 'lossPct')).toEqual({ ok: true, value: 0.5 })
    expect(parseBounded('0', 'jitterMs')).toEqual({ ok: true, value: 0 })
    expect(parseBounded('', 'latencyMs')).toEqual({
      ok: false,
      error: 'Latency is empty. Latency: enter milliseconds above 0 and at most 60000, e.g. 20'
    })
    expect(parseBounded('fast', 'mbit')).toEqual({
      ok: false,
      error:
        'Bandwidth "fast" is not a number. Bandwidth: enter Mbit/s above 0 and at most 100000, e.g. 10'
    })
    expect(parseBounded('0', 'lossPct')).toMatchObject({
      ok: false,
      error: /^Loss 0 is out of range\./
    })
    expect(parseBounded('101', 'lossPct')).toMatchObject({ ok: false })
    expect(parseBounded('-1', 'jitterMs')).toEqual({
      ok: false,
      error: 'Jitter -1 is out of range. Jitter: enter milliseconds from 0 to 60000, e.g. 2'
    })
  })
})

describe('draftFaults', () => {
  it('makes a delay, jitter optional', () => {
    expect(draftFaults(draft({ latencyMs: '20' }), rooms)).toEqual({
      ok: true,
      faults: [
        {
          action: 'delay',
          target: 'room1',
          peer: 'room2',
          direction: 'both',
          latencyMs: 20,
          jitterMs: 0
        }
      ]
    })
    expect(
      draftFaults(draft({ latencyMs: '20', jitterMs: '2', direction: 'to' }), rooms)
    ).toMatchObject({
      ok: true,
      faults: [{ jitterMs: 2, direction: 'to' }]
    })
  })

  it('refuses jitter above the latency, saying what to enter', () => {
    expect(draftFaults(draft({ latencyMs: '5', jitterMs: '9' }), rooms)).toEqual({
      ok: false,
      errors: {
        jitterMs:
          'Jitter 9 is more than the latency (5 ms): enter at most 5, or leave it empty for none'
      }
    })
  })

  it('reports every bad field at once, and a missing peer', () => {
    const r = draftFaults(draft({ peer: '', latencyMs: 'x', jitterMs: '-3' }), rooms)
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(Object.keys(r.errors).sort()).toEqual(['jitterMs', 'latencyMs', 'peer'])
    expect(r.errors.peer).toBe('Peer: choose the room or node to slow room1')
  })

  it('applies one fault per other room for "every other room"', () => {
    const r = draftFaults(draft({ kind: 'loss', peer: EVERY_OTHER_ROOM, lossPct: '30' }), rooms)
    expect(r).toMatchObject({
      ok: true,
      faults: [
        { action: 'loss', target: 'room1', peer: 'room2', lossPct: 30 },
        { action: 'loss', target: 'room1', peer: 'room3', lossPct: 30 }
      ]
    })
  })

  it('cuts in the chosen mode, from a node to a room', () => {
    expect(
      draftFaults(
        draft({
          kind: 'cut',
          target: 'broker-1',
          peer: 'room2',
          mode: 'reject',
          direction: 'from'
        }),
        rooms
      )
    ).toEqual({
      ok: true,
      faults: [
        {
          action: 'partition',
          target: 'broker-1',
          peer: 'room2',
          direction: 'from',
          mode: 'reject'
        }
      ]
    })
  })

  it('limits bandwidth and refuses a target paired with itself', () => {
    expect(draftFaults(draft({ kind: 'bandwidth', mbit: '10' }), rooms)).toMatchObject({
      ok: true,
      faults: [{ action: 'bandwidth', mbit: 10 }]
    })
    expect(draftFaults(draft({ kind: 'bandwidth', mbit: '0' }), rooms)).toMatchObject({
      ok: false,
      errors: { mbit: /^Bandwidth 0 is out of range/ }
    })
    expect(draftFaults(draft({ kind: 'cut', peer: 'room1' }), rooms)).toMatchObject({
      ok: false,
      errors: { peer: /^Peer: room1 cannot be paired with itself/ }
    })
  })
})

describe('dialog words', () => {
  it('titles and direction choices from the target’s point of view', () => {
    expect(dialogTitle('delay', 'room1', 'room2')).toBe('Slow room1 ~ room2')
    expect(dialogTitle('cut', 'broker-1', null)).toBe('Cut broker-1 from…')
    expect(dialogTitle('bandwidth', 'room1', null)).toBe('Bandwidth of room1…')
    expect(directionOptions('room1', 'room2').map((o) => o.label)).toEqual([
      'Both ways (room1 ~ room2)',
      'room1 → room2 only',
      'room2 → room1 only'
    ])
    expect(directionOptions('room1', EVERY_OTHER_ROOM)[1]!.label).toBe(
      'room1 → every other room only'
    )
  })
})
