import { describe, expect, it } from 'vitest'
import { compareReports } from '../../../common/scenario/compare'
import { formatComparison } from './compare-text'
import { sketchReport as report } from '../../../common/scenario/test-reports'

describe('formatComparison', () => {
  it('prints one row per figure, marking the ones that differ', () => {
    const c = compareReports([
      report(1, {}),
      report(2, {
        passed: false,
        clients: [{ rtoMs: [null] }] as never,
        gates: [
          { name: 'lost messages', passed: true, actual: 0, limit: 0 },
          { name: 'worst RTO (ms)', passed: false, actual: 'never', limit: 500 }
        ]
      })
    ])
    const text = formatComparison(c)
    expect(text.split('\n').slice(0, 3)).toEqual([
      '                        run 1               run 2',
      '  scenario              room1-brokers-down  room1-brokers-down',
      '* verdict               PASSED              FAILED'
    ])
    expect(text).toContain('* gate: worst RTO (ms)  —                   FAIL never')
    expect(text.endsWith('* differs between the runs\n')).toBe(true)
  })
})
