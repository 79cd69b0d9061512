import { describe, expect, it } from 'vitest'
import {
  computeLoss,
  computeRto,
  countersToRates,
  localShare,
  median,
  percentile,
  phaseOf,
  summarize
} from './metrics'

const ok = (startMs: number, endMs: number) => ({ startMs, endMs, ok: true })
const fail = (startMs: number, endMs: number) => ({ startMs, endMs, ok: false })

describe('computeRto', () => {
  it('no failure after a fault: no episode', () => {
    expect(computeRto([ok(0, 1), ok(10, 11)], [5])).toEqual([])
  })

  it('from the first failed operation to the next success (broker kill)', () => {
    const ops = [ok(0, 2), fail(100, 101), ok(101, 104), ok(120, 121)]
    expect(computeRto(ops, [90])).toEqual([
      { boundaryMs: 90, failedAtMs: 100, recoveredAtMs: 104, rtoMs: 4 }
    ])
  })

  it('a timed-out operation counts from its start (hung broker)', () => {
    const ops = [fail(1000, 1400), fail(1020, 1420), ok(1400, 1403)]
    expect(computeRto(ops, [990])[0]!.rtoMs).toBe(403)
  })

  it('an operation in flight when the fault hit counts from the fault', () => {
    const ops = [fail(950, 1400), ok(1401, 1405)]
    expect(computeRto(ops, [1000])[0]).toMatchObject({ failedAtMs: 1000, rtoMs: 405 })
  })

  it('a success that ended before the failure was seen does not end the outage', () => {
    const ops = [fail(100, 500), ok(150, 160), ok(500, 510)]
    expect(computeRto(ops, [100])[0]!.recoveredAtMs).toBe(510)
  })

  it('never recovered: null', () => {
    expect(computeRto([fail(10, 20), fail(30, 40)], [0])).toEqual([
      { boundaryMs: 0, failedAtMs: 10, recoveredAtMs: null, rtoMs: null }
    ])
  })

  it('one episode per window; failures belong to the window they end in', () => {
    const ops = [fail(10, 12), ok(12, 15), ok(50, 51), fail(110, 120), ok(121, 130)]
    const eps = computeRto(ops, [100, 0, 100])
    expect(eps.map((e) => [e.boundaryMs, e.rtoMs])).toEqual([
      [0, 5],
      [100, 20]
    ])
  })

  it('failures before the first fault are not counted', () => {
    expect(computeRto([fail(1, 2), ok(3, 4)], [10])).toEqual([])
  })
})

describe('percentiles and summaries', () => {
  it('interpolates linearly', () => {
    expect(percentile([], 50)).toBeNull()
    expect(percentile([7], 99)).toBe(7)
    expect(percentile([1, 2, 3, 4], 50)).toBe(2.5)
    expect(percentile([10, 0], 100)).toBe(10)
    expect(percentile([0, 100], 99)).toBe(99)
  })
  it('summarizes and takes medians of finite values', () => {
    expect(summarize([3, 1, 2])).toEqual({ count: 3, min: 1, p50: 2, p99: 2.98, max: 3 })
    expect(summarize([])).toEqual({ count: 0, min: null, p50: null, p99: null, max: null })
    expect(median([null, 5, 1, Infinity, 3])).toBe(3)
  })
})

describe('computeLoss', () => {
  it('lost = acknowledged keys never consumed; duplicates = extra deliveries', () => {
    const r = computeLoss(['a', 'b', 'c'], ['a', 'a', 'c', 'x', 'c', 'c'])
    expect(r).toEqual({
      acked: 3,
      consumedDistinct: 3,
      lost: 1,
      lostKeys: ['b'],
      deliveries: 6,
      duplicates: 3,
      unexpected: 1
    })
  })
  it('nothing sent, nothing lost', () => {
    expect(computeLoss([], [])).toMatchObject({ lost: 0, duplicates: 0 })
  })
  it('caps the listed keys', () => {
    const r = computeLoss(['a', 'b', 'c'], [], 2)
    expect(r.lost).toBe(3)
    expect(r.lostKeys).toHaveLength(2)
  })
})

describe('localShare and phases', () => {
  it('weights by count and ignores nothing', () => {
    expect(localShare([])).toBeNull()
    expect(
      localShare([
        { clientRoom: 'room1', servedRoom: 'room1', count: 99 },
        { clientRoom: 'room1', servedRoom: 'room2' },
        { clientRoom: 'room2', servedRoom: null, count: 0 }
      ])
    ).toBe(0.99)
  })
  it('splits at the first fault', () => {
    expect(phaseOf(5, null)).toBe('before-fault')
    expect(phaseOf(5, 10)).toBe('before-fault')
    expect(phaseOf(10, 10)).toBe('after-fault')
  })
})

describe('countersToRates', () => {
  it('turns cumulative counters into per-second rates per client', () => {
    const pts = countersToRates([
      { atMs: 0, clientId: 'p1', values: { sent: 0, failed: 0 } },
      { atMs: 500, clientId: 'p1', values: { sent: 10, failed: 1 } },
      { atMs: 1000, clientId: 'p1', values: { sent: 30, failed: 1 } },
      { atMs: 1000, clientId: 'p2', values: { sent: 5 } }
    ])
    expect(pts).toEqual([
      { atMs: 500, clientId: 'p1', rates: { sent: 20, failed: 2 } },
      { atMs: 1000, clientId: 'p1', rates: { sent: 40, failed: 0 } }
    ])
  })
})
