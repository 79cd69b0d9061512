import type { SweepSummary } from './sweep-summary'

/**
 * The sweep README quotes (`client.requestTimeout=400ms,1500ms` on room1-broker-paused, measured
 * on real RocketMQ), as a run's report stores it, for tests of what the app shows of a sweep.
 * `runId` is the run both settings shared.
 */
export function pausedBrokerSweep(runId: number): SweepSummary {
  const row = (name: string, label: string, figures: SweepSummary['rows'][number]['figures']) => ({
    name,
    label,
    lane: 'remoting',
    runs: 1,
    runIds: [runId],
    figures
  })
  return {
    scenario: 'room1-broker-paused',
    rows: [
      row('s1', 'requestTimeout=400ms', {
        rtoMs: 403.3,
        failedSends: 0,
        duplicates: 21,
        crossRoomShare: 0.203,
        sendP99Ms: 402.7
      }),
      row('s2', 'requestTimeout=1500ms', {
        rtoMs: 1501.7,
        failedSends: 0,
        duplicates: 75,
        crossRoomShare: 0.203,
        sendP99Ms: 1503.7
      })
    ],
    best: [
      { figure: 'rtoMs', names: ['s1'] },
      { figure: 'failedSends', names: ['s1', 's2'] },
      { figure: 'duplicates', names: ['s1'] },
      { figure: 'crossRoomShare', names: ['s1', 's2'] },
      { figure: 'sendP99Ms', names: ['s1'] }
    ],
    tradeOff: 'requestTimeout=400ms is best on every figure'
  }
}
