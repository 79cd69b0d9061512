import type { ScenarioReport } from './schema'

/**
 * A report with only what run comparisons read (verdict, totals, RTOs, latency, gates), for tests
 * of compareReports and its text; `over` replaces any of it.
 */
export const sketchReport = (runId: number, over: Partial<ScenarioReport> = {}): ScenarioReport =>
  ({
    scenario: 'room1-brokers-down',
    runId,
    passed: true,
    totals: { sent: 100, acked: 100, failed: 0, consumed: 100, lost: 0, duplicates: 0 },
    clients: [{ rtoMs: [120] }, { rtoMs: [] }],
    latency: [{ scope: 'same-room', sends: 90, p50Ms: 1, p99Ms: 4 }],
    gates: [{ name: 'lost messages', passed: true, actual: 0, limit: 0 }],
    ...over
  }) as unknown as ScenarioReport

/** Two runs of one scenario, the second failed with a producer that never recovered. */
export const sketchPair = (): ScenarioReport[] => [
  sketchReport(1),
  sketchReport(2, {
    passed: false,
    clients: [{ rtoMs: [null] }] as never,
    gates: [
      { name: 'lost messages', passed: true, actual: 0, limit: 0 },
      { name: 'worst RTO (ms)', passed: false, actual: 'never', limit: 500 }
    ]
  })
]
