import type {
  BrokerSpec,
  NodeKind,
  RoomSpec,
  Topology,
  TopologySettings,
  TopicSpec
} from '../../../common/topology'
import { NODE_KINDS, ROOM_KEY, idSchema, listNodes } from '../../../common/topology'
import type { XY } from './geometry'
import { clampMember, freeSlot, nextRoomPosition, roomRects } from './geometry'
import { KIND_PREFIX, allIds, idStem, uniqueId } from './document'

/** Any node spec; the reducer edits them generically and the schema validates them afterwards. */
export type AnySpec = { id: string } & Record<string, unknown>

/** What copy puts on the clipboard: whole rooms (with members) and loose nodes. */
export interface Fragment {
  rooms: { room: RoomSpec; position?: XY; layout: Record<string, XY> }[]
  nodes: { kind: NodeKind; spec: AnySpec; room: string; position?: XY }[]
}

/** Every edit the designer can make; each one is one undo step. */
export type DocAction =
  | { type: 'add-room'; id?: string; name?: string; position?: XY }
  | {
      type: 'add-node'
      kind: NodeKind
      roomId: string
      id?: string
      /** For a slave broker: the master whose cluster and brokerName it joins. */
      masterId?: string
      spec?: Record<string, unknown>
      position?: XY
    }
  | { type: 'move-node-to-room'; nodeId: string; roomId: string; position?: XY }
  | { type: 'update-node'; nodeId: string; patch: Record<string, unknown> }
  | { type: 'update-room'; roomId: string; patch: { name?: string | undefined } }
  | {
      type: 'update-topology'
      patch: {
        name?: string
        description?: string | undefined
        settings?: Partial<TopologySettings>
        topics?: TopicSpec[]
      }
    }
  | { type: 'rename'; from: string; to: string }
  | { type: 'delete'; ids: string[] }
  | { type: 'paste'; fragment: Fragment; targetRoomId?: string; offset?: XY }
  | { type: 'set-layout'; positions: Record<string, XY | null> }
  /** Several edits as one undo step (a multi-node drag, a cut). */
  | { type: 'batch'; actions: DocAction[] }

type Room = RoomSpec & Record<string, unknown>

function specsOf(room: RoomSpec, kind: NodeKind): AnySpec[] {
  return (room[ROOM_KEY[kind]] ?? []) as AnySpec[]
}

function withSpecs(room: RoomSpec, kind: NodeKind, specs: AnySpec[]): RoomSpec {
  return { ...room, [ROOM_KEY[kind]]: specs } as Room
}

function locate(doc: Topology, id: string): { r: number; kind: NodeKind; i: number } | undefined {
  for (let r = 0; r < doc.rooms.length; r++) {
    for (const kind of NODE_KINDS) {
      const i = specsOf(doc.rooms[r]!, kind).findIndex((s) => s.id === id)
      if (i >= 0) return { r, kind, i }
    }
  }
  return undefined
}

function replaceRoom(doc: Topology, r: number, room: RoomSpec): Topology {
  const rooms = doc.rooms.slice()
  rooms[r] = room
  return { ...doc, rooms }
}

function applyPatch<T extends Record<string, unknown>>(obj: T, patch: Record<string, unknown>): T {
  const out: Record<string, unknown> = { ...obj }
  for (const [k, v] of Object.entries(patch)) {
    if (k === 'id') continue
    if (v === undefined) delete out[k]
    else out[k] = v
  }
  return out as T
}

function shallowEqual(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const ka = Object.keys(a)
  if (ka.length !== Object.keys(b).length) return false
  return ka.every((k) => Object.is(a[k], b[k]) || JSON.stringify(a[k]) === JSON.stringify(b[k]))
}

function setLayout(doc: Topology, positions: Record<string, XY | null>): Topology {
  const layout: Record<string, XY> = { ...(doc.layout ?? {}) }
  let changed = false
  for (const [id, p] of Object.entries(positions)) {
    const old = layout[id]
    if (p === null) {
      if (old) {
        delete layout[id]
        changed = true
      }
    } else if (!old || old.x !== p.x || old.y !== p.y) {
      layout[id] = { x: p.x, y: p.y }
      changed = true
    }
  }
  return changed ? { ...doc, layout } : doc
}

/**
 * Keeps rooms apart when one widens: the rooms to its right that share its rows move right by as
 * much, so rooms added side by side and filled afterwards never overlap.
 */
