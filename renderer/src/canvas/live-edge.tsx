import { Position, ViewportPortal, getBezierPath } from '@xyflow/react'
import type { CSSProperties } from 'react'
import { memo, useMemo } from 'react'
import type { FlowNode, LiveFlowEdge } from '../model/flow-model'
import type { XY } from '../model/geometry'
import { useCanvasStore } from '../stores/canvas-store'
import { useLiveStore } from '../stores/live-store'
import { useFlashing } from './flash-tracker'
import { useFlowMotion } from './lod'

/**
 * Dash travel time for a message rate, in a few steps: faster traffic, faster flow; 0 stands still.
 * Steps (not a continuous value) so rate jitter does not restyle the edge on every event.
 */
export function flowDuration(rate: number): number {
  if (rate <= 0) return 0
  if (rate < 5) return 3
  if (rate < 20) return 2
  if (rate < 100) return 1.2
  if (rate < 500) return 0.7
  return 0.4
}

interface Box {
  x: number
  y: number
  w: number
  h: number
}

/** Absolute boxes of the flow nodes: members are positioned relative to their room. */
export function nodeBoxes(nodes: readonly FlowNode[]): Map<string, Box> {
  const rooms = new Map<string, XY>()
  for (const n of nodes) if (n.type === 'room') rooms.set(n.id, n.position)
  const out = new Map<string, Box>()
  for (const n of nodes) {
    const parent = n.parentId ? rooms.get(n.parentId) : undefined
    out.set(n.id, {
      x: n.position.x + (parent?.x ?? 0),
      y: n.position.y + (parent?.y ?? 0),
      w: n.measured?.width ?? n.width ?? 0,
      h: n.measured?.height ?? n.height ?? 0
    })
  }
  return out
}

/**
 * Bezier path of a live edge as React Flow's default edge drew it: from the client's handle (top
 * centre) to the server's (bottom centre). Null if an end is not on the canvas.
 */
export function livePath(edge: LiveFlowEdge, boxes: ReadonlyMap<string, Box>): string | null {
  const s = boxes.get(edge.source)
  const t = boxes.get(edge.target)
  if (!s || !t) return null
  const [path] = getBezierPath({
    sourceX: s.x + s.w / 2,
    sourceY: s.y,
    sourcePosition: Position.Top,
    targetX: t.x + t.w / 2,
    targetY: t.y + t.h,
    targetPosition: Position.Bottom
  })
  return path
}

// Paths per node layout, per edge object: a reroute recomputes only the edges that moved.
const pathCache = new WeakMap<ReadonlyMap<string, Box>, WeakMap<LiveFlowEdge, string | null>>()

function cachedPath(edge: LiveFlowEdge, boxes: ReadonlyMap<string, Box>): string | null {
  let byEdge = pathCache.get(boxes)
  if (!byEdge) pathCache.set(boxes, (byEdge = new WeakMap()))
  let d = byEdge.get(edge)
  if (d === undefined) byEdge.set(edge, (d = livePath(edge, boxes)))
  return d
}

/** Moving dashes along a broker edge; only mounted while traffic animates, so only then it reads rates. */
function FlowDash({ clientId, d }: { clientId: string; d: string }) {
  const duration = useLiveStore((s) => flowDuration(s.rates[clientId] ?? 0))
  if (!duration) return null
  const style = { '--flow-duration': `${duration}s` } as CSSProperties
  return <path d={d} className="live-edge-flow" fill="none" style={style} />
}

interface PathProps {
  edge: LiveFlowEdge
  d: string
  animated: boolean
}

/** One live edge: a group named for screen readers and tests, its line, and its traffic dashes. */
function LiveEdgePath({ edge, d, animated }: PathProps) {
  const data = edge.data!
  const flashing = useFlashing((s) => s.ids.has(data.clientId))
  const cls = [
    'live-edge',
    data.link === 'broker' ? 'link-broker' : 'link-namesrv',
    data.crossRoom ? 'cross-room' : 'same-room',
    flashing ? 'flashing' : ''
  ].join(' ')
  return (
    <g
      className={cls}
      role="img"
      aria-roledescription="edge"
      aria-label={edge.ariaLabel ?? undefined}
      data-id={edge.id}
    >
      <path d={d} className="live-edge-base" fill="none" />
      {animated && data.link === 'broker' && <FlowDash clientId={data.clientId} d={d} />}
    </g>
  )
}

const LiveEdgeMemo = memo(LiveEdgePath)

// Above the nodes, as React Flow stacked these edges (edge z 1 + the nodes' z); never catches the pointer.
const LAYER_STYLE: CSSProperties = {
  position: 'absolute',
  left: 0,
  top: 0,
  width: 1,
  height: 1,
  overflow: 'visible',
  pointerEvents: 'none',
  zIndex: 1100
}

/**
 * All live edges in ONE svg inside the viewport (it pans and zooms with the nodes for free).
 *
 * React Flow draws each edge as its own svg with its own store subscriptions: 400+ stacking contexts
 * to paint and layerize and 400+ selectors on every pan frame. Here paths are recomputed only when
 * nodes or edges change, never on pan or zoom.
 */
export function LiveEdgeLayer() {
  const edges = useCanvasStore((s) => s.edges)
  // Changes on layout, drags and selection, never on pan or zoom.
  const nodes = useCanvasStore((s) => s.nodes)
  const animated = useFlowMotion((s) => s.animated)
  const boxes = useMemo(() => nodeBoxes(nodes), [nodes])
  const paths = useMemo(() => {
    const out: { edge: LiveFlowEdge; d: string }[] = []
    for (const edge of edges) {
      const d = cachedPath(edge, boxes)
      if (d && edge.data) out.push({ edge, d })
    }
    return out
  }, [edges, boxes])
  return (
    <ViewportPortal>
      <svg className="live-edges" style={LAYER_STYLE}>
        {paths.map(({ edge, d }) => (
          <LiveEdgeMemo key={edge.id} edge={edge} d={d} animated={animated} />
        ))}
      </svg>
    </ViewportPortal>
  )
}
