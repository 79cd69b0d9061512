import type { ELK, ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api'
import type { NodeKind, Topology } from '../../../common/topology'
import { GAP, NODE_H, NODE_W, ROOM_GAP, ROOM_HEADER, ROOM_PAD, roomMembers } from './geometry'
import type { XY } from './geometry'

/** Rows top to bottom: control plane, name servers, brokers, clients (the request path). */
const LAYER: Record<NodeKind, number> = {
  management: 0,
  nameserver: 1,
  proxy: 1,
  controller: 1,
  broker: 2,
  producer: 3,
  consumer: 3
}

/** Wide rooms wrap rows so a room with 30 clients stays readable. */
const MAX_PER_ROW = 6

let elk: ELK | undefined

/**
 * Positions for every room and member, computed by elkjs.
 *
 * Members are laid out per room with ELK layered (DOWN); rooms carry no real edges, so chain
 * edges between consecutive rows force one row per kind. Rooms are then packed left to right.
 */
export async function autoLayout(doc: Topology): Promise<Record<string, XY>> {
  // elkjs is large (~1.5 MB); it loads on the first auto layout, not at startup.
  elk ??= new (await import('elkjs/lib/elk.bundled.js')).default()
  const rooms: ElkNode[] = doc.rooms.map((room) => {
    const byLayer: string[][] = [[], [], [], []]
    for (const m of roomMembers(room)) byLayer[LAYER[m.kind]]!.push(m.id)
    const rows = byLayer.flatMap((ids) => {
      const chunks: string[][] = []
      for (let i = 0; i < ids.length; i += MAX_PER_ROW) chunks.push(ids.slice(i, i + MAX_PER_ROW))
      return chunks
    })
    const edges: ElkExtendedEdge[] = []
    for (let r = 1; r < rows.length; r++) {
      for (const id of rows[r]!) {
        edges.push({ id: `${rows[r - 1]![0]}>${id}`, sources: [rows[r - 1]![0]!], targets: [id] })
      }
    }
    return {
      id: room.id,
      layoutOptions: {
        'elk.algorithm': 'layered',
        'elk.direction': 'DOWN',
        'elk.padding': `[top=${ROOM_HEADER},left=${ROOM_PAD},bottom=${ROOM_PAD},right=${ROOM_PAD}]`,
        'elk.spacing.nodeNode': String(GAP),
        'elk.layered.spacing.nodeNodeBetweenLayers': String(GAP),
        'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
        'elk.layered.crossingMinimization.forceNodeModelOrder': 'true',
        'elk.layered.nodePlacement.strategy': 'LINEAR_SEGMENTS',
        'elk.alignment': 'LEFT'
      },
      children: rows.flat().map((id) => ({ id, width: NODE_W, height: NODE_H })),
      edges
    }
  })
  const graph: ElkNode = {
    id: '__root',
    layoutOptions: {
      'elk.algorithm': 'rectpacking',
      'elk.spacing.nodeNode': String(ROOM_GAP),
      'elk.aspectRatio': '2.2',
      'elk.padding': '[top=0,left=0,bottom=0,right=0]'
    },
    children: rooms
  }
  const out = await elk.layout(graph)
  const positions: Record<string, XY> = {}
  for (const room of out.children ?? []) {
    positions[room.id] = { x: Math.round(room.x ?? 0), y: Math.round(room.y ?? 0) }
    for (const child of room.children ?? []) {
      positions[child.id] = {
        x: Math.max(ROOM_PAD, Math.round(child.x ?? 0)),
        y: Math.max(ROOM_HEADER, Math.round(child.y ?? 0))
      }
    }
  }
  return positions
}
