import { describe, expect, it } from 'vitest'
import { compareReports } from './compare'
import { sketchPair } from './test-reports'

describe('compareReports', () => {
  it('lines up figures and gates, marking the ones that differ', () => {
    const c = compareReports(sketchPair())
    const row = (figure: string) => c.rows.find((r) => r.figure === figure)
    expect(row('verdict')).toEqual({
      figure: 'verdict',
      values: ['PASSED', 'FAILED'],
      differs: true
    })
    expect(row('worst RTO')!.values).toEqual(['120 ms', 'never recovered'])
    expect(row('send p99 same-room')).toMatchObject({ values: ['4 ms', '4 ms'], differs: false })
    expect(row('send p99 cross-room')!.values).toEqual(['—', '—'])
    expect(row('gate: worst RTO (ms)')!.values).toEqual(['—', 'FAIL never'])
  })
})
