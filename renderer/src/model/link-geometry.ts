import type { Box, XY } from './geometry'

/** A cubic bezier by its four points. */
export interface Cubic {
  p0: XY
  p1: XY
  p2: XY
  p3: XY
}

const lerp = (a: XY, b: XY, t: number): XY => ({
  x: a.x + (b.x - a.x) * t,
  y: a.y + (b.y - a.y) * t
})

export function cubicAt(c: Cubic, t: number): XY {
  const a = lerp(c.p0, c.p1, t)
  const b = lerp(c.p1, c.p2, t)
  const d = lerp(c.p2, c.p3, t)
  return lerp(lerp(a, b, t), lerp(b, d, t), t)
}

/** Direction of travel at t (not normalised). */
export function cubicTangent(c: Cubic, t: number): XY {
  const u = 1 - t
  const f = (k: 'x' | 'y') =>
    3 * u * u * (c.p1[k] - c.p0[k]) +
    6 * u * t * (c.p2[k] - c.p1[k]) +
    3 * t * t * (c.p3[k] - c.p2[k])
  return { x: f('x'), y: f('y') }
}

/** The part of `c` between t0 and t1 (de Casteljau), itself a cubic. */
export function subCubic(c: Cubic, t0: number, t1: number): Cubic {
  const split = (k: Cubic, t: number): [Cubic, Cubic] => {
    const a = lerp(k.p0, k.p1, t)
    const b = lerp(k.p1, k.p2, t)
    const d = lerp(k.p2, k.p3, t)
    const ab = lerp(a, b, t)
    const bd = lerp(b, d, t)
    const m = lerp(ab, bd, t)
    return [
      { p0: k.p0, p1: a, p2: ab, p3: m },
      { p0: m, p1: bd, p2: d, p3: k.p3 }
    ]
  }
  const [left] = split(c, t1)
  if (t0 <= 0) return left
  return split(left, t0 / t1)[1]
}

const r1 = (n: number) => Math.round(n * 10) / 10

export function cubicPath(c: Cubic): string {
  return `M${r1(c.p0.x)},${r1(c.p0.y)} C${r1(c.p1.x)},${r1(c.p1.y)} ${r1(c.p2.x)},${r1(c.p2.y)} ${r1(c.p3.x)},${r1(c.p3.y)}`
}

/**
 * Arcs for the links between rooms, hanging below the rooms (cross-room traffic arcs rise above
 * them): each from the bottom edge of one room to the other's, dipping below every room between
 * them and deeper the further apart the rooms are, so near links nest inside far ones. A room's
 * link ends spread along its bottom edge, the farthest peer nearest the centre.
 */
export function linkArcs(
  rooms: ReadonlyMap<string, Box>,
  links: readonly { key: string; a: string; b: string }[]
): Map<string, Cubic> {
  const cx = (b: Box) => b.x + b.w / 2
  // Per room, its peers on each side, farthest first.
  const offsets = new Map<string, number>()
  const byRoom = new Map<string, { key: string; peer: Box }[]>()
  for (const l of links) {
    const a = rooms.get(l.a)
    const b = rooms.get(l.b)
    if (!a || !b) continue
    for (const [self, peer] of [
      [l.a, b],
      [l.b, a]
    ] as const) {
      let list = byRoom.get(self)
      if (!list) byRoom.set(self, (list = []))
      list.push({ key: l.key, peer })
    }
  }
  for (const [room, list] of byRoom) {
    const box = rooms.get(room)!
    const centre = cx(box)
    const limit = Math.max(0, box.w / 2 - 12)
    for (const side of [-1, 1]) {
      const mine = list
        .filter((p) => Math.sign(cx(p.peer) - centre || 1) === side)
        .sort((p, q) => Math.abs(cx(q.peer) - centre) - Math.abs(cx(p.peer) - centre))
      mine.forEach((p, rank) =>
        offsets.set(`${room}|${p.key}`, side * Math.min(limit, 10 + rank * 16))
      )
    }
  }
  const out = new Map<string, Cubic>()
  for (const l of links) {
    const a = rooms.get(l.a)
    const b = rooms.get(l.b)
    if (!a || !b) continue
    const p0 = { x: cx(a) + (offsets.get(`${l.a}|${l.key}`) ?? 0), y: a.y + a.h }
    const p3 = { x: cx(b) + (offsets.get(`${l.b}|${l.key}`) ?? 0), y: b.y + b.h }
    const [lo, hi] = p0.x <= p3.x ? [p0.x, p3.x] : [p3.x, p0.x]
    let floor = Math.max(p0.y, p3.y)
    for (const r of rooms.values()) {
      if (r.x < hi && r.x + r.w > lo) floor = Math.max(floor, r.y + r.h)
    }
    // The curve's lowest point is 3/4 of the control depth plus 1/8 of each end: keep it clear of
    // the deepest room it passes under.
    const dip = Math.max(floor + 34 + (hi - lo) * 0.06, (floor + 26 - (p0.y + p3.y) / 8) / 0.75)
    out.set(l.key, { p0, p1: { x: p0.x, y: dip }, p2: { x: p3.x, y: dip }, p3 })
  }
  return out
}