function makeRoomFor(before: Topology, after: Topology, roomId: string): Topology {
  const was = roomRects(before).get(roomId)
  const rects = roomRects(after)
  const now = rects.get(roomId)
  if (!was || !now) return after
  const edge = was.x + was.width
  const grow = now.x + now.width - edge
  if (grow <= 0) return after
  const moves: Record<string, XY> = {}
  for (const [id, r] of rects) {
    if (id === roomId || r.x < edge) continue
    if (r.y >= now.y + now.height || r.y + r.height <= now.y) continue
    moves[id] = { x: r.x + grow, y: r.y }
  }
  return setLayout(after, moves)
}

function brokers(doc: Topology): BrokerSpec[] {
  return doc.rooms.flatMap((r) => r.brokers ?? [])
}

function nextBrokerId(all: BrokerSpec[], cluster: string, brokerName: string): number {
  let max = 0
  for (const b of all) {
    if (b.cluster === cluster && b.brokerName === brokerName) max = Math.max(max, b.brokerId)
  }
  return max + 1
}

/** broker-a, broker-b, ... then broker-27, so new masters never join an existing group. */
export function uniqueBrokerName(taken: Set<string>, base = 'broker-a'): string {
  const m = /^(.*-)([a-z])$/.exec(base)
  const prefix = m ? m[1]! : `${base}-`
  for (let c = 0; c < 26; c++) {
    const name = prefix + String.fromCharCode(97 + c)
    if (!taken.has(name)) return name
  }
  for (let i = 27; ; i++) if (!taken.has(`${prefix}${i}`)) return `${prefix}${i}`
}

function defaultSpec(
  doc: Topology,
  kind: NodeKind,
  id: string,
  masterId: string | undefined
): AnySpec {
  const topic = doc.topics[0]?.name ?? 'orders'
  switch (kind) {
    case 'broker': {
      const all = brokers(doc)
      const master = masterId ? all.find((b) => b.id === masterId) : undefined
      if (master) {
        return {
          id,
          cluster: master.cluster,
          brokerName: master.brokerName,
          role: 'slave',
          brokerId: nextBrokerId(all, master.cluster, master.brokerName)
        }
      }
      return {
        id,
        cluster: all[0]?.cluster ?? 'DefaultCluster',
        brokerName: uniqueBrokerName(new Set(all.map((b) => b.brokerName))),
        role: 'master',
        brokerId: 0
      }
    }
    case 'producer':
      return {
        id,
        topic,
        group: `${topic}-producer`,
        rate: 10,
        messageSize: 256,
        lane: 'remoting'
      }
    case 'consumer':
      return { id, topic, group: `${topic}-consumer`, lane: 'remoting' }
    case 'nameserver':
    case 'management':
    case 'proxy':
    case 'controller':
      return { id }
  }
}

function addRoom(doc: Topology, a: Extract<DocAction, { type: 'add-room' }>): Topology {
  const taken = allIds(doc)
  const id = a.id ?? uniqueId(taken, 'room', '')
  if (taken.has(id)) return doc
  const n = doc.rooms.length + 1
  const room = {
    id,
    name: a.name ?? `Room ${n}`,
    nameServers: [],
    brokers: [],
    managementNodes: [],
    proxies: [],
    producers: [],
    consumers: []
  } satisfies RoomSpec
  const position = a.position ?? nextRoomPosition(doc)
  return setLayout({ ...doc, rooms: [...doc.rooms, room] }, { [id]: position })
}

function addNode(doc: Topology, a: Extract<DocAction, { type: 'add-node' }>): Topology {
  const r = doc.rooms.findIndex((room) => room.id === a.roomId)
  if (r < 0) return doc
  const taken = allIds(doc)
  const id = a.id ?? uniqueId(taken, KIND_PREFIX[a.kind])
  if (taken.has(id)) return doc
  const room = doc.rooms[r]!
  const spec = { ...defaultSpec(doc, a.kind, id, a.masterId), ...(a.spec ?? {}), id }
  const position = a.position ? clampMember(a.position) : freeSlot(doc, room, a.kind)
  const next = replaceRoom(doc, r, withSpecs(room, a.kind, [...specsOf(room, a.kind), spec]))
  return makeRoomFor(doc, setLayout(next, { [id]: position }), a.roomId)
}

