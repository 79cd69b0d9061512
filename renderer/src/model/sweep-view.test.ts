import { describe, expect, it } from 'vitest'
import type { SweepSummary } from '../../../common/scenario/sweep-summary'
import { sweepSummarySchema } from '../../../common/scenario/sweep-summary'
import { pausedBrokerSweep } from '../../../common/scenario/test-sweep'
import { SWEEP_SETTINGS, sweepFlag, sweepTable } from './sweep-view'

describe('sweepFlag', () => {
  it('writes the CLI flag from a setting and the values typed', () => {
    expect(sweepFlag('client.requestTimeout', ' 400ms, 1500ms ,')).toEqual({
      flag: 'client.requestTimeout=400ms,1500ms'
    })
    expect(sweepFlag('lane', 'remoting,java-tuned')).toEqual({ flag: 'lane=remoting,java-tuned' })
  })

  it('says what to fix: one value, a repeated one, an unknown setting', () => {
    expect(sweepFlag('client.requestTimeout', '400ms')).toEqual({
      error: 'give two or more values, separated by commas'
    })
    expect(sweepFlag('client.hedge', 'true, true')).toEqual({ error: 'a value appears twice' })
    expect(sweepFlag('client.colour', 'a, b')).toEqual({
      error: 'nothing named client.colour to vary'
    })
  })

  it('offers every client setting a scenario takes, request timeout first, and the lane', () => {
    const keys = SWEEP_SETTINGS.map((s) => s.key)
    expect(keys[0]).toBe('client.requestTimeout')
    expect(keys).toContain('client.hedge')
    expect(keys).toContain('client.orderPolicy')
    expect(keys.at(-1)).toBe('lane')
    expect(new Set(keys).size).toBe(keys.length)
    expect(SWEEP_SETTINGS.filter((s) => s.example === '')).toEqual([])
  })
})

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
