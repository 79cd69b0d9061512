import { describe, expect, it } from 'vitest'
import type { Box } from './geometry'
import { cubicAt, cubicTangent, linkArcs, subCubic } from './link-geometry'

const c = { p0: { x: 0, y: 0 }, p1: { x: 0, y: 100 }, p2: { x: 200, y: 100 }, p3: { x: 200, y: 0 } }

describe('cubic helpers', () => {
  it('evaluates ends, the middle and its tangent', () => {
    expect(cubicAt(c, 0)).toEqual(c.p0)
    expect(cubicAt(c, 1)).toEqual(c.p3)
    expect(cubicAt(c, 0.5)).toEqual({ x: 100, y: 75 })
    const t = cubicTangent(c, 0.5)
    expect(t.y).toBeCloseTo(0)
    expect(t.x).toBeGreaterThan(0)
  })

  it('cuts out a part that lies on the curve', () => {
    const part = subCubic(c, 0.25, 0.75)
    for (const [u, t] of [
      [0, 0.25],
      [0.5, 0.5],
      [1, 0.75]
    ] as const) {
      const p = cubicAt(part, u)
      const q = cubicAt(c, t)
      expect(p.x).toBeCloseTo(q.x)
      expect(p.y).toBeCloseTo(q.y)
    }
    expect(subCubic(c, 0, 0.5).p0).toEqual(c.p0)
  })
})

describe('linkArcs', () => {
  const room = (x: number, h = 200): Box => ({ x, y: 0, w: 300, h })

  it('hangs every link below the rooms it passes, far links deeper than near ones', () => {
    const rooms = new Map([
      ['room1', room(0)],
      ['room2', room(400, 320)],
      ['room3', room(800)]
    ])
    const arcs = linkArcs(rooms, [
      { key: 'room1~room2', a: 'room1', b: 'room2' },
      { key: 'room1~room3', a: 'room1', b: 'room3' },
      { key: 'room2~room3', a: 'room2', b: 'room3' }
    ])
    const near = arcs.get('room1~room2')!
    const far = arcs.get('room1~room3')!
    expect(near.p0.y).toBe(200)
    expect(near.p3.y).toBe(320)
    // The far link passes under room2 (bottom 320) and is deeper than the near one.
    expect(cubicAt(far, 0.5).y).toBeGreaterThan(320)
    expect(cubicAt(far, 0.5).y).toBeGreaterThan(cubicAt(near, 0.5).y)
    // Ends spread along room1's bottom: the farther peer's end nearer the centre.
    const centre = 150
    expect(far.p0.x - centre).toBeLessThan(near.p0.x - centre)
    expect(near.p0.x).toBeGreaterThan(centre)
  })

  it('skips links to rooms not on the canvas', () => {
    expect(
      linkArcs(new Map([['room1', room(0)]]), [{ key: 'k', a: 'room1', b: 'gone' }]).size
    ).toBe(0)
  })
})
