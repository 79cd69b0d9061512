import { Position, ViewportPortal, getBezierPath } from '@xyflow/react'
import type { CSSProperties } from 'react'
import { memo, useMemo } from 'react'
import type { FlowNode, LiveFlowEdge } from '../model/flow-model'
import type { Box, XY } from '../model/geometry'
import { bezierObstructed, obstaclesNear, orthogonalRoute } from '../model/geometry'
import { useCanvasStore } from '../stores/canvas-store'
import { useLiveStore } from '../stores/live-store'
import { edgeKey, formatRate, useMetricsStore } from '../stores/metrics-store'
import { useFlashing } from './flash-tracker'
import { useCanvasLod, useFlowMotion } from './lod'
import { NetworkLinks } from './network-links'
import { RoomLinks } from './room-links'

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

/** A drawn live edge: its svg path and where its label goes. */
export interface LiveRoute {
  d: string
  label: XY
}

/**
 * Path of a live edge from the client's handle (top centre) to the server's (bottom centre): React
 * Flow's bezier when that crosses no other node, else a route around them through the gaps
 * between nodes. Null if an end is not on the canvas.
 */
export function liveRoute(
  edge: LiveFlowEdge,
  boxes: ReadonlyMap<string, Box>,
  obstacles: readonly (Box & { id: string })[] = []
): LiveRoute | null {
  const s = boxes.get(edge.source)
  const t = boxes.get(edge.target)
  if (!s || !t) return null
  const from = { x: s.x + s.w / 2, y: s.y }
  const to = { x: t.x + t.w / 2, y: t.y + t.h }
  const near = obstaclesNear(from, to, obstacles).filter(
    (o) => o.id !== edge.source && o.id !== edge.target
  )
  if (near.length && bezierObstructed(from, to, near)) {
    const around = orthogonalRoute(from, to, near)
    if (around) return { d: around.d, label: around.label }
  }
  const [d, labelX, labelY] = getBezierPath({
    sourceX: from.x,
    sourceY: from.y,
    sourcePosition: Position.Top,
    targetX: to.x,
    targetY: to.y,
    targetPosition: Position.Bottom
  })
  return { d, label: { x: labelX, y: labelY } }
}

/** The bezier alone (no obstacles), as React Flow's default edge drew it. */
export function livePath(edge: LiveFlowEdge, boxes: ReadonlyMap<string, Box>): string | null {
  return liveRoute(edge, boxes)?.d ?? null
}

/** Component boxes with their ids: what live edges route around. */
function obstaclesOf(nodes: readonly FlowNode[], boxes: ReadonlyMap<string, Box>) {
  return nodes.flatMap((n) => (n.type === 'component' ? [{ ...boxes.get(n.id)!, id: n.id }] : []))
}

// Routes per node layout, per edge object: a reroute recomputes only the edges that moved.
const routeCache = new WeakMap<ReadonlyMap<string, Box>, WeakMap<LiveFlowEdge, LiveRoute | null>>()

function cachedRoute(
  edge: LiveFlowEdge,
  boxes: ReadonlyMap<string, Box>,
  obstacles: readonly (Box & { id: string })[]
): LiveRoute | null {
  let byEdge = routeCache.get(boxes)
  if (!byEdge) routeCache.set(boxes, (byEdge = new WeakMap()))
  let r = byEdge.get(edge)
  if (r === undefined) byEdge.set(edge, (r = liveRoute(edge, boxes, obstacles)))
  return r
}

/** Messages per second on a client's broker edge, at its middle (near zoom only). */
function EdgeRate({ clientId, target, at }: { clientId: string; target: string; at: XY }) {
  const rate = useMetricsStore((s) => s.edgeRates[edgeKey(clientId, target)])
  if (rate === undefined) return null
  return (
    <text className="live-edge-rate" x={at.x} y={at.y} textAnchor="middle" dy="0.35em">
      {formatRate(rate)}
    </text>
  )
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
  route: LiveRoute
  animated: boolean
  labels: boolean
}

/** One live edge: a group named for screen readers and tests, its line, and its traffic dashes. */
function LiveEdgePath({ edge, route, animated, labels }: PathProps) {
  const d = route.d
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
      {labels && data.link === 'broker' && (
        <EdgeRate clientId={data.clientId} target={edge.target} at={route.label} />
      )}
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
  // Rate labels cost a text node per edge: near zoom only, and only when live figures arrive.
  const near = useCanvasLod((s) => !s.far)
  const figures = useMetricsStore((s) => s.atMs !== null)
  const labels = near && figures
  const boxes = useMemo(() => nodeBoxes(nodes), [nodes])
  const obstacles = useMemo(() => obstaclesOf(nodes, boxes), [nodes, boxes])
  const paths = useMemo(() => {
    const out: { edge: LiveFlowEdge; route: LiveRoute }[] = []
    for (const edge of edges) {
      const route = cachedRoute(edge, boxes, obstacles)
      if (route && edge.data) out.push({ edge, route })
    }
    return out
  }, [edges, boxes, obstacles])
  return (
    <ViewportPortal>
      <svg className="live-edges" style={LAYER_STYLE}>
        <NetworkLinks nodes={nodes} boxes={boxes} />
        <RoomLinks nodes={nodes} boxes={boxes} />
        {paths.map(({ edge, route }) => (
          <LiveEdgeMemo
            key={edge.id}
            edge={edge}
            route={route}
            animated={animated}
            labels={labels}
          />
        ))}
      </svg>
    </ViewportPortal>
  )
}
