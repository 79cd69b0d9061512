import { describe, expect, it } from 'vitest'
import twoRoomsJson from '../../../resources/topologies/two-rooms.json'
import { topologySchema } from '../../../common/topology'
import { emptyTopology, normalizeDocument, withCompleteLayout } from './document'
import {
  ROOM_HEADER,
  ROOM_PAD,
  clampMember,
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
