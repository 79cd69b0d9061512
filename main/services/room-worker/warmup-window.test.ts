import { describe, expect, it } from 'vitest'
import { WarmupWindow } from './warmup-window'

const fast = { ok: true, attempts: 1, latencyMs: 10, isolated: false }
const slow = { ...fast, latencyMs: 500 }

function feed(w: WarmupWindow, sends: (typeof fast)[]): boolean[] {
  return sends.map((s) => w.add(s))
}

describe('WarmupWindow', () => {
  it('is warm once the window is full of clean, fast sends, not before', () => {
    const warm = feed(new WarmupWindow(10, 100), Array(10).fill(fast))
    expect(warm.slice(0, 9).every((w) => !w)).toBe(true)
    expect(warm[9]).toBe(true)
  })

  it('lets a tenth of the window be slow: one GC pause does not restart the count', () => {
    const w = new WarmupWindow(10, 100)
    expect(feed(w, [...Array(5).fill(fast), slow, ...Array(4).fill(fast)]).at(-1)).toBe(true)
  })

  it('is not warm with more slow sends than a tenth of the window', () => {
    const w = new WarmupWindow(10, 100)
    expect(feed(w, [slow, ...Array(4).fill(fast), slow, ...Array(4).fill(fast)]).at(-1)).toBe(false)
    // Once the first slow send has left the window, one remains: warm.
    expect(w.add(fast)).toBe(true)
  })

  it('waits until a failed, retried or isolating send has left the window', () => {
    for (const bad of [
      { ...fast, ok: false },
      { ...fast, attempts: 2 },
      { ...fast, isolated: true }
    ]) {
      const w = new WarmupWindow(10, 100)
      const warm = feed(w, [bad, ...Array(9).fill(fast)])
      expect(warm.at(-1)).toBe(false)
      expect(w.add(fast)).toBe(true)
    }
  })

  it('reads a send at exactly fastMs as slow', () => {
    const w = new WarmupWindow(10, 100)
    feed(w, Array(8).fill(fast))
    expect(
      feed(w, [
        { ...fast, latencyMs: 100 },
        { ...fast, latencyMs: 100 }
      ]).at(-1)
    ).toBe(false)
  })
})
