import type { NodeKind, RoomSpec, Topology } from '../../../common/topology'
import { NODE_KINDS, ROOM_KEY } from '../../../common/topology'

/** A canvas point; layout stores room positions absolute and node positions relative to their room. */
export interface XY {
  x: number
  y: number
}

export interface Rect extends XY {
  width: number
  height: number
}

export const NODE_W = 200
export const NODE_H = 58
export const GAP = 16
export const ROOM_PAD = 16
export const ROOM_HEADER = 40
export const ROOM_GAP = 64
export const ROOM_MIN_W = 260
export const ROOM_MIN_H = 150

/** Default grid width inside a room; longer kind groups wrap onto more lines. */
export const GRID_COLS = 4

/** Kind groups of the default grid, top to bottom: control plane, brokers, then clients. */
export const KIND_ROW: Record<NodeKind, number> = {
  management: 0,
  nameserver: 0,
  proxy: 0,
  controller: 0,
  broker: 1,
  producer: 2,
  consumer: 2
}

/** Top-left of a grid slot inside a room. */
export function slotPosition(row: number, col: number): XY {
  return { x: ROOM_PAD + col * (NODE_W + GAP), y: ROOM_HEADER + row * (NODE_H + GAP) }
}

/** Member ids of a room in document order, with their kinds. */
export function roomMembers(room: RoomSpec): { id: string; kind: NodeKind }[] {
  const out: { id: string; kind: NodeKind }[] = []
  for (const kind of NODE_KINDS) {
    for (const spec of room[ROOM_KEY[kind]] ?? []) out.push({ id: spec.id, kind })
  }
  return out
}

/** Default positions of a room's members: one block per kind group, wrapping at GRID_COLS. */
export function defaultMemberPositions(room: RoomSpec): Map<string, XY> {
  const groups: string[][] = [[], [], []]
  for (const m of roomMembers(room)) groups[KIND_ROW[m.kind]]!.push(m.id)
  const out = new Map<string, XY>()
  let line = 0
  for (const ids of groups) {
    ids.forEach((id, i) =>
      out.set(id, slotPosition(line + Math.floor(i / GRID_COLS), i % GRID_COLS))
    )
    line += Math.ceil(ids.length / GRID_COLS)
  }
  return out
}

/** Where a member sits: its layout entry or its default grid slot. */
export function memberPosition(topology: Topology, room: RoomSpec, id: string): XY {
  return topology.layout?.[id] ?? defaultMemberPositions(room).get(id) ?? slotPosition(0, 0)
}

/** Room size grows to contain its members, so dragging a node outwards enlarges the room. */
export function roomSize(topology: Topology, room: RoomSpec): { width: number; height: number } {
  let width = ROOM_MIN_W
  let height = ROOM_MIN_H
  const defaults = defaultMemberPositions(room)
  for (const m of roomMembers(room)) {
    const p = topology.layout?.[m.id] ?? defaults.get(m.id)!
    width = Math.max(width, p.x + NODE_W + ROOM_PAD)
    height = Math.max(height, p.y + NODE_H + ROOM_PAD)
  }
  return { width, height }
}

/** Absolute rectangles of all rooms; rooms without a layout entry are placed after the others. */
export function roomRects(topology: Topology): Map<string, Rect> {
  const out = new Map<string, Rect>()
  let nextX = 0
  for (const room of topology.rooms) {
    const p = topology.layout?.[room.id]
    if (p) {
      const s = roomSize(topology, room)
      nextX = Math.max(nextX, p.x + s.width + ROOM_GAP)
    }
  }
  for (const room of topology.rooms) {
    if (out.has(room.id)) continue
    const s = roomSize(topology, room)
    const p = topology.layout?.[room.id]
    if (p) out.set(room.id, { ...p, ...s })
    else {
      out.set(room.id, { x: nextX, y: 0, ...s })
      nextX += s.width + ROOM_GAP
    }
  }
  return out
}

/**
 * A free spot for a new member: first on a line its kind group already uses, then below
 * everything, so a new node never lands on another one.
 */