function moveNodeToRoom(
  doc: Topology,
  a: Extract<DocAction, { type: 'move-node-to-room' }>
): Topology {
  const at = locate(doc, a.nodeId)
  const to = doc.rooms.findIndex((room) => room.id === a.roomId)
  if (!at || to < 0) return doc
  if (at.r === to) return a.position ? setLayout(doc, { [a.nodeId]: clampMember(a.position) }) : doc
  const from = doc.rooms[at.r]!
  const spec = specsOf(from, at.kind)[at.i]!
  let next = replaceRoom(
    doc,
    at.r,
    withSpecs(
      from,
      at.kind,
      specsOf(from, at.kind).filter((_, i) => i !== at.i)
    )
  )
  const target = next.rooms[to]!
  const position = a.position ? clampMember(a.position) : freeSlot(next, target, at.kind)
  next = replaceRoom(next, to, withSpecs(target, at.kind, [...specsOf(target, at.kind), spec]))
  return makeRoomFor(doc, setLayout(next, { [a.nodeId]: position }), a.roomId)
}

function updateNode(doc: Topology, a: Extract<DocAction, { type: 'update-node' }>): Topology {
  const at = locate(doc, a.nodeId)
  if (!at) return doc
  const room = doc.rooms[at.r]!
  const old = specsOf(room, at.kind)[at.i]!
  const patch = { ...a.patch }
  // RocketMQ ties role to brokerId (master 0, slave >0), so switching role fixes the id too.
  if (at.kind === 'broker' && patch.role !== undefined && patch.role !== old.role) {
    if (patch.brokerId === undefined) {
      patch.brokerId =
        patch.role === 'master'
          ? 0
          : nextBrokerId(brokers(doc), String(old.cluster), String(old.brokerName))
    }
  }
  const spec = applyPatch(old, patch)
  if (shallowEqual(spec, old)) return doc
  const specs = specsOf(room, at.kind).slice()
  specs[at.i] = spec
  let next = replaceRoom(doc, at.r, withSpecs(room, at.kind, specs))
  // Slaves follow their master when its group (cluster/brokerName) is renamed.
  if (at.kind === 'broker' && old.role === 'master' && spec.role === 'master') {
    const groupChanged = old.cluster !== spec.cluster || old.brokerName !== spec.brokerName
    if (groupChanged) {
      next = {
        ...next,
        rooms: next.rooms.map((rm) => {
          const bs = rm.brokers ?? []
          if (
            !bs.some(
              (b) =>
                b.role === 'slave' && b.cluster === old.cluster && b.brokerName === old.brokerName
            )
          ) {
            return rm
          }
          return {
            ...rm,
            brokers: bs.map((b) =>
              b.role === 'slave' && b.cluster === old.cluster && b.brokerName === old.brokerName
                ? { ...b, cluster: String(spec.cluster), brokerName: String(spec.brokerName) }
                : b
            )
          }
        })
      }
    }
  }
  return next
}

function updateRoom(doc: Topology, a: Extract<DocAction, { type: 'update-room' }>): Topology {
  const r = doc.rooms.findIndex((room) => room.id === a.roomId)
  if (r < 0) return doc
  const old = doc.rooms[r]!
  const room = applyPatch(old as Room, a.patch)
  return shallowEqual(room, old as Room) ? doc : replaceRoom(doc, r, room)
}

function updateTopology(
  doc: Topology,
  a: Extract<DocAction, { type: 'update-topology' }>
): Topology {
  const { settings, ...rest } = a.patch
  let next = applyPatch(doc as Topology & Record<string, unknown>, rest) as Topology
  if (settings) next = { ...next, settings: applyPatch(doc.settings, settings) }
  const changed =
    !shallowEqual(next as never, doc as never) || !shallowEqual(next.settings, doc.settings)
  return changed ? next : doc
}

function mapFallbacks(doc: Topology, map: (room: string) => string | null): Topology {
  let changed = false
  const rooms = doc.rooms.map((room) => {
    let roomChanged = false
    const fix = <T extends { fallbackRooms?: string[] | undefined }>(c: T): T => {
      if (!c.fallbackRooms) return c
      const next = c.fallbackRooms.map(map).filter((x): x is string => x !== null)
      if (
        next.length === c.fallbackRooms.length &&
        next.every((x, i) => x === c.fallbackRooms![i])
      ) {
        return c
      }
      roomChanged = true
      return { ...c, fallbackRooms: next }
    }
    const producers = (room.producers ?? []).map(fix)
    const consumers = (room.consumers ?? []).map(fix)
    if (!roomChanged) return room
    changed = true
    return { ...room, producers, consumers }
  })
  return changed ? { ...doc, rooms } : doc
}

