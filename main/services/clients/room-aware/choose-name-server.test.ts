import { describe, expect, it } from 'vitest'
import type { NameServerCandidate } from './choose-name-server'
import { chooseNameServer } from './choose-name-server'
import { pickByPolicy } from './pick'

const ns = (
  id: string,
  room: string,
  extra: Partial<NameServerCandidate> = {}
): NameServerCandidate => ({
  id,
  room,
  address: `127.0.0.1:${9000 + id.length}`,
  ...extra
})

const base = { policy: 'round-robin' as const, cursor: 0, random: 0 }

describe('pickByPolicy', () => {
  it('returns undefined for nothing to pick', () => {
    expect(pickByPolicy([], base)).toBeUndefined()
  })
  it('round-robin walks the list and advances the cursor', () => {
    const picks = [0, 1, 2, 3].map((c) => pickByPolicy(['a', 'b', 'c'], { ...base, cursor: c })!)
    expect(picks.map((p) => p.item)).toEqual(['a', 'b', 'c', 'a'])
    expect(picks.map((p) => p.cursor)).toEqual([1, 2, 3, 4])
  })
  it('random maps [0,1) onto the list, clamping out-of-range draws', () => {
    const s = { ...base, policy: 'random' as const }
    expect(pickByPolicy(['a', 'b'], { ...s, random: 0 })!.item).toBe('a')
    expect(pickByPolicy(['a', 'b'], { ...s, random: 0.5 })!.item).toBe('b')
    expect(pickByPolicy(['a', 'b'], { ...s, random: 1 })!.item).toBe('b')
    expect(pickByPolicy(['a', 'b'], { ...s, random: -3 })!.item).toBe('a')
  })
  it('least-latency takes the fastest, unknown latency counting as slowest', () => {
    const s = { ...base, policy: 'least-latency' as const }
    const lat: Record<string, number | null> = { a: null, b: 7, c: 3 }
    expect(pickByPolicy(['a', 'b', 'c'], s, (x) => lat[x])!.item).toBe('c')
    expect(pickByPolicy(['a', 'b'], s, () => null)!.item).toBe('a')
  })
})

describe('chooseNameServer', () => {
  const list = [ns('ns-2', 'room2'), ns('ns-1', 'room1'), ns('ns-3', 'room3')]

  it('prefers the own room (business scenario 1)', () => {
    const c = chooseNameServer({ ...base, room: 'room1', candidates: list })!
    expect(c.candidate.id).toBe('ns-1')
    expect(c.reason).toBe('same-room')
  })

  it('load-balances among several name servers of the own room', () => {
    const two = [...list, ns('ns-1b', 'room1')]
    const a = chooseNameServer({ ...base, room: 'room1', candidates: two })!
    const b = chooseNameServer({ ...base, cursor: a.cursor, room: 'room1', candidates: two })!
    expect(new Set([a.candidate.id, b.candidate.id])).toEqual(new Set(['ns-1', 'ns-1b']))
  })

  it('falls to another room when the own room has none available (scenario 3)', () => {
    const down = list.map((c) => (c.room === 'room1' ? { ...c, available: false } : c))
    const c = chooseNameServer({ ...base, room: 'room1', candidates: down })!
    expect(c.reason).toBe('other-room')
    expect(['ns-2', 'ns-3']).toContain(c.candidate.id)
  })

  it('applies each policy among the other rooms', () => {
    const others = [ns('ns-2', 'room2', { latencyMs: 9 }), ns('ns-3', 'room3', { latencyMs: 2 })]
    expect(
      chooseNameServer({ ...base, policy: 'least-latency', room: 'room1', candidates: others })!
        .candidate.id
    ).toBe('ns-3')
    expect(
      chooseNameServer({
        ...base,
        policy: 'random',
        random: 0.9,
        room: 'room1',
        candidates: others
      })!.candidate.id
    ).toBe('ns-3')
    const rr = [0, 1].map((cursor) =>
      chooseNameServer({ ...base, cursor, room: 'room1', candidates: others })!
    )
    expect(rr.map((c) => c.candidate.id)).toEqual(['ns-2', 'ns-3'])
  })

  it('moves to the next one after a failure the management node has not seen yet', () => {
    const c = chooseNameServer({
      ...base,
      room: 'room1',
      candidates: list,
      failed: new Set(['ns-1'])
    })!
    expect(c.candidate.room).not.toBe('room1')
    expect(c.reason).toBe('other-room')
  })

  it('retries a failed one as a last resort rather than giving up, preferring available ones', () => {
    const two = [ns('ns-1', 'room1'), ns('ns-2', 'room2', { available: false })]
    const c = chooseNameServer({
      ...base,
      room: 'room1',
      candidates: two,
      failed: new Set(['ns-1'])
    })!
    expect(c.candidate.id).toBe('ns-1')
    expect(c.reason).toBe('last-resort')
  })

  it('all rooms down: still returns one to try', () => {
    const down = list.map((c) => ({ ...c, available: false }))
    const c = chooseNameServer({
      ...base,
      room: 'room1',
      candidates: down,
      failed: new Set(['ns-1', 'ns-2', 'ns-3'])
    })!
    expect(c.reason).toBe('last-resort')
  })

  it('returns null for an empty list', () => {
    expect(chooseNameServer({ ...base, room: 'room1', candidates: [] })).toBeNull()
  })

  it('does not depend on the order the management node lists them', () => {
    const a = chooseNameServer({ ...base, cursor: 5, room: 'room9', candidates: list })!
    const b = chooseNameServer({
      ...base,
      cursor: 5,
      room: 'room9',
      candidates: [...list].reverse()
    })!
    expect(a.candidate.id).toBe(b.candidate.id)
  })
})
