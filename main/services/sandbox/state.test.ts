import { describe, expect, it } from 'vitest'
import { stateAfterExit, stateAfterSignal } from './state'

describe('stateAfterExit', () => {
  it('reflects what we asked for, or tells a crash from a failed boot', () => {
    expect(stateAfterExit('up', 'kill')).toBe('killed')
    expect(stateAfterExit('paused', 'stop')).toBe('stopped')
    expect(stateAfterExit('starting', undefined)).toBe('failed')
    expect(stateAfterExit('up', undefined)).toBe('down')
    expect(stateAfterExit('paused', undefined)).toBe('down')
    expect(stateAfterExit('electing', undefined)).toBe('down')
    expect(stateAfterExit('syncing', 'kill')).toBe('killed')
  })
})

describe('stateAfterSignal', () => {
  it('pauses only a node that is up and resumes only a paused one', () => {
    expect(stateAfterSignal('up', 'pause')).toBe('paused')
    expect(stateAfterSignal('paused', 'resume')).toBe('up')
    expect(stateAfterSignal('starting', 'pause')).toBe('starting')
  })
})
