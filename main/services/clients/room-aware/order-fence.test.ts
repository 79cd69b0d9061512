import { describe, expect, it } from 'vitest'
import { OrderFences } from './order-fence'

describe('OrderFences', () => {
  it('holds a key whose send ended unanswered until the fence passes, then forgets it', () => {
    const f = new OrderFences(1000)
    f.failed('k1', 5000)
    expect(f.waitFor('k1', 5200)).toBe(800)
    expect(f.waitFor('k2', 5200)).toBe(0)
    expect(f.waitFor('k1', 6000)).toBe(0)
    expect(f.size).toBe(0)
  })

  it('does not hold a key whose failed send was answered (refused: nothing left to store)', () => {
    const f = new OrderFences(1000)
    f.failed('k1', undefined)
    expect(f.waitFor('k1', 0)).toBe(0)
    expect(f.size).toBe(0)
  })

  it('runs from the last unanswered send of the key', () => {
    const f = new OrderFences(1000)
    f.failed('k1', 5000)
    f.failed('k1', 5600)
    expect(f.waitFor('k1', 6200)).toBe(400)
  })
})
