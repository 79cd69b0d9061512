import { describe, expect, it } from 'vitest'
import type { ScenarioReport } from '../../../common/scenario/schema'
import { reportSchema } from '../../../common/scenario/schema'
import { latestResultsFromReports, parseResults } from './results'

function report(
  scenario: string,
  runId: number,
  endedAt: string,
  rtoMs: (number | null)[][],
  passed = true
): ScenarioReport {
  return reportSchema.parse({
    kind: 'drstudio/scenario-report',
    version: 1,
    scenario,
    topology: 'two-rooms',
    runId,
    passed,
    topic: 'orders',
    consumerGroup: 'orders-consumer',
    startedAt: '2025-06-01T09:00:00.000Z',
    endedAt,
    timings: { setupMs: 1, settleMs: 1, workloadMs: 1, drainMs: 1, totalMs: 4 },
    totals: { sent: 10, acked: 10, failed: 0, consumed: 9, lost: 1, duplicates: 2 },
    gates: [],
    clients: rtoMs.map((r, i) => ({
      id: `c${i}`,
      room: 'room1',
      role: 'producer',
      sent: 1,
      acked: 1,
      failed: 0,
      consumed: 0,
      lost: 0,
      duplicates: 0,
      rtoMs: r
    })),
    failovers: [],
    selections: [],
    faults: []
  })
}

describe('scenario results for the README', () => {
  it('keeps the latest report per scenario with the worst client RTO', () => {
    const results = latestResultsFromReports('two-rooms', [
      report('room1-down', 1, '2025-06-01T09:10:00.000Z', [[1000]]),
      report('room1-down', 2, '2025-06-01T09:20:00.000Z', [[1200, 300], [4500]], false),
      { ...report('room1-down', 3, '2025-06-01T09:30:00.000Z', [[1]]), topology: 'other' }
    ])
    expect(results.scenarios).toEqual([
      {
        scenario: 'room1-down',
        verdict: 'fail',
        rtoMs: 4500,
        lost: 1,
        duplicates: 2,
        runId: 2,
        endedAt: Date.parse('2025-06-01T09:20:00.000Z')
      }
    ])
  })

  it('flags a client that never recovered', () => {
    const [row] = latestResultsFromReports('two-rooms', [
      report('x', 1, '2025-06-01T09:10:00.000Z', [[null], [800]])
    ]).scenarios
    expect(row).toMatchObject({ rtoMs: 800, unrecovered: true })
  })

  it('accepts LatestResults, one report or an array, and explains anything else', () => {
    expect(parseResults({ scenarios: [] }, 'two-rooms')).toEqual({ scenarios: [] })
    const one = report('x', 1, '2025-06-01T09:10:00.000Z', [[5]])
    expect(parseResults(one, 'two-rooms')).toMatchObject({
      scenarios: [{ scenario: 'x', rtoMs: 5 }]
    })
    expect(parseResults([one], 'two-rooms')).toMatchObject({ scenarios: [{ scenario: 'x' }] })
    expect(parseResults({ nope: 1 }, 'two-rooms')).toMatchObject({
      error: expect.stringContaining('scenarios')
    })
  })
})
