import { describe, expect, it } from 'vitest'
import { roundOrder } from './round-order'

/** How often lane b runs right after lane a over `rounds` rounds (within a round). */
function follows(n: number, rounds: number): Map<string, number> {
  const out = new Map<string, number>()
  for (let r = 0; r < rounds; r++) {
    const o = roundOrder(n, r)
    for (let i = 1; i < o.length; i++) {
      const key = `${o[i - 1]}>${o[i]}`
      out.set(key, (out.get(key) ?? 0) + 1)
    }
  }
  return out
}

describe('roundOrder', () => {
  it('is the Williams square for four lanes', () => {
    expect([0, 1, 2, 3, 4].map((r) => roundOrder(4, r))).toEqual([
      [0, 1, 3, 2],
      [1, 2, 0, 3],
      [2, 3, 1, 0],
      [3, 0, 2, 1],
      [0, 1, 3, 2]
    ])
  })

  it('has every lane once per round and every lane after every other one equally often', () => {
    for (const n of [2, 3, 4, 5, 6]) {
      const period = n % 2 === 0 ? n : 2 * n
      for (let r = 0; r < period; r++) {
        expect([...roundOrder(n, r)].sort((a, b) => a - b)).toEqual([...Array(n).keys()])
      }
      const f = follows(n, period)
      expect(f.size).toBe(n * (n - 1))
      expect(new Set(f.values()).size).toBe(1)
    }
  })

  it('a rotation does not balance neighbours: the property the order exists for', () => {
    const rotation = (n: number, r: number): number[] =>
      [...Array(n).keys()].map((i) => (i + r) % n)
    const f = new Map<string, number>()
    for (let r = 0; r < 4; r++) {
      const o = rotation(4, r)
      for (let i = 1; i < 4; i++)
        f.set(`${o[i - 1]}>${o[i]}`, (f.get(`${o[i - 1]}>${o[i]}`) ?? 0) + 1)
    }
    expect(f.size).toBe(4)
  })

  it('handles no lanes and a single lane', () => {
    expect(roundOrder(0, 3)).toEqual([])
    expect(roundOrder(1, 7)).toEqual([0])
  })
})
