import { describe, expect, it } from 'vitest'
import type { ComparedRun } from './compare-plots'
import { anchorMarkers, anchorOf, overlaidRates } from './compare-plots'

/** Cumulative `sent` of one client, a sample a second from `fromMs`, at `perS` messages a second. */
const sent = (clientId: string, fromMs: number, perS: number[]) => {
  let total = 0
  return [0, ...perS].map((n, i) => {
    total += n
    return { atMs: fromMs + i * 1000, clientId, values: { sent: total } }
  })
}

const fault = (atMs: number, target: string) => ({
  atMs,
  kind: 'fault',
  clientId: null,
  room: null,
  data: { action: 'kill', nodes: [target] }
})

const run = (runId: number, startedAt: number, over: Partial<ComparedRun> = {}): ComparedRun => ({
  runId,
  startedAt,
  report: null,
  events: [],
  counters: [],
  ...over
})

describe('compared runs', () => {
  it('line up at each run’s first fault, whatever the time it came', () => {
    // Run 1's fault came 3 s into it, run 2's 5 s: both drop to 0 at the fault.
    const a = run(1, 10_000, {
      events: [fault(13_000, 'broker-1')],
      counters: [...sent('p1', 10_000, [10, 10, 10, 0, 0]), ...sent('p2', 10_000, [5, 5, 5, 5, 5])]
    })
    const b = run(2, 50_000, {
      events: [fault(55_000, 'broker-1'), fault(57_000, 'ns-1')],
      counters: sent('p1', 50_000, [20, 20, 20, 20, 20, 0, 0])
    })
    expect(anchorOf(a)).toEqual({ atMs: 13_000, at: 'first fault', label: 'kill broker-1' })
    const d = overlaidRates([a, b], 'sent')
    expect(d.series.map((s) => s.clientId)).toEqual(['run 1', 'run 2'])
    const at = (x: number) => d.series.map((s) => s.values[d.xs.indexOf(x)])
    // The second before the fault: 15 (10 + 5) and 20; the one after it: 5 and 0.
    expect(at(-1)).toEqual([15, 20])
    expect(at(0)).toEqual([5, 0])
    // Run 2 started 5 s before its fault; run 1 only 3 s: no sample there.
    expect(at(-4)).toEqual([null, 20])
    expect(anchorMarkers([a, b])).toEqual([{ x: 0, label: 'first fault: kill broker-1' }])
  })

  it('a run without a fault is aligned at its start, and no marker claims one', () => {
    const healthy = run(3, 1_000, { counters: sent('p1', 1_000, [4, 4]) })
    expect(anchorOf(healthy)).toEqual({ atMs: 1_000, at: 'start', label: null })
    expect(overlaidRates([healthy], 'sent')).toEqual({
      xs: [0, 1],
      series: [{ clientId: 'run 3', values: [4, 4] }]
    })
    expect(anchorMarkers([healthy])).toEqual([])
  })
})
