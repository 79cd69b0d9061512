import type { EdgeProps } from '@xyflow/react'
import { BaseEdge, getBezierPath, useStore } from '@xyflow/react'
import type { CSSProperties } from 'react'
import { memo, useEffect, useState } from 'react'
import type { LiveFlowEdge } from '../model/flow-model'
import { useCanvasStore } from '../stores/canvas-store'
import { FLASH_MS, useLiveStore } from '../stores/live-store'
import { FAR_ZOOM, MAX_ANIMATED_EDGES } from './lod'

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

/** Live routing edge; reads rate and flash by selector so rate updates re-render only this edge. */
function LiveEdgeView(props: EdgeProps<LiveFlowEdge>) {
  const { id, data, sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition } = props
  const clientId = data?.clientId ?? ''
  // Traffic is animated only near and with few edges (see canvas `data-lod`/`data-flow`); otherwise
  // rate updates must not re-render (and restyle) hundreds of edges for a flow nobody sees.
  const near = useStore((s) => s.transform[2] >= FAR_ZOOM)
  const few = useCanvasStore((s) => s.edges.length <= MAX_ANIMATED_EDGES)
  const animated = near && few
  const duration = useLiveStore((s) => (animated ? flowDuration(s.rates[clientId] ?? 0) : 0))
  const flashAt = useLiveStore((s) => s.flashes[clientId] ?? 0)
  const [flashing, setFlashing] = useState(false)
  useEffect(() => {
    if (!flashAt || Date.now() - flashAt > FLASH_MS) return
    setFlashing(true)
    const t = setTimeout(() => setFlashing(false), FLASH_MS - (Date.now() - flashAt))
    return () => clearTimeout(t)
  }, [flashAt])

  const [path] = getBezierPath({
    sourceX,
    sourceY,
    targetX,
    targetY,
    sourcePosition,
    targetPosition
  })
  const cls = [
    'live-edge',
    data?.link === 'broker' ? 'link-broker' : 'link-namesrv',
    data?.crossRoom ? 'cross-room' : 'same-room',
    flashing ? 'flashing' : ''
  ].join(' ')
  const style = { '--flow-duration': `${duration}s` } as CSSProperties
  return (
    <g className={cls} style={style}>
      <BaseEdge id={id} path={path} className="live-edge-base" />
      {duration > 0 && <path d={path} className="live-edge-flow" fill="none" />}
    </g>
  )
}

export const LiveEdge = memo(LiveEdgeView)
