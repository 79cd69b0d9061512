import { describe, expect, it } from 'vitest'
import type { SweepSummary } from './sweep-summary'
import { sweepSummarySchema, sweepTable } from './sweep-summary'
import { pausedBrokerSweep } from './test-sweep'

describe('sweepTable', () => {
  // One recovery that never came: shown as "never".
  const measured = pausedBrokerSweep(7)
  const sweep: SweepSummary = sweepSummarySchema.parse({
    ...measured,
    rows: [
      measured.rows[0],
      { ...measured.rows[1]!, figures: { ...measured.rows[1]!.figures, rtoMs: null } }
    ]
  })

  it('formats each figure, marks the best, and names the best by their settings', () => {
    const t = sweepTable(sweep)
    expect(t.head).toEqual(['RTO', 'failed sends', 'duplicates', 'cross-room share', 'send p99'])
    expect(t.rows.map((r) => r.cells.map((c) => `${c.text}${c.best ? '*' : ''}`))).toEqual([
      ['403.3 ms*', '0*', '21*', '20.3 %*', '402.7 ms*'],
      ['never', '0*', '75', '20.3 %*', '1503.7 ms']
    ])
    expect(t.best[0]).toBe('best RTO: requestTimeout=400ms')
    expect(t.best[1]).toBe('best failed sends: requestTimeout=400ms / requestTimeout=1500ms')
    expect(t.tradeOff).toBe('requestTimeout=400ms is best on every figure')
    expect(t.rows[0]!.runIds).toEqual([7])
  })
})
