import type { NodeChange } from '@xyflow/react'
import { applyNodeChanges } from '@xyflow/react'
import { create } from 'zustand'
import type { DocAction } from '../model/document-reducer'
import type { FlowNode, LiveFlowEdge } from '../model/flow-model'
import { buildFlowNodes, buildLiveEdges } from '../model/flow-model'
import type { Rect, XY } from '../model/geometry'
import { NODE_H, NODE_W, clampMember, roomAt } from '../model/geometry'
import { roomIndex } from '../model/room-index'
import { useEditorStore } from './editor-store'
import { useLiveStore } from './live-store'
import { useReplayStore } from './replay-store'

export interface CanvasState {
  nodes: FlowNode[]
  edges: LiveFlowEdge[]
  onNodesChange(changes: NodeChange<FlowNode>[]): void
}

/** Positions moved on the canvas but not yet written to the document (mid-drag). */
const pending = new Map<string, XY>()
/** Nodes that reported `dragging: true`; their drop is committed at once. */
const dragging = new Set<string>()
let keyboardTimer: ReturnType<typeof setTimeout> | null = null
let keyboardIds = new Set<string>()

function problemCounts(): Map<string, number> {
  const out = new Map<string, number>()
  for (const [id, list] of useEditorStore.getState().problemIndex) out.set(id, list.length)
  return out
}

function rebuildNodes(prev: readonly FlowNode[]): FlowNode[] {
  const editor = useEditorStore.getState()
  return buildFlowNodes(
    editor.history.present,
    {
      selected: new Set(editor.selection),
      problemCounts: problemCounts(),
      pending
    },
    prev
  )
}

function rebuildEdges(): LiveFlowEdge[] {
  const rooms = roomIndex(useEditorStore.getState().history.present)
  const replay = useReplayStore.getState()
  // A replay draws the recorded run's edges instead of the live ones.
  return buildLiveEdges(
    replay.active ? replay.choices : useLiveStore.getState().choices,
    (id) => rooms.get(id),
    useCanvasStore.getState().edges
  )
}

function docIdOf(n: FlowNode): string {
  return n.type === 'room' ? n.data.roomId : n.data.nodeId
}

function commit(ids: Iterable<string>): void {
  const { nodes } = useCanvasStore.getState()
  const byId = new Map(nodes.map((n) => [n.id, n]))
  const rects = new Map<string, Rect>()
  const roomPos = new Map<string, XY>()
  for (const n of nodes) {
    if (n.type !== 'room') continue
    roomPos.set(n.id, n.position)
    rects.set(n.data.roomId, { ...n.position, width: n.width ?? 0, height: n.height ?? 0 })
  }
  const actions: DocAction[] = []
  for (const id of ids) {
    const p = pending.get(id)
    const n = byId.get(id)
    if (!p || !n) continue
    if (n.type === 'room') {
      actions.push({
        type: 'set-layout',
        positions: { [n.data.roomId]: { x: Math.round(p.x), y: Math.round(p.y) } }
      })
      continue
    }
    const parent = roomPos.get(n.parentId ?? '') ?? { x: 0, y: 0 }
    const abs = { x: parent.x + p.x, y: parent.y + p.y }
    const target = roomAt(rects, { x: abs.x + NODE_W / 2, y: abs.y + NODE_H / 2 })
    if (target && target !== n.data.room) {
      const t = rects.get(target)!
      actions.push({
        type: 'move-node-to-room',
        nodeId: n.data.nodeId,
        roomId: target,
        position: { x: abs.x - t.x, y: abs.y - t.y }
      })
    } else {
      actions.push({ type: 'set-layout', positions: { [n.data.nodeId]: clampMember(p) } })
    }
  }
  for (const id of ids) {
    pending.delete(id)
    dragging.delete(id)
  }
  if (!actions.length) return
  const changed = useEditorStore.getState().dispatch({ type: 'batch', actions })
  // A drop that changes nothing (clamped back) still has to snap the node back.
  if (!changed) useCanvasStore.setState({ nodes: rebuildNodes(useCanvasStore.getState().nodes) })
}

/** React Flow nodes and live edges, derived from the document, run state and live routing. */
export const useCanvasStore = create<CanvasState>()((set, get) => ({
  nodes: [],
  edges: [],
  onNodesChange(changes) {
    const selectChanges = changes.filter((c) => c.type === 'select')
    const apply = changes.filter((c) => c.type === 'position' || c.type === 'dimensions')
    const drops: string[] = []
    const keyMoves: string[] = []
    for (const c of changes) {
      if (c.type !== 'position' || !c.position) continue
      pending.set(c.id, c.position)
      if (c.dragging) dragging.add(c.id)
      else if (dragging.has(c.id)) drops.push(c.id)
      else keyMoves.push(c.id)
    }
    if (apply.length) set({ nodes: applyNodeChanges(apply, get().nodes) as FlowNode[] })
    if (selectChanges.length) {
      const editor = useEditorStore.getState()
      const byId = new Map(get().nodes.map((n) => [n.id, n]))
      const next = new Set(editor.selection)
      for (const c of selectChanges) {
        const n = byId.get(c.id)
        if (!n) continue
        if (c.selected) next.add(docIdOf(n))
        else next.delete(docIdOf(n))
      }
      editor.select([...next])
    }
    if (drops.length) commit(drops)
    if (keyMoves.length) {
      // Arrow-key nudges: one undo step per burst, not per key press.
      for (const id of keyMoves) keyboardIds.add(id)
      if (keyboardTimer) clearTimeout(keyboardTimer)
      keyboardTimer = setTimeout(() => {
        const ids = keyboardIds
        keyboardIds = new Set()
        keyboardTimer = null
        commit(ids)
      }, 350)
    }
  }
}))

function refreshNodes(): void {
  useCanvasStore.setState({ nodes: rebuildNodes(useCanvasStore.getState().nodes) })
}

useEditorStore.subscribe((s, prev) => {
  if (
    s.history.present !== prev.history.present ||
    s.selection !== prev.selection ||
    s.problemIndex !== prev.problemIndex
  ) {
    refreshNodes()
  }
  if (s.history.present !== prev.history.present) useCanvasStore.setState({ edges: rebuildEdges() })
})

useLiveStore.subscribe((s, prev) => {
  if (s.choices !== prev.choices && !useReplayStore.getState().active) {
    useCanvasStore.setState({ edges: rebuildEdges() })
  }
})

useReplayStore.subscribe((s, prev) => {
  if (s.choices !== prev.choices || s.active !== prev.active) {
    useCanvasStore.setState({ edges: rebuildEdges() })
  }
})

refreshNodes()
