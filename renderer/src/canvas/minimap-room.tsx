import type { MiniMapNodeProps } from '@xyflow/react'
import { memo, useMemo } from 'react'
import type { NodeKind } from '../../../common/topology'
import type { FlowNode } from '../model/flow-model'
import { useCanvasStore } from '../stores/canvas-store'

/** Members of one room as one path per kind, in flow coordinates (the minimap's own space). */
export function memberPaths(
  nodes: readonly FlowNode[],
  roomFlowId: string,
  origin: { x: number; y: number }
): [NodeKind, string][] {
  const byKind = new Map<NodeKind, string[]>()
  for (const n of nodes) {
    if (n.type !== 'component' || n.parentId !== roomFlowId) continue
    const w = n.width ?? 0
    const h = n.height ?? 0
    const rect = `M${origin.x + n.position.x} ${origin.y + n.position.y}h${w}v${h}h${-w}z`
    const list = byKind.get(n.data.kind)
    if (list) list.push(rect)
    else byKind.set(n.data.kind, [rect])
  }
  return [...byKind].map(([kind, rects]) => [kind, rects.join('')])
}

function MiniMapRoom({ id, x, y, width, height }: MiniMapNodeProps) {
  // Canvas nodes change on layout, drags and selection, not on pan: the paths are rebuilt rarely.
  const nodes = useCanvasStore((s) => s.nodes)
  const paths = useMemo(() => memberPaths(nodes, id, { x, y }), [nodes, id, x, y])
  return (
    <g>
      <rect
        x={x}
        y={y}
        width={width}
        height={height}
        rx={8}
        fill="none"
        stroke="var(--minimap-room)"
        strokeWidth={6}
      />
      {paths.map(([kind, d]) => (
        <path key={kind} d={d} fill={`var(--kind-${kind})`} />
      ))}
    </g>
  )
}

/**
 * Minimap shape per node. The minimap re-lays out and repaints every shape on each pan frame (its
 * viewBox follows the viewport), so a room draws its members as a few paths and members draw nothing:
 * ~40 shapes instead of one per node.
 */
export const MiniMapShape = memo(function MiniMapShape(props: MiniMapNodeProps) {
  return props.className.includes('room') ? <MiniMapRoom {...props} /> : null
})
