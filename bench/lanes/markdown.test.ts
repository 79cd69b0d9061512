import { describe, expect, it } from 'vitest'
import { rtoCell } from './markdown'
import type { LaneSummary } from './summary'

const lane = (rto: LaneSummary['rto']): LaneSummary =>
  ({ lane: 'x', rto }) as unknown as LaneSummary

describe('lane benchmark cells', () => {
  it('says "no failure" instead of an RTO of 0, and counts producers without failure apart', () => {
    expect(
      rtoCell(lane({ producers: 6, noFailure: 6, unrecovered: 0, p50Ms: null, p99Ms: null }))
    ).toBe('no failure')
    expect(
      rtoCell(lane({ producers: 6, noFailure: 2, unrecovered: 1, p50Ms: 120, p99Ms: Infinity }))
    ).toBe('120 / ∞ (2 of 6 no failure)')
    expect(
      rtoCell(lane({ producers: 0, noFailure: 0, unrecovered: 0, p50Ms: null, p99Ms: null }))
    ).toBe('—')
  })
})
