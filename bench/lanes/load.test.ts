import { describe, expect, it } from 'vitest'
import { argOrEnv, parseLoadSteps, parsePin } from './load'

describe('the lane benchmark load axis', () => {
  it('reads idle and busy-process counts, in order', () => {
    expect(parseLoadSteps('idle,8,24')).toEqual([
      { name: 'idle', busy: 0 },
      { name: '8 busy', busy: 8 },
      { name: '24 busy', busy: 24 }
    ])
    // Not asked: the host as it is, one step, no stress-ng.
    expect(parseLoadSteps(undefined)).toEqual([{ name: 'as is', busy: 0 }])
    expect(parseLoadSteps(' ')).toEqual([{ name: 'as is', busy: 0 }])
  })

  it('names a bad step and the fix', () => {
    expect(() => parseLoadSteps('idle,heavy')).toThrow(
      /"heavy" is not a load step.*--load idle,8,24/
    )
    expect(() => parseLoadSteps('-1')).toThrow(/"-1"/)
    expect(() => parseLoadSteps('2.5')).toThrow(/"2.5"/)
  })

  it('pins servers and clients to CPU lists, refusing anything else with an example', () => {
    expect(parsePin('0:1')).toEqual({ servers: '0', clients: '1' })
    expect(parsePin('0-1:2,3')).toEqual({ servers: '0-1', clients: '2,3' })
    expect(parsePin(undefined)).toBeNull()
    expect(() => parsePin('servers')).toThrow(/--pin 0:1/)
  })

  it('takes --name X, --name=X, or the environment', () => {
    expect(argOrEnv(['--lanes', 'a', '--load', 'idle,8'], 'load', 'x')).toBe('idle,8')
    expect(argOrEnv(['--load=24'], 'load', undefined)).toBe('24')
    expect(argOrEnv(['--lanes', 'a'], 'load', 'idle')).toBe('idle')
  })
})
