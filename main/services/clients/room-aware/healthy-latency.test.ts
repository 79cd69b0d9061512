import { describe, expect, it } from 'vitest'
import { HealthyLatency, summarizeLatencies } from './healthy-latency'

describe('HealthyLatency', () => {
  it('is unknown until minSamples answers are in the window', () => {
    expect(summarizeLatencies([], 20)).toEqual({ p99Ms: null, samples: 0 })
    expect(summarizeLatencies(Array(19).fill(5), 20)).toEqual({ p99Ms: null, samples: 19 })
    expect(summarizeLatencies(Array(20).fill(5), 20)).toEqual({ p99Ms: 5, samples: 20 })
  })

  it('forgets answers older than the window, and recomputes at most once per recomputeMs', () => {
    const l = new HealthyLatency({ windowMs: 10_000, minSamples: 2, recomputeMs: 1000 })
    expect(l.at(0)).toEqual({ p99Ms: null, samples: 0 })
    l.record(100, 50)
    l.record(200, 50)
    expect(l.at(500)).toEqual({ p99Ms: null, samples: 0 })
    expect(l.at(1000)).toEqual({ p99Ms: 50, samples: 2 })
    l.record(9000, 8)
    l.record(9100, 8)
    // At 10 150 ms the answers of 100 ms are out of the window, those of 200 ms still in it.
    expect(l.at(10_150)).toEqual({ p99Ms: expect.closeTo(49.16, 2), samples: 3 })
    expect(l.at(12_000)).toEqual({ p99Ms: 8, samples: 2 })
  })
})