function rename(doc: Topology, a: Extract<DocAction, { type: 'rename' }>): Topology {
  const { from, to } = a
  if (from === to || !idSchema.safeParse(to).success) return doc
  const taken = allIds(doc)
  if (!taken.has(from) || taken.has(to)) return doc
  let next: Topology
  const r = doc.rooms.findIndex((room) => room.id === from)
  if (r >= 0) {
    next = replaceRoom(doc, r, { ...doc.rooms[r]!, id: to })
    next = mapFallbacks(next, (room) => (room === from ? to : room))
  } else {
    const at = locate(doc, from)!
    const room = doc.rooms[at.r]!
    const specs = specsOf(room, at.kind).slice()
    specs[at.i] = { ...specs[at.i]!, id: to }
    next = replaceRoom(doc, at.r, withSpecs(room, at.kind, specs))
  }
  const p = doc.layout?.[from]
  return p ? setLayout(next, { [from]: null, [to]: p }) : next
}

function remove(doc: Topology, a: Extract<DocAction, { type: 'delete' }>): Topology {
  const ids = new Set(a.ids)
  const goneRooms = new Set(doc.rooms.filter((r) => ids.has(r.id)).map((r) => r.id))
  const goneNodes: string[] = []
  let changed = goneRooms.size > 0
  const rooms = doc.rooms
    .filter((r) => !goneRooms.has(r.id))
    .map((room) => {
      let out = room
      for (const kind of NODE_KINDS) {
        const specs = specsOf(out, kind)
        const kept = specs.filter((s) => !ids.has(s.id))
        if (kept.length !== specs.length) {
          changed = true
          goneNodes.push(...specs.filter((s) => ids.has(s.id)).map((s) => s.id))
          out = withSpecs(out, kind, kept)
        }
      }
      return out
    })
  if (!changed) return doc
  for (const room of doc.rooms) {
    if (!goneRooms.has(room.id)) continue
    for (const kind of NODE_KINDS) goneNodes.push(...specsOf(room, kind).map((s) => s.id))
  }
  let next: Topology = { ...doc, rooms }
  if (goneRooms.size) next = mapFallbacks(next, (room) => (goneRooms.has(room) ? null : room))
  const positions: Record<string, null> = {}
  for (const id of [...goneRooms, ...goneNodes]) positions[id] = null
  return setLayout(next, positions)
}

/** Copies never keep explicit endpoints: two nodes cannot listen on the same host:port. */
function stripEndpoint(kind: NodeKind, spec: AnySpec): AnySpec {
  if (kind === 'producer' || kind === 'consumer') return spec
  const { host: _h, port: _p, remotingPort: _r, ...rest } = spec
  return rest as AnySpec
}

