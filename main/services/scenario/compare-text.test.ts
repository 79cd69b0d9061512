import { describe, expect, it } from 'vitest'
import { compareReports } from '../../../common/scenario/compare'
import { formatComparison } from './compare-text'
import { sketchPair } from '../../../common/scenario/test-reports'

describe('formatComparison', () => {
  it('prints one row per figure, marking the ones that differ', () => {
    const c = compareReports(sketchPair())
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
