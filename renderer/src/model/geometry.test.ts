import { describe, expect, it } from 'vitest'
import twoRoomsJson from '../../../resources/topologies/two-rooms.json'
import { topologySchema } from '../../../common/topology'
import { emptyTopology, normalizeDocument, withCompleteLayout } from './document'
import type { Box } from './geometry'
import {
  GAP,
  NODE_H,
  NODE_W,
  ROOM_HEADER,
  ROOM_PAD,
  bezierObstructed,
  clampMember,
  midpoint,
  obstaclesNear,
  orthogonalRoute,
  roundedPath,
  segmentHitsBox,
  freeSlot,
  nextRoomPosition,
  roomAt,
  roomRects
} from './geometry'

const parsed = () => topologySchema.parse(twoRoomsJson)

describe('geometry', () => {
  it('places rooms without layout side by side, without overlap', () => {
    const rects = roomRects(parsed())
    const a = rects.get('room1')!
    const b = rects.get('room2')!
    expect(b.x).toBeGreaterThan(a.x + a.width)
    expect(roomAt(rects, { x: b.x + 5, y: b.y + 5 })).toBe('room2')
    expect(roomAt(rects, { x: -50, y: -50 })).toBeUndefined()
  })
  it('finds the first free slot in the kind row', () => {
    const d = withCompleteLayout(parsed())
    const p = freeSlot(d, d.rooms[0]!, 'nameserver')
    expect(p.y).toBe(d.layout!['ns-1']!.y)
    expect([d.layout!['ns-1']!.x, d.layout!['mgmt-1']!.x]).not.toContain(p.x)
  })
  it('puts a new room right of everything and the first one at the origin', () => {
    expect(nextRoomPosition(emptyTopology())).toEqual({ x: 0, y: 0 })
    const d = withCompleteLayout(parsed())
    const r2 = roomRects(d).get('room2')!
    expect(nextRoomPosition(d).x).toBeGreaterThan(r2.x + r2.width)
  })
  it('clamps members under the header', () => {
    expect(clampMember({ x: -10, y: 3.6 })).toEqual({ x: ROOM_PAD, y: ROOM_HEADER })
  })
})

describe('document helpers', () => {
  it('materialises a complete layout once and is idempotent', () => {
    const d = withCompleteLayout(parsed())
    expect(Object.keys(d.layout!)).toHaveLength(12)
    expect(withCompleteLayout(d)).toBe(d)
  })
  it('normalises valid, invalid-but-shaped and foreign documents', () => {
    expect(normalizeDocument(twoRoomsJson)?.rooms).toHaveLength(2)
    const broken = normalizeDocument({
      kind: 'drstudio/topology',
      version: 1,
      name: 'x',
      rooms: [{ id: 'r', brokers: [{ id: 'b', port: 'oops' }] }]
    })
    expect(broken?.rooms[0]).toMatchObject({
      id: 'r',
      nameServers: [],
      brokers: [{ id: 'b', port: 'oops' }]
    })
    expect(normalizeDocument({ hello: 1 })).toBeNull()
    expect(normalizeDocument('text')).toBeNull()
  })
})

describe('edge routing around nodes', () => {
  const box = (col: number, row: number): Box => ({
    x: ROOM_PAD + col * (NODE_W + GAP),
    y: ROOM_HEADER + row * (NODE_H + GAP),
    w: NODE_W,
    h: NODE_H
  })
  const top = (b: Box) => ({ x: b.x + b.w / 2, y: b.y })
  const bottom = (b: Box) => ({ x: b.x + b.w / 2, y: b.y + b.h })
  const hitsAny = (points: { x: number; y: number }[], boxes: Box[]) =>
    points.some((p, i) => i > 0 && boxes.some((b) => segmentHitsBox(points[i - 1]!, p, b)))

  it('clips segments against boxes', () => {
    const b = { x: 0, y: 0, w: 10, h: 10 }
    expect(segmentHitsBox({ x: -5, y: 5 }, { x: 15, y: 5 }, b)).toBe(true)
    expect(segmentHitsBox({ x: -5, y: 12 }, { x: 15, y: 12 }, b)).toBe(false)
    expect(segmentHitsBox({ x: -5, y: 12 }, { x: 15, y: 12 }, b, 3)).toBe(true)
    expect(segmentHitsBox({ x: 12, y: -20 }, { x: 12, y: 20 }, b)).toBe(false)
    expect(segmentHitsBox({ x: 2, y: 2 }, { x: 3, y: 3 }, b)).toBe(true)
  })

  it('the default room: producer → name server goes around the broker it used to cut through', () => {
    // Row 0: management, name server; row 1: broker; row 2: producer, consumer.
    const mgmt = box(0, 0)
    const ns = box(1, 0)
    const broker = box(0, 1)
    const producer = box(0, 2)
    const consumer = box(1, 2)
    const others = [mgmt, broker, consumer]
    expect(bezierObstructed(top(producer), bottom(ns), others)).toBe(true)
    const route = orthogonalRoute(top(producer), bottom(ns), others)!
    expect(route).not.toBeNull()
    expect(hitsAny(route.points, others)).toBe(false)
    expect(route.points[0]).toEqual(top(producer))
    expect(route.points[route.points.length - 1]).toEqual(bottom(ns))
    expect(route.d.startsWith(`M${top(producer).x},${top(producer).y}`)).toBe(true)
  })

  it('a direct line that is clear stays a plain curve', () => {
    expect(bezierObstructed(top(box(0, 2)), bottom(box(0, 1)), [box(1, 0), box(1, 2)])).toBe(false)
  })

  it('finds a lane between columns through a full grid', () => {
    const grid = [0, 1, 2, 3].flatMap((c) => [0, 1, 2, 3].map((r) => box(c, r)))
    const source = grid[3]!
    const target = grid[12]!
    const others = grid.filter((b) => b !== source && b !== target)
    expect([source, target]).toEqual([box(0, 3), box(3, 0)])
    const route = orthogonalRoute(top(source), bottom(target), others)!
    expect(route).not.toBeNull()
    expect(hitsAny(route.points, others)).toBe(false)
  })

  it('gives up (null) when no lane is free', () => {
    const s = { x: 100, y: 300 }
    const t = { x: 100, y: 0 }
    // A node right under the server's bottom, wider than anything: no way in from below.
    const wall = { x: -10_000, y: 2, w: 20_000, h: 30 }
    expect(orthogonalRoute(s, t, [wall])).toBeNull()
  })

  it('keeps only obstacles near the edge and puts labels halfway', () => {
    const near = obstaclesNear({ x: 0, y: 100 }, { x: 0, y: 0 }, [
      { x: -50, y: 40, w: 100, h: 20 },
      { x: 5000, y: 40, w: 100, h: 20 }
    ])
    expect(near).toHaveLength(1)
    expect(
      midpoint([
        { x: 0, y: 0 },
        { x: 0, y: 10 },
        { x: 10, y: 10 }
      ])
    ).toEqual({ x: 0, y: 10 })
    expect(
      roundedPath([
        { x: 0, y: 0 },
        { x: 0, y: 20 },
        { x: 20, y: 20 }
      ])
    ).toBe('M0,0 L0,12 Q0,20 8,20 L20,20')
  })
})
