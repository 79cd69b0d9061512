import { describe, expect, it } from 'vitest'
import { canRedo, canUndo, createHistory, pushState, redo, undo } from './history'

describe('history', () => {
  it('pushes, undoes, redoes and ignores unchanged states', () => {
    let h = createHistory({ v: 0 })
    const same = h
    expect(pushState(h, h.present)).toBe(same)
    h = pushState(h, { v: 1 })
    h = pushState(h, { v: 2 })
    expect([canUndo(h), canRedo(h)]).toEqual([true, false])
    h = undo(undo(h))
    expect(h.present).toEqual({ v: 0 })
    expect([canUndo(h), canRedo(h)]).toEqual([false, true])
    h = redo(h)
    expect(h.present).toEqual({ v: 1 })
  })
  it('keeps at most the limit of past states, dropping the oldest', () => {
    let h = createHistory(0)
    for (let i = 1; i <= 10; i++) h = pushState(h, i, 3)
    expect(h.past).toEqual([7, 8, 9])
  })
})
