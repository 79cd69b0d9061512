import type { NodeKind, RoomSpec, Topology, TopologyNode } from '../../../common/topology'
import {
  NODE_KINDS,
  ROOM_KEY,
  listNodes,
  topologySchema,
  topologySettingsSchema
} from '../../../common/topology'
import type { XY } from './geometry'
import { defaultMemberPositions, roomRects } from './geometry'

/** Human names of node kinds, used in labels, menus and aria-labels. */
export const KIND_LABEL: Record<NodeKind, string> = {
  nameserver: 'name server',
  broker: 'broker',
  management: 'management node',
  proxy: 'proxy',
  controller: 'controller',
  producer: 'producer',
  consumer: 'consumer'
}

/** Id prefixes for generated ids, matching the shipped topologies (ns-1, broker-1, mgmt-1...). */
export const KIND_PREFIX: Record<NodeKind, string> = {
  nameserver: 'ns',
  broker: 'broker',
  management: 'mgmt',
  proxy: 'proxy',
  controller: 'ctl',
  producer: 'producer',
  consumer: 'consumer'
}

/** A blank document; the canvas shows an "Add room" call to action for it. */
export function emptyTopology(name = 'untitled'): Topology {
  return {
    kind: 'drstudio/topology',
    version: 1,
    name,
    settings: topologySettingsSchema.parse({}),
    topics: [],
    rooms: [],
    layout: {}
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * Turns what the engine sent into an editable document.
 *
 * A valid file gets its defaults applied; an invalid one is kept as written (with missing arrays
 * filled) so the Problems list can point at it instead of refusing to open it.
 */
export function normalizeDocument(value: unknown): Topology | null {
  const parsed = topologySchema.safeParse(value)
  if (parsed.success) return parsed.data
  if (!isRecord(value) || !Array.isArray(value.rooms)) return null
  const rooms = value.rooms.filter(isRecord).map((r) => {
    const room: Record<string, unknown> = { ...r, id: typeof r.id === 'string' ? r.id : '' }
    for (const kind of NODE_KINDS) {
      const key = ROOM_KEY[kind]
      room[key] = Array.isArray(r[key]) ? (r[key] as unknown[]).filter(isRecord) : []
    }
    return room as RoomSpec
  })
  return {
    ...(value as Partial<Topology>),
    kind: 'drstudio/topology',
    version: 1,
    name: typeof value.name === 'string' ? value.name : 'untitled',
    settings: isRecord(value.settings)
      ? (value.settings as Topology['settings'])
      : topologySettingsSchema.parse({}),
    topics: Array.isArray(value.topics) ? (value.topics as Topology['topics']) : [],
    rooms,
    layout: isRecord(value.layout) ? (value.layout as Topology['layout']) : {}
  } as Topology
}

/** Every room and node id in the document. */
export function allIds(topology: Topology): Set<string> {
  const ids = new Set<string>()
  for (const room of topology.rooms) ids.add(room.id)
  for (const n of listNodes(topology)) ids.add(n.id)
  return ids
}

/** `prefix-N` with the smallest N not taken (rooms use `roomN`, like the shipped files). */
export function uniqueId(taken: Set<string>, prefix: string, separator = '-'): string {
  for (let i = 1; ; i++) {
    const id = `${prefix}${separator}${i}`
    if (!taken.has(id)) return id
  }
}

/** Strips a trailing counter so copies of broker-1 are named broker-N, not broker-1-1. */
export function idStem(id: string): { prefix: string; separator: string } {
  const m = /^(.*?)([-_]?)(\d+)$/.exec(id)
  if (m && m[1]) return { prefix: m[1], separator: m[2] ?? '' }
  return { prefix: id, separator: '-' }
}

export function findRoom(topology: Topology, id: string): RoomSpec | undefined {
  return topology.rooms.find((r) => r.id === id)
}

/** The room holding a node, or the room itself when the id is a room. */
export function roomIdOf(topology: Topology, id: string): string | undefined {
  if (findRoom(topology, id)) return id
  return listNodes(topology).find((n) => n.id === id)?.room
}

export function nodeById(topology: Topology, id: string): TopologyNode | undefined {
  return listNodes(topology).find((n) => n.id === id)
}

/**
 * Writes the positions the canvas would draw into `layout`, so later edits never shift nodes
 * that were placed by default. Returns the same object when nothing was missing.
 */
export function withCompleteLayout(topology: Topology): Topology {
  const layout: Record<string, XY> = { ...(topology.layout ?? {}) }
  let changed = topology.layout === undefined
  for (const room of topology.rooms) {
    const defaults = defaultMemberPositions(room)
    for (const [id, p] of defaults) {
      if (!layout[id]) {
        layout[id] = p
        changed = true
      }
    }
  }
  const rects = roomRects({ ...topology, layout })
  for (const room of topology.rooms) {
    if (!layout[room.id]) {
      const r = rects.get(room.id)!
      layout[room.id] = { x: r.x, y: r.y }
      changed = true
    }
  }
  return changed ? { ...topology, layout } : topology
}
