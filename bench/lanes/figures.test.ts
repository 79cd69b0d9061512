import { describe, expect, it } from 'vitest'
import { servingAgainAt } from './figures'

describe('servingAgainAt', () => {
  const step = { abs: 1000, nodes: ['broker-1', 'namesrv-1'] }
  it('is the last repaired node back up after the step, not the step itself', () => {
    const states = [
      { atMs: 500, nodeId: 'broker-1', state: 'up' },
      { atMs: 1000, nodeId: 'broker-1', state: 'starting' },
      { atMs: 1200, nodeId: 'namesrv-1', state: 'up' },
      { atMs: 8700, nodeId: 'broker-1', state: 'up' }
    ]
    expect(servingAgainAt(step, states)).toBe(8700)
  })
  it('is never when a restarted node was not seen up again', () => {
    const states = [
      { atMs: 1000, nodeId: 'broker-1', state: 'starting' },
      { atMs: 1200, nodeId: 'namesrv-1', state: 'up' }
    ]
    expect(servingAgainAt(step, states)).toBe(Infinity)
  })
  it('is the step’s time for a repair of nothing the sandbox tracks (heal, a client restart)', () => {
    expect(servingAgainAt({ abs: 1000, nodes: ['room1'] }, [])).toBe(1000)
    expect(servingAgainAt(undefined, [])).toBe(Infinity)
  })
})