function paste(doc: Topology, a: Extract<DocAction, { type: 'paste' }>): Topology {
  const { fragment } = a
  const offset = a.offset ?? { x: 24, y: 24 }
  if (!fragment.rooms.length && !fragment.nodes.length) return doc
  const taken = allIds(doc)
  const fresh = (id: string): string => {
    const { prefix, separator } = idStem(id)
    const next = uniqueId(taken, prefix, separator)
    taken.add(next)
    return next
  }
  const existingBrokers = brokers(doc)
  const names = new Set(existingBrokers.map((b) => b.brokerName))
  const groups = new Set(existingBrokers.map((b) => `${b.cluster}/${b.brokerName}`))
  const pasted: BrokerSpec[] = []
  const groupMap = new Map<string, string>()
  const allSpecs = [
    ...fragment.rooms.flatMap((r) => r.room.brokers ?? []),
    ...fragment.nodes.filter((n) => n.kind === 'broker').map((n) => n.spec as unknown as BrokerSpec)
  ]
  for (const b of allSpecs) {
    const key = `${b.cluster}/${b.brokerName}`
    if (b.role === 'master' && groups.has(key) && !groupMap.has(key)) {
      const name = uniqueBrokerName(names, b.brokerName)
      names.add(name)
      groupMap.set(key, name)
    }
  }
  const copySpec = (kind: NodeKind, spec: AnySpec, roomMap: Map<string, string>): AnySpec => {
    let out: AnySpec = { ...stripEndpoint(kind, spec), id: fresh(spec.id) }
    if (kind === 'broker') {
      const key = `${String(spec.cluster)}/${String(spec.brokerName)}`
      const name = groupMap.get(key)
      if (name) out.brokerName = name
      else if (spec.role === 'slave') {
        out.brokerId = nextBrokerId(
          [...existingBrokers, ...pasted],
          String(spec.cluster),
          String(spec.brokerName)
        )
      }
      pasted.push(out as unknown as BrokerSpec)
    }
    if (Array.isArray(spec.fallbackRooms)) {
      out = {
        ...out,
        fallbackRooms: (spec.fallbackRooms as string[]).map((r) => roomMap.get(r) ?? r)
      }
    }
    return out
  }

  const roomMap = new Map<string, string>()
  for (const fr of fragment.rooms) roomMap.set(fr.room.id, fresh(fr.room.id))
  const rooms = doc.rooms.slice()
  const positions: Record<string, XY> = {}
  let base = nextRoomPosition(doc)
  for (const fr of fragment.rooms) {
    const id = roomMap.get(fr.room.id)!
    const room: Record<string, unknown> = { ...fr.room, id }
    if (fr.room.name) room.name = `${fr.room.name} (copy)`
    for (const kind of NODE_KINDS) {
      room[ROOM_KEY[kind]] = specsOf(fr.room, kind).map((s) => {
        const copy = copySpec(kind, s, roomMap)
        const p = fr.layout[s.id]
        if (p) positions[copy.id] = p
        return copy
      })
    }
    rooms.push(room as RoomSpec)
    positions[id] = fr.position
      ? { x: fr.position.x + offset.x, y: fr.position.y + offset.y }
      : base
    base = { x: base.x + 320, y: base.y }
  }
  let next: Topology = { ...doc, rooms }
  next = setLayout(next, positions)

  for (const fn of fragment.nodes) {
    let r = next.rooms.findIndex((room) => room.id === (a.targetRoomId ?? fn.room))
    if (r < 0) r = next.rooms.findIndex((room) => room.id === fn.room)
    if (r < 0) r = 0
    if (!next.rooms.length) {
      next = addRoom(next, { type: 'add-room', id: fresh('room1') })
      r = 0
    }
    const room = next.rooms[r]!
    const copy = copySpec(fn.kind, fn.spec, roomMap)
    const position = fn.position
      ? clampMember({ x: fn.position.x + offset.x, y: fn.position.y + offset.y })
      : freeSlot(next, room, fn.kind)
    next = replaceRoom(next, r, withSpecs(room, fn.kind, [...specsOf(room, fn.kind), copy]))
    next = setLayout(next, { [copy.id]: position })
  }
  return next
}

/**
 * The designer's pure document reducer: `(state, action) => state`.
 *
 * It returns the same object when an action changes nothing (unknown id, taken id, no-op patch),
 * so the history wrapper records only real edits.
 */
export function documentReducer(doc: Topology, action: DocAction): Topology {
  switch (action.type) {
    case 'add-room':
      return addRoom(doc, action)
    case 'add-node':
      return addNode(doc, action)
    case 'move-node-to-room':
      return moveNodeToRoom(doc, action)
    case 'update-node':
      return updateNode(doc, action)
    case 'update-room':
      return updateRoom(doc, action)
    case 'update-topology':
      return updateTopology(doc, action)
    case 'rename':
      return rename(doc, action)
    case 'delete':
      return remove(doc, action)
    case 'paste':
      return paste(doc, action)
    case 'set-layout':
      return setLayout(doc, action.positions)
    case 'batch':
      return action.actions.reduce(documentReducer, doc)
  }
}

/** Builds a clipboard fragment from selected ids; members of a selected room travel with it. */
export function copyFragment(doc: Topology, ids: Iterable<string>): Fragment | null {
  const wanted = new Set(ids)
  const fragment: Fragment = { rooms: [], nodes: [] }
  for (const room of doc.rooms) {
    if (!wanted.has(room.id)) continue
    const layout: Record<string, XY> = {}
    for (const kind of NODE_KINDS) {
      for (const s of specsOf(room, kind)) {
        const p = doc.layout?.[s.id]
        if (p) layout[s.id] = p
      }
    }
    const position = doc.layout?.[room.id]
    fragment.rooms.push({ room, layout, ...(position ? { position } : {}) })
  }
  for (const n of listNodes(doc)) {
    if (!wanted.has(n.id) || wanted.has(n.room)) continue
    const position = doc.layout?.[n.id]
    fragment.nodes.push({
      kind: n.kind,
      spec: n.spec as AnySpec,
      room: n.room,
      ...(position ? { position } : {})
    })
  }
  return fragment.rooms.length || fragment.nodes.length ? fragment : null
}
