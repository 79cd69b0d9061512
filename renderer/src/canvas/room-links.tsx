import { memo, useMemo } from 'react'
import type { FlowNode } from '../model/flow-model'
import type { Box } from '../model/geometry'
import { pairRoomLinks, roomArc, roomLinkText } from '../model/room-links'
import { formatBytes, formatRate, useMetricsStore } from '../stores/metrics-store'

/**
 * Cross-room traffic: one arc per pair of rooms that exchanged messages or replicated between
 * them, labelled per direction with the current rates and the totals (messages and bytes drive a
 * cross-room link's cost; replication is what the brokers copied, apart).
 */
export const RoomLinks = memo(function RoomLinks({
  nodes,
  boxes
}: {
  nodes: readonly FlowNode[]
  boxes: ReadonlyMap<string, Box>
}) {
  const links = useMetricsStore((s) => s.roomLinks)
  const rooms = useMemo(() => {
    const out = new Map<string, Box>()
    for (const n of nodes) if (n.type === 'room') out.set(n.data.roomId, boxes.get(n.id)!)
    return out
  }, [nodes, boxes])
  const pairs = useMemo(() => pairRoomLinks(links), [links])
  return (
    <>
      {pairs.map((p) => {
        const a = rooms.get(p.a)
        const b = rooms.get(p.b)
        if (!a || !b) return null
        const { d, apex } = roomArc({ x: a.x + a.w / 2, y: a.y }, { x: b.x + b.w / 2, y: b.y })
        const lines = p.directions.map((l) =>
          roomLinkText(l, { rate: formatRate, bytes: formatBytes })
        )
        return (
          <g
            key={`${p.a}:${p.b}`}
            className="room-link"
            role="img"
            aria-roledescription="cross-room link"
            aria-label={`Cross-room traffic ${p.a} ↔ ${p.b}: ${lines.join('; ')}`}
          >
            <path d={d} className="room-link-line" fill="none" />
            {lines.map((text, i) => (
              <text
                key={i}
                className="room-link-label"
                x={apex.x}
                y={apex.y - (lines.length - 1 - i) * 16}
                textAnchor="middle"
                dy="-0.4em"
              >
                {text}
              </text>
            ))}
          </g>
        )
      })}
    </>
  )
})
