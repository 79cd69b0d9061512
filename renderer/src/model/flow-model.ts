import type { Edge, Node } from '@xyflow/react'
import type { NodeState } from '../../../common/contract'
import type { NodeKind, Topology, TopologyNode } from '../../../common/topology'
import { isAttached, listNodes } from '../../../common/topology'
import { KIND_LABEL } from './document'
import type { XY } from './geometry'
import { NODE_H, NODE_W, defaultMemberPositions, roomRects } from './geometry'

export type RoomNodeData = {
  roomId: string
  name: string
  members: number
  problems: number
}

export type ComponentNodeData = {
  nodeId: string
  kind: NodeKind
  room: string
  subtitle: string
  role?: 'master' | 'slave' | 'replica'
  attached: boolean
  problems: number
}

export type RoomFlowNode = Node<RoomNodeData, 'room'>
export type ComponentFlowNode = Node<ComponentNodeData, 'component'>
export type FlowNode = RoomFlowNode | ComponentFlowNode

export type LiveEdgeData = {
  clientId: string
  link: 'namesrv' | 'broker'
  crossRoom: boolean
  fromRoom: string
  toRoom: string
}
export type LiveFlowEdge = Edge<LiveEdgeData, 'live'>

export interface FlowInputs {
  selected: ReadonlySet<string>
  problemCounts: ReadonlyMap<string, number>
  /** Positions of nodes being dragged, not yet committed to the document. */
  pending?: ReadonlyMap<string, XY>
}

function str(v: unknown): string {
  return v === undefined || v === null ? '' : String(v)
}

/** The short second line of a node card. */
export function nodeSubtitle(node: TopologyNode): string {
  const s = node.spec as Record<string, unknown>
  const endpoint = isAttached(node) ? `${str(s.host)}:${str(s.port)}` : undefined
  switch (node.kind) {
    case 'broker':
      return `${str(s.brokerName)} · ${str(s.role)}${s.role === 'slave' ? ` #${str(s.brokerId)}` : ''}${endpoint ? ` · ${endpoint}` : ''}`
    case 'producer':
      return `${str(s.topic)} · ${str(s.rate)} msg/s`
    case 'consumer':
      return `${str(s.topic)} · ${str(s.group)}`
    case 'nameserver':
      return `${endpoint ?? 'port: auto'}${s.controller ? ' · controller' : ''}`
    case 'management':
    case 'proxy':
    case 'controller':
      return endpoint ?? 'port: auto'
  }
}

/**
 * "broker broker-1 (master) in room1, state up": what Playwright and screen readers see.
 *
 * The node component sets it (run state changes must not rebuild React Flow's node list).
 */
export function nodeAriaLabel(d: ComponentNodeData, state: NodeState, stalled = 0): string {
  const role = d.role ? ` (${d.role})` : ''
  const problems = d.problems ? `, ${d.problems} problem${d.problems > 1 ? 's' : ''}` : ''
  const stalls = stalled ? `, stalled on ${stalled} queue${stalled > 1 ? 's' : ''}` : ''
  return `${KIND_LABEL[d.kind]} ${d.nodeId}${role} in ${d.room}, state ${state}${stalls}${problems}`
}

/**
 * A node's state for the canvas. Producers and consumers run inside the engine's session, not as
 * sandbox processes: without a reported state they are up once they report a routing choice.
 */
export function effectiveNodeState(
  reported: NodeState | undefined,
  isClient: boolean,
  running: boolean,
  routed: boolean
): NodeState {
  if (reported) return reported
  if (!isClient || !running) return 'stopped'
  return routed ? 'up' : 'starting'
}

/**
 * What a controller-mode replica shows of its readiness: while its group is electing or syncing,
 * what the sandbox waits for (in place of its second line); once it is up, how long getting ready
 * took (beside its state badge). Nothing for other nodes.
 */
export function readinessNote(
  state: NodeState,
  status: { detail?: string; readyInMs?: number } | undefined
): { replaces: boolean; text: string } | undefined {
  if ((state === 'electing' || state === 'syncing') && status?.detail) {
    return { replaces: true, text: status.detail }
  }
  if (state === 'up' && status?.readyInMs !== undefined) {
    return { replaces: false, text: `ready in ${(status.readyInMs / 1000).toFixed(1)} s` }
  }
  return undefined
}

export function roomAriaLabel(d: RoomNodeData): string {
  const name = d.name && d.name !== d.roomId ? ` (${d.name})` : ''
  return `room ${d.roomId}${name}, ${d.members} node${d.members === 1 ? '' : 's'}`
}

function sameData(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const ka = Object.keys(a)
  if (ka.length !== Object.keys(b).length) return false
  return ka.every((k) => a[k] === b[k])
}

/** Keeps the previous node object when nothing visible changed, so memo'd nodes skip rendering. */
function reuse<T extends FlowNode>(prev: FlowNode | undefined, next: T): T {
  if (!prev || prev.type !== next.type) return next
  if (
    prev.position.x === next.position.x &&
    prev.position.y === next.position.y &&
    prev.selected === next.selected &&
    prev.parentId === next.parentId &&
    prev.width === next.width &&
    prev.height === next.height &&
    prev.ariaLabel === next.ariaLabel &&
    sameData(prev.data, next.data)
  ) {
    return prev as T
  }
  return prev.measured ? { ...next, measured: prev.measured } : next
}

