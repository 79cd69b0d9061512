import { describe, expect, it } from 'vitest'
import { SWEEP_SETTINGS, sweepFlag } from './sweep-view'

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
