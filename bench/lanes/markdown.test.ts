import { describe, expect, it } from 'vitest'
import { homeCell, rtoCell } from './markdown'
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

describe('back-in-own-room cells', () => {
  const home = (h: LaneSummary['backHome']): LaneSummary =>
    ({ lane: 'x', backHome: h }) as unknown as LaneSummary
  it('tells a restarted node that never served again from a client that never came home', () => {
    expect(homeCell(home({ producers: 6, stayed: 0, notServed: 6, medianMs: null }))).toBe(
      'node not back in time'
    )
    expect(homeCell(home({ producers: 6, stayed: 0, notServed: 0, medianMs: Infinity }))).toBe('∞')
    expect(homeCell(home({ producers: 6, stayed: 2, notServed: 2, medianMs: 812 }))).toBe(
      '812 (2 of 6 stayed, 2 of 6 node not back)'
    )
    expect(homeCell(home({ producers: 6, stayed: 6, notServed: 0, medianMs: null }))).toBe('stayed')
  })
})
