import { describe, expect, it } from 'vitest'
import {
  applyProbe,
  formatNsaddr,
  initialHealth,
  orderForRoom,
  type AvailabilityPolicy,
  type NameServerHealth,
  type ProbeResult
} from './availability'

const ok = (at: number, latencyMs = 1): ProbeResult => ({ ok: true, at, latencyMs })
const fail = (at: number, error = 'connect-failed'): ProbeResult => ({ ok: false, at, error })
const late = (at: number): ProbeResult => ({ ok: false, at, error: 'timeout', timedOut: true })

function fold(results: ProbeResult[], policy?: AvailabilityPolicy): NameServerHealth[] {
  const states: NameServerHealth[] = []
  let s = initialHealth()
  for (const r of results) {
    s = applyProbe(s, r, policy)
    states.push(s)
  }
  return states
}

describe('applyProbe', () => {
  it('starts unavailable and unknown', () => {
    expect(initialHealth()).toMatchObject({ available: false, lastProbeAt: undefined })
  })

  it('with the default 1/1 policy follows every probe', () => {
    const states = fold([ok(1), fail(2), fail(3), ok(4, 7)])
    expect(states.map((s) => s.available)).toEqual([true, false, false, true])
    expect(states[1]).toMatchObject({ lastProbeAt: 2, lastError: 'connect-failed', latencyMs: 1 })
    expect(states[3]).toMatchObject({ lastProbeAt: 4, lastError: undefined, latencyMs: 7 })
  })

  it('applies hysteresis in both directions', () => {
    const policy = { failuresBeforeDown: 2, timeoutsBeforeDown: 2, successesBeforeUp: 3 }
    const seq = [
      ok(1),
      ok(2),
      ok(3),
      fail(4),
      ok(5),
      fail(6),
      fail(7),
      ok(8),
      ok(9),
      fail(10),
      ok(11),
      ok(12),
      ok(13)
    ]
    expect(fold(seq, policy).map((s) => s.available)).toEqual([
      false,
      false,
      true, // up after 3 successes
      true,
      true,
      true, // single failures do not drop it
      false, // second failure in a row drops it
      false,
      false,
      false,
      false,
      false,
      true // needs 3 successes in a row again
    ])
  })

  it('drops on one refusal but needs two timeouts in a row by default', () => {
    expect(fold([ok(1), late(2)]).map((s) => s.available)).toEqual([true, true])
    expect(fold([ok(1), late(2), late(3)]).map((s) => s.available)).toEqual([true, true, false])
    // A timeout between successes never drops it: a busy host, not an outage.
    expect(fold([ok(1), late(2), ok(3), late(4), ok(5)]).every((s) => s.available)).toBe(true)
    // A refusal is proof at once, and one after a timeout too (the run of failures continues).
    expect(fold([ok(1), fail(2)]).map((s) => s.available)).toEqual([true, false])
    expect(fold([ok(1), late(2), fail(3)]).map((s) => s.available)).toEqual([true, true, false])
    // A timeout after a refusal leaves it down; a success lists it again.
    expect(fold([ok(1), fail(2), late(3), ok(4)]).map((s) => s.available)).toEqual([
      true,
      false,
      false,
      true
    ])
  })

  it('applies timeoutsBeforeDown on its own', () => {
    const policy = { failuresBeforeDown: 1, timeoutsBeforeDown: 3, successesBeforeUp: 1 }
    expect(fold([ok(1), late(2), late(3), late(4)], policy).map((s) => s.available)).toEqual([
      true,
      true,
      true,
      false
    ])
    const eager = { failuresBeforeDown: 1, timeoutsBeforeDown: 1, successesBeforeUp: 1 }
    expect(fold([ok(1), late(2)], eager).map((s) => s.available)).toEqual([true, false])
  })

  it('counts consecutive results and resets the other counter', () => {
    const [a, b, c] = fold([fail(1), fail(2), ok(3)])
    expect([a?.consecutiveFailures, b?.consecutiveFailures, c?.consecutiveFailures]).toEqual([
      1, 2, 0
    ])
    expect(c?.consecutiveSuccesses).toBe(1)
  })

  it('never lists a name server that has not yet succeeded, whatever the policy', () => {
    for (let down = 1; down <= 4; down++) {
      for (let up = 1; up <= 4; up++) {
        const states = fold([fail(1), late(2), fail(3)], {
          failuresBeforeDown: down,
          timeoutsBeforeDown: down,
          successesBeforeUp: up
        })
        expect(states.every((s) => !s.available)).toBe(true)
      }
    }
  })

  it('does not mutate the input state', () => {
    const s = initialHealth()
    applyProbe(s, ok(1))
    expect(s).toEqual(initialHealth())
  })
})

describe('ordering and nsaddr format', () => {
  const entries = [
    { id: 'ns-r2-a', room: 'room2', address: '127.0.0.1:2001', available: true },
    { id: 'ns-r1-a', room: 'room1', address: '127.0.0.1:1001', available: true },
    { id: 'ns-r3-a', room: 'room3', address: '127.0.0.1:3001', available: true },
    { id: 'ns-r1-b', room: 'room1', address: '127.0.0.1:1002', available: false },
    { id: 'ns-r1-c', room: 'room1', address: '127.0.0.1:1003', available: true }
  ]

  it('puts the own room first, keeping configuration order within groups', () => {
    expect(orderForRoom(entries, 'room1').map((e) => e.id)).toEqual([
      'ns-r1-a',
      'ns-r1-b',
      'ns-r1-c',
      'ns-r2-a',
      'ns-r3-a'
    ])
  })

  it('formats ip:port;ip:port of available ones only', () => {
    expect(formatNsaddr(entries, 'room1')).toBe(
      '127.0.0.1:1001;127.0.0.1:1003;127.0.0.1:2001;127.0.0.1:3001'
    )
    expect(formatNsaddr(entries, 'room3')).toBe(
      '127.0.0.1:3001;127.0.0.1:2001;127.0.0.1:1001;127.0.0.1:1003'
    )
    expect(
      formatNsaddr(
        entries.map((e) => ({ ...e, available: false })),
        'room1'
      )
    ).toBe('')
  })
})
