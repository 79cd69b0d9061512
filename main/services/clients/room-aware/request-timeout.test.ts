import { describe, expect, it } from 'vitest'
import { HealthyLatency, summarizeLatencies } from './healthy-latency'
import type { RequestTimeoutChange } from './request-timeout'
import { RequestTimeout, timeoutChanged, timeoutFromP99 } from './request-timeout'

const o = { floorMs: 400, ceilingMs: 1600, factor: 1.5 }
const window = { windowMs: 30_000, minSamples: 20, recomputeMs: 1000 }
const fill = (n: number, ms: number): number[] => Array.from({ length: n }, () => ms)
const timeoutOf = (latencies: number[], opts = o): number =>
  timeoutFromP99(summarizeLatencies(latencies, window.minSamples).p99Ms, opts)

describe('the timeout for recent healthy latency', () => {
  it('is the floor with too few answers to know', () => {
    expect(summarizeLatencies(fill(19, 900), 20)).toEqual({ p99Ms: null, samples: 19 })
    expect(timeoutOf(fill(19, 900))).toBe(400)
    expect(timeoutOf([])).toBe(400)
  })

  it('is the floor on an idle host, whose answers are far below it', () => {
    expect(timeoutOf(fill(500, 7))).toBe(400)
  })

  it('is 1.5 × the p99 on a loaded host: the 415 ms answer CI timed out on would have been waited for', () => {
    // CI's healthy run: p50 7 ms, p99 353 ms; a 415 ms answer timed out at 400 ms and failed over.
    const loaded = [...fill(980, 7), ...fill(20, 353)]
    expect(summarizeLatencies(loaded, 20).p99Ms).toBeCloseTo(353, 0)
    expect(timeoutOf(loaded)).toBe(530)
  })

  it('never exceeds the ceiling, however slow the answers', () => {
    expect(timeoutOf(fill(100, 5000))).toBe(1600)
    // Ceiling = floor: a fixed timeout.
    expect(timeoutOf(fill(100, 5000), { ...o, ceilingMs: 400 })).toBe(400)
  })

  it('ignores the slowest 1 %: one freak stall does not stretch it', () => {
    expect(timeoutOf([...fill(999, 10), 3000])).toBe(400)
  })
})

describe('timeoutChanged', () => {
  it('logs a move of a quarter or more, and any move to or from the floor', () => {
    expect(timeoutChanged(400, 400, 400)).toBe(false)
    expect(timeoutChanged(400, 410, 400)).toBe(true)
    expect(timeoutChanged(410, 400, 400)).toBe(true)
    expect(timeoutChanged(800, 900, 400)).toBe(false)
    expect(timeoutChanged(800, 1000, 400)).toBe(true)
    expect(timeoutChanged(800, 600, 400)).toBe(true)
  })
})

describe('RequestTimeout', () => {
  it('follows the window: grows under load, shrinks back once the slow answers are older than it', () => {
    const changes: RequestTimeoutChange[] = []
    const latency = new HealthyLatency(window)
    const t = new RequestTimeout(o, latency, (c) => changes.push(c))
    expect(t.timeoutMs(0)).toBe(400)
    for (let i = 0; i < 100; i++) latency.record(100 + i, 600)
    // Recomputed at most once per recomputeMs: still the floor 500 ms after the last computation.
    expect(t.timeoutMs(500)).toBe(400)
    expect(t.timeoutMs(1000)).toBe(900)
    expect(changes).toEqual([{ timeoutMs: 900, previousMs: 400, p99Ms: 600, samples: 100 }])
    // 31 s later the slow answers are out of the window: back to the floor, logged.
    for (let i = 0; i < 50; i++) latency.record(31_000 + i, 5)
    expect(t.timeoutMs(31_200)).toBe(400)
    expect(changes.at(-1)).toEqual({ timeoutMs: 400, previousMs: 900, p99Ms: 5, samples: 50 })
  })

  it('keeps the last logged value through small moves (no ledger row per second)', () => {
    const changes: RequestTimeoutChange[] = []
    const latency = new HealthyLatency(window)
    const t = new RequestTimeout(o, latency, (c) => changes.push(c))
    for (let i = 0; i < 100; i++) latency.record(i, 600)
    expect(t.timeoutMs(1000)).toBe(900)
    for (let i = 0; i < 100; i++) latency.record(1000 + i, 650)
    expect(t.timeoutMs(2000)).toBe(900)
    expect(t.timeoutMs(2000)).toBe(900)
    expect(changes).toHaveLength(1)
  })
})