/**
 * Maps the document onto React Flow nodes: rooms as parent (group) nodes first, members inside.
 *
 * Ids that occur twice (an invalid file) get a suffix so React Flow keys stay unique.
 */
export function buildFlowNodes(
  doc: Topology,
  inputs: FlowInputs,
  prev: readonly FlowNode[] = []
): FlowNode[] {
  const prevById = new Map(prev.map((n) => [n.id, n]))
  const rects = roomRects(doc)
  const used = new Set<string>()
  const unique = (id: string): string => {
    let out = id
    for (let i = 2; used.has(out); i++) out = `${id}~${i}`
    used.add(out)
    return out
  }
  const members = listNodes(doc)
  const out: FlowNode[] = []
  const roomFlowIds: string[] = []
  for (const room of doc.rooms) {
    const id = unique(room.id)
    roomFlowIds.push(id)
    const r = rects.get(room.id)!
    const data: RoomNodeData = {
      roomId: room.id,
      name: room.name ?? room.id,
      members: members.filter((n) => n.room === room.id).length,
      problems: inputs.problemCounts.get(room.id) ?? 0
    }
    const position = inputs.pending?.get(id) ?? { x: r.x, y: r.y }
    out.push(
      reuse(prevById.get(id), {
        id,
        type: 'room',
        position,
        width: r.width,
        height: r.height,
        data,
        selected: inputs.selected.has(room.id),
        dragHandle: '.room-drag',
        ariaRole: 'group',
        ariaLabel: roomAriaLabel(data),
        zIndex: 0
      } satisfies RoomFlowNode)
    )
  }
  const defaults = doc.rooms.map((r) => defaultMemberPositions(r))
  for (const n of members) {
    const r = Number(/^\$\.rooms\[(\d+)\]/.exec(n.path)?.[1] ?? -1)
    const room = doc.rooms[r]
    if (!room) continue
    const id = unique(n.id)
    const s = n.spec as Record<string, unknown>
    const role =
      n.kind === 'broker' && (s.role === 'master' || s.role === 'slave' || s.role === 'replica')
        ? s.role
        : undefined
    const data: ComponentNodeData = {
      nodeId: n.id,
      kind: n.kind,
      room: room.id,
      subtitle: nodeSubtitle(n),
      attached: isAttached(n),
      problems: inputs.problemCounts.get(n.id) ?? 0,
      ...(role ? { role } : {})
    }
    const position = inputs.pending?.get(id) ??
      doc.layout?.[n.id] ??
      defaults[r]!.get(n.id) ?? { x: 16, y: 40 }
    out.push(
      reuse(prevById.get(id), {
        id,
        type: 'component',
        parentId: roomFlowIds[r]!,
        position,
        width: NODE_W,
        height: NODE_H,
        data,
        selected: inputs.selected.has(n.id),
        ariaRole: 'group',
        // Above live edges (1), which are above room backgrounds (0).
        zIndex: 2
      } satisfies ComponentFlowNode)
    )
  }
  return out
}

/** One client's current choice, as the live view draws it. */
export interface ClientChoice {
  clientId: string
  namesrvId?: string | null
  brokerId?: string | null
  room?: string
  rate?: number
}

/**
 * Live client edges: client → chosen name server and client → chosen broker.
 *
 * Cross-room edges are flagged so they can be drawn (and announced) differently.
 */
export function buildLiveEdges(
  choices: Readonly<Record<string, ClientChoice>>,
  roomOf: (id: string) => string | undefined,
  prev: readonly LiveFlowEdge[] = []
): LiveFlowEdge[] {
  // Unchanged edges keep their object so React Flow re-renders only rerouted ones.
  const prevById = new Map(prev.map((e) => [e.id, e]))
  const edges: LiveFlowEdge[] = []
  for (const c of Object.values(choices)) {
    const fromRoom = c.room ?? roomOf(c.clientId)
    if (!fromRoom || !roomOf(c.clientId)) continue
    for (const [link, target] of [
      ['namesrv', c.namesrvId],
      ['broker', c.brokerId]
    ] as const) {
      if (!target) continue
      const toRoom = roomOf(target)
      if (!toRoom) continue
      const crossRoom: boolean = toRoom !== fromRoom
      const id = `live:${c.clientId}:${link}`
      const old = prevById.get(id)
      if (
        old &&
        old.target === target &&
        old.data?.crossRoom === crossRoom &&
        old.data?.fromRoom === fromRoom &&
        old.data?.toRoom === toRoom
      ) {
        edges.push(old)
        continue
      }
      edges.push({
        id,
        type: 'live',
        source: c.clientId,
        target,
        data: { clientId: c.clientId, link, crossRoom, fromRoom, toRoom },
        selectable: false,
        focusable: false,
        ariaLabel: `${c.clientId} uses ${link === 'namesrv' ? 'name server' : 'broker'} ${target}, ${
          crossRoom ? `cross-room (${fromRoom} → ${toRoom})` : `same room (${toRoom})`
        }`,
        zIndex: 1
      })
    }
  }
  return edges
}
