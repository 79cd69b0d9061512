import { describe, expect, it } from 'vitest'
import { checkAction } from './node-actions'
import type { NodeAction, NodeState } from './sandbox'

describe('checkAction', () => {
  const ok = (state: NodeState, action: NodeAction): boolean => checkAction(state, action).ok

  it('allows the operations an operator expects', () => {
    expect(ok('up', 'kill')).toBe(true)
    expect(ok('up', 'pause')).toBe(true)
    expect(ok('paused', 'resume')).toBe(true)
    expect(ok('paused', 'kill')).toBe(true)
    expect(ok('killed', 'start')).toBe(true)
    expect(ok('down', 'restart')).toBe(true)
    expect(ok('failed', 'start')).toBe(true)
  })

  it('refuses impossible ones with a reason', () => {
    const r = checkAction('stopped', 'pause')
    expect(r).toEqual({ ok: false, reason: 'it is stopped; pause needs one of: up' })
    expect(ok('up', 'start')).toBe(false)
    expect(ok('up', 'resume')).toBe(false)
    expect(ok('paused', 'pause')).toBe(false)
    expect(ok('killed', 'kill')).toBe(false)
  })

  it('a replica electing or syncing is a live process: kill, stop and restart apply, pause waits for up', () => {
    for (const st of ['electing', 'syncing'] as const) {
      expect(ok(st, 'kill')).toBe(true)
      expect(ok(st, 'restart')).toBe(true)
      expect(checkAction(st, 'stop')).toEqual({ ok: true, noop: false })
      expect(ok(st, 'start')).toBe(false)
      expect(checkAction(st, 'pause')).toEqual({
        ok: false,
        reason: `it is ${st}; pause needs one of: up`
      })
    }
  })

  it('treats stop on a stopped node as a no-op', () => {
    expect(checkAction('stopped', 'stop')).toEqual({ ok: true, noop: true })
    expect(checkAction('up', 'stop')).toEqual({ ok: true, noop: false })
  })

  it('refuses everything on attached nodes', () => {
    for (const a of ['start', 'stop', 'kill', 'pause', 'resume', 'restart'] as const) {
      expect(checkAction('attached', a)).toEqual({ ok: false, reason: 'attached' })
    }
  })
})
