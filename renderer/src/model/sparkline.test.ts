import { describe, expect, it } from 'vitest'
import { figuresText, sparkPath } from './sparkline'

describe('sparkPath', () => {
  it('scales to the largest value, 0 at the bottom', () => {
    expect(sparkPath([0, 5, 10], 20, 10)).toBe('M0,10L10,5L20,0')
  })
  it('a quiet series stays at the bottom (floor), one point draws nothing', () => {
    expect(sparkPath([0, 0], 10, 10)).toBe('M0,10L10,10')
    expect(sparkPath([3], 10, 10)).toBe('')
  })
})

describe('figuresText', () => {
  it('reads rate, p99 and failures', () => {
    expect(figuresText(20, 5.25, 0)).toBe('20/s · p99 5.3 ms')
    expect(figuresText(1.5, null, 3)).toBe('1.5/s · p99 – · 3 failed')
    expect(figuresText(0, 812.4, 0)).toBe('0/s · p99 812 ms')
  })
})
