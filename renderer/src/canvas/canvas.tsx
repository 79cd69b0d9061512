import type { Node, NodeMouseHandler, NodeTypes } from '@xyflow/react'
import {
  Background,
  BackgroundVariant,
  Controls,
  MiniMap,
  ReactFlow,
  useNodesInitialized,
  useReactFlow,
  useStore
} from '@xyflow/react'
import { Cable, Plus } from 'lucide-react'
import type { KeyboardEvent, RefObject } from 'react'
import { useCallback, useEffect, useRef, useState } from 'react'
import { setFlowInstance } from '../lib/flow-instance'
import type { FlowNode, LiveFlowEdge } from '../model/flow-model'
import { useCanvasStore } from '../stores/canvas-store'
import { useConnectStore } from '../stores/connect-store'
import { useEditorStore } from '../stores/editor-store'
import { useNetworkStore } from '../stores/network-store'
import { useReplayStore } from '../stores/replay-store'
import { useUiStore } from '../stores/ui-store'
import { ComponentNode } from './component-node'
import { LiveEdgeLayer } from './live-edge'
import { FAR_ZOOM, MAX_ANIMATED_EDGES, useCanvasLod, useFlowMotion } from './lod'
import { MiniMapShape } from './minimap-room'
import { RoomNode, openRoomMenuAt } from './room-node'
import './canvas.css'

// Module constants: a new object per render would make React Flow remount every node.
const nodeTypes: NodeTypes = { room: RoomNode, component: ComponentNode }
const FIT_OPTIONS = { padding: 0.08, maxZoom: 1.25 }
const MULTI_SELECT_KEYS = ['Meta', 'Control']
/** Beyond this many nodes only those in view are mounted, so panning stays smooth. */
const VIRTUALIZE_ABOVE = 150

function miniMapClass(node: Node): string {
  return node.type ?? ''
}

/**
 * Level of detail and motion hints as attributes on the canvas, so one attribute change restyles
 * every node through CSS instead of re-rendering them.
 */
function ViewportHints({ target }: { target: RefObject<HTMLElement | null> }) {
  const far = useStore((s) => s.transform[2] < FAR_ZOOM)
  const manyEdges = useCanvasStore((s) => s.edges.length > MAX_ANIMATED_EDGES)
  useEffect(() => {
    const el = target.current
    if (!el) return
    el.dataset.lod = far ? 'far' : 'near'
    el.dataset.flow = manyEdges ? 'static' : 'animated'
    useFlowMotion.setState({ animated: !far && !manyEdges })
    useCanvasLod.setState({ far })
  }, [far, manyEdges, target])
  return null
}

function FitViewOnRequest() {
  const { fitView } = useReactFlow()
  const request = useUiStore((s) => s.fitRequest)
  useEffect(() => {
    if (!request.tick) return
    // Wait a frame so nodes created by the same action are measured first.
    const handle = requestAnimationFrame(() => {
      void fitView({
        ...FIT_OPTIONS,
        duration: 250,
        ...(request.ids ? { nodes: request.ids.map((id) => ({ id })), maxZoom: 1.1 } : {})
      })
    })
    return () => cancelAnimationFrame(handle)
  }, [request, fitView])
  return null
}

/** Tells e2e tests that the first topology is on screen; unmounts after, as its check is O(nodes). */
function ReadyMarker({ onReady }: { onReady: () => void }) {
  const loaded = useEditorStore((s) => s.loaded)
  const count = useCanvasStore((s) => s.nodes.length)
  const initialized = useNodesInitialized()
  useEffect(() => {
    if (loaded && (count === 0 || initialized)) {
      document.body.dataset.appState = 'ready'
      onReady()
    }
  }, [loaded, count, initialized, onReady])
  return null
}

function EmptyState() {
  const addRoom = useEditorStore((s) => s.addRoom)
  return (
    <div className="canvas-empty">
      <p className="canvas-empty-title">This topology has no rooms yet</p>
      <p className="canvas-empty-text">
        Every machine room runs a full set: name servers, brokers, a management node and clients.
      </p>
      <div className="canvas-empty-actions">
        <button type="button" className="btn btn-primary" onClick={addRoom}>
          <Plus size={16} aria-hidden="true" /> Add your first room
        </button>
        <button
          type="button"
          className="btn"
          onClick={() => useConnectStore.getState().setOpen(true)}
        >
          <Cable size={16} aria-hidden="true" /> Connect to a running cluster…
        </button>
      </div>
    </div>
  )
}