export function freeSlot(topology: Topology, room: RoomSpec, kind: NodeKind): XY {
  const members = roomMembers(room).map((m) => ({ ...m, p: memberPosition(topology, room, m.id) }))
  const taken = members.map((m) => m.p)
  const clash = (p: XY) =>
    taken.some(
      (t) => Math.abs(t.x - p.x) < NODE_W + GAP / 2 && Math.abs(t.y - p.y) < NODE_H + GAP / 2
    )
  const lines = [
    ...new Set(members.filter((m) => KIND_ROW[m.kind] === KIND_ROW[kind]).map((m) => m.p.y))
  ].sort((a, b) => a - b)
  if (!members.length) lines.push(ROOM_HEADER)
  for (const y of lines) {
    for (let col = 0; col < GRID_COLS; col++) {
      const p = { x: ROOM_PAD + col * (NODE_W + GAP), y }
      if (!clash(p)) return p
    }
  }
  const bottom = Math.max(ROOM_HEADER - NODE_H - GAP, ...taken.map((t) => t.y))
  return { x: ROOM_PAD, y: bottom + NODE_H + GAP }
}

/** Position for a new room: to the right of everything, aligned with the first room. */
export function nextRoomPosition(topology: Topology): XY {
  let x = 0
  let y = 0
  let first = true
  for (const r of roomRects(topology).values()) {
    x = Math.max(x, r.x + r.width + ROOM_GAP)
    if (first) y = r.y
    first = false
  }
  return { x, y }
}

/** Room whose rectangle contains the point, last one wins as it is drawn on top. */
export function roomAt(rects: Map<string, Rect>, p: XY): string | undefined {
  let hit: string | undefined
  for (const [id, r] of rects) {
    if (p.x >= r.x && p.x <= r.x + r.width && p.y >= r.y && p.y <= r.y + r.height) hit = id
  }
  return hit
}

/** Keeps a member below the room header and inside the left/top padding. */
export function clampMember(p: XY): XY {
  return { x: Math.max(ROOM_PAD, Math.round(p.x)), y: Math.max(ROOM_HEADER, Math.round(p.y)) }
}

/** An axis-aligned box in flow coordinates (a node on the canvas). */
export interface Box {
  x: number
  y: number
  w: number
  h: number
}

/** Whether segment a–b passes through `box` grown by `margin` (Liang–Barsky clipping). */
export function segmentHitsBox(a: XY, b: XY, box: Box, margin = 0): boolean {
  const x0 = box.x - margin
  const y0 = box.y - margin
  const x1 = box.x + box.w + margin
  const y1 = box.y + box.h + margin
  const dx = b.x - a.x
  const dy = b.y - a.y
  let t0 = 0
  let t1 = 1
  const clip = (p: number, q: number): boolean => {
    if (p === 0) return q > 0
    const r = q / p
    if (p < 0) {
      if (r > t1) return false
      if (r > t0) t0 = r
    } else {
      if (r < t0) return false
      if (r < t1) t1 = r
    }
    return true
  }
  return (
    clip(-dx, a.x - x0) &&
    clip(dx, x1 - a.x) &&
    clip(-dy, a.y - y0) &&
    clip(dy, y1 - a.y) &&
    t1 - t0 > 1e-9
  )
}

/** Control offset of React Flow's bezier edges (curvature 0.25), so our test matches its shape. */
function controlOffset(distance: number): number {
  return distance >= 0 ? 0.5 * distance : 0.25 * 25 * Math.sqrt(-distance)
}

/** Points along the live edge's bezier (top of the client to the bottom of the server). */
export function bezierPoints(s: XY, t: XY, steps = 16): XY[] {
  const off = controlOffset(s.y - t.y)
  const c1 = { x: s.x, y: s.y - off }
  const c2 = { x: t.x, y: t.y + off }
  const out: XY[] = []
  for (let i = 0; i <= steps; i++) {
    const u = i / steps
    const v = 1 - u
    out.push({
      x: v * v * v * s.x + 3 * v * v * u * c1.x + 3 * v * u * u * c2.x + u * u * u * t.x,
      y: v * v * v * s.y + 3 * v * v * u * c1.y + 3 * v * u * u * c2.y + u * u * u * t.y
    })
  }
  return out
}

function polylineHits(points: readonly XY[], obstacles: readonly Box[], margin: number): boolean {
  for (let i = 1; i < points.length; i++) {
    for (const o of obstacles)
      if (segmentHitsBox(points[i - 1]!, points[i]!, o, margin)) return true
  }
  return false
}

