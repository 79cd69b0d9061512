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