/** The designer canvas: rooms with their components, live routing edges, minimap and controls. */
export function Canvas() {
  const sectionRef = useRef<HTMLElement>(null)
  const [ready, setReady] = useState(false)
  const markReady = useCallback(() => setReady(true), [])
  const movingTimer = useRef<ReturnType<typeof setTimeout> | null>(null)
  // While panning or zooming, let the compositor scale the already painted layer; repaint crisp after.
  const onMove = useCallback(() => {
    const el = sectionRef.current
    if (!el) return
    el.dataset.moving = 'true'
    if (movingTimer.current) clearTimeout(movingTimer.current)
    movingTimer.current = setTimeout(() => {
      delete el.dataset.moving
    }, 180)
  }, [])
  const nodes = useCanvasStore((s) => s.nodes)
  const onNodesChange = useCanvasStore((s) => s.onNodesChange)
  const empty = useEditorStore((s) => s.history.present.rooms.length === 0)
  // A replay shows a recorded run: nothing on the canvas can be moved.
  const replaying = useReplayStore((s) => s.active)

  const onNodeContextMenu: NodeMouseHandler<FlowNode> = useCallback((e, n) => {
    e.preventDefault()
    if (n.type === 'room') {
      useNetworkStore.getState().openMenu({
        subject: { kind: 'room', room: n.data.roomId },
        x: e.clientX,
        y: e.clientY,
        returnFocus: (e.currentTarget as HTMLElement | null) ?? null
      })
      return
    }
    useEditorStore.getState().select([n.data.nodeId])
    useUiStore.getState().openNodeMenu({
      nodeId: n.data.nodeId,
      x: e.clientX,
      y: e.clientY,
      returnFocus: (e.currentTarget as HTMLElement | null) ?? null
    })
  }, [])
  const onPaneClick = useCallback(() => {
    const ui = useUiStore.getState()
    if (ui.nodeMenu) ui.openNodeMenu(null)
    if (ui.addMenuOpen) ui.setAddMenuOpen(false)
    if (useNetworkStore.getState().menu) useNetworkStore.getState().openMenu(null)
  }, [])
  // Shift+F10 or the context-menu key on a focused node or room opens its menu, as right click does.
  const onKeyDown = useCallback(
    (e: KeyboardEvent<HTMLElement>) => {
      if (!(e.key === 'ContextMenu' || (e.key === 'F10' && e.shiftKey))) return
      const el = e.target as HTMLElement
      if (!el.classList?.contains('react-flow__node')) return
      const n = nodes.find((x) => x.id === el.dataset.id)
      if (!n) return
      e.preventDefault()
      if (n.type === 'room') openRoomMenuAt(n.data.roomId, el, el)
      else {
        const r = el.getBoundingClientRect()
        useUiStore
          .getState()
          .openNodeMenu({ nodeId: n.data.nodeId, x: r.left, y: r.bottom + 4, returnFocus: el })
      }
    },
    [nodes]
  )

  return (
    <section
      ref={sectionRef}
      className={`canvas${replaying ? ' is-replay' : ''}`}
      aria-label="Topology canvas"
      onKeyDown={onKeyDown}
    >
      {/* No `edges`: live edges are drawn by LiveEdgeLayer in one svg, not one svg each. */}
      <ReactFlow<FlowNode, LiveFlowEdge>
        nodes={nodes}
        nodeTypes={nodeTypes}
        onNodesChange={onNodesChange}
        onNodeContextMenu={onNodeContextMenu}
        onPaneClick={onPaneClick}
        onInit={setFlowInstance}
        onMove={onMove}
        deleteKeyCode={null}
        selectionKeyCode="Shift"
        multiSelectionKeyCode={MULTI_SELECT_KEYS}
        nodesConnectable={false}
        nodesDraggable={!replaying}
        edgesFocusable={false}
        elevateEdgesOnSelect={false}
        onlyRenderVisibleElements={nodes.length > VIRTUALIZE_ABOVE}
        minZoom={0.1}
        maxZoom={2.5}
        fitView
        fitViewOptions={FIT_OPTIONS}
        colorMode="system"
      >
        <Background variant={BackgroundVariant.Dots} gap={16} size={1} />
        <MiniMap
          pannable
          zoomable
          ariaLabel="Minimap"
          nodeComponent={MiniMapShape}
          nodeClassName={miniMapClass}
        />
        <Controls showInteractive={false} aria-label="Zoom controls" />
        <FitViewOnRequest />
        {!ready && <ReadyMarker onReady={markReady} />}
        <ViewportHints target={sectionRef} />
        <LiveEdgeLayer />
      </ReactFlow>
      {empty && <EmptyState />}
    </section>
  )
}