/** Whether the plain bezier from s to t crosses any obstacle. */
export function bezierObstructed(s: XY, t: XY, obstacles: readonly Box[]): boolean {
  return polylineHits(bezierPoints(s, t), obstacles, 2)
}

/** Drops repeated and collinear points. */
function simplify(points: readonly XY[]): XY[] {
  const out: XY[] = []
  for (const p of points) {
    const last = out[out.length - 1]
    if (last && last.x === p.x && last.y === p.y) continue
    const prev = out[out.length - 2]
    if (
      prev &&
      last &&
      ((prev.x === last.x && last.x === p.x) || (prev.y === last.y && last.y === p.y))
    ) {
      out[out.length - 1] = p
      continue
    }
    out.push(p)
  }
  return out
}

/** A polyline as an svg path with rounded corners (radius up to `r`). */
export function roundedPath(points: readonly XY[], r = 8): string {
  if (points.length < 2) return ''
  let d = `M${points[0]!.x},${points[0]!.y}`
  for (let i = 1; i < points.length - 1; i++) {
    const p = points[i - 1]!
    const c = points[i]!
    const n = points[i + 1]!
    const lin = Math.hypot(c.x - p.x, c.y - p.y)
    const lout = Math.hypot(n.x - c.x, n.y - c.y)
    const k = Math.min(r, lin / 2, lout / 2)
    const a = { x: c.x + ((p.x - c.x) / lin) * k, y: c.y + ((p.y - c.y) / lin) * k }
    const b = { x: c.x + ((n.x - c.x) / lout) * k, y: c.y + ((n.y - c.y) / lout) * k }
    d += ` L${a.x},${a.y} Q${c.x},${c.y} ${b.x},${b.y}`
  }
  const last = points[points.length - 1]!
  return `${d} L${last.x},${last.y}`
}

/** The point halfway along a polyline, where an edge's label goes. */
export function midpoint(points: readonly XY[]): XY {
  let total = 0
  for (let i = 1; i < points.length; i++) {
    total += Math.hypot(points[i]!.x - points[i - 1]!.x, points[i]!.y - points[i - 1]!.y)
  }
  let left = total / 2
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1]!
    const b = points[i]!
    const l = Math.hypot(b.x - a.x, b.y - a.y)
    if (l >= left && l > 0)
      return { x: a.x + ((b.x - a.x) * left) / l, y: a.y + ((b.y - a.y) * left) / l }
    left -= l
  }
  return points[0] ?? { x: 0, y: 0 }
}

export interface OrthogonalRoute {
  points: XY[]
  d: string
  label: XY
}

/**
 * A route from a client's top (s) to a server's bottom (t) that goes around the obstacles: up
 * into the gap above the client, along it to a free vertical lane (a gap between columns), along
 * the lane to the gap below the server, then into it. Null when no such lane is free.
 */
export function orthogonalRoute(s: XY, t: XY, obstacles: readonly Box[]): OrthogonalRoute | null {
  const lead = GAP / 2
  const y1 = s.y - lead
  const y2 = t.y + lead
  const lanes = new Set<number>([s.x, t.x, (s.x + t.x) / 2])
  for (const o of obstacles) {
    lanes.add(o.x - GAP / 2)
    lanes.add(o.x + o.w + GAP / 2)
  }
  const cost = (x: number) => Math.abs(s.x - x) + Math.abs(x - t.x)
  for (const x of [...lanes].sort((a, b) => cost(a) - cost(b))) {
    const points = simplify([
      s,
      { x: s.x, y: y1 },
      { x, y: y1 },
      { x, y: y2 },
      { x: t.x, y: y2 },
      t
    ])
    if (!polylineHits(points, obstacles, 3)) {
      return { points, d: roundedPath(points), label: midpoint(points) }
    }
  }
  return null
}

/** Obstacles near the straight line between two points (a cheap filter before routing). */
export function obstaclesNear<B extends Box>(
  s: XY,
  t: XY,
  boxes: readonly B[],
  pad = NODE_W + GAP
): B[] {
  const x0 = Math.min(s.x, t.x) - pad
  const x1 = Math.max(s.x, t.x) + pad
  const y0 = Math.min(s.y, t.y) - NODE_H
  const y1 = Math.max(s.y, t.y) + NODE_H
  return boxes.filter((b) => b.x < x1 && b.x + b.w > x0 && b.y < y1 && b.y + b.h > y0)
}
