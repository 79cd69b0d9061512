import type { KeyboardEvent, MouseEvent } from 'react'
import { memo, useMemo } from 'react'
import type { FlowNode } from '../model/flow-model'
import type { Box } from '../model/geometry'
import type { Cubic } from '../model/link-geometry'
import { cubicAt, cubicPath, cubicTangent, linkArcs, subCubic } from '../model/link-geometry'
import type { LinkView } from '../model/network-links'
import { canvasLinks, linkAriaLabel, linkCaption, linkState } from '../model/network-links'
import { useEditorStore } from '../stores/editor-store'
import { useNetworkStore } from '../stores/network-store'
import { useReplayStore } from '../stores/replay-store'
import { useRunStore } from '../stores/run-store'
import './network-links.css'

/** Where the gap of a cut link is, in curve parameter. */
const GAP: [number, number] = [0.44, 0.56]
/** Rough caption width per character at the caption's font size (no text measuring per frame). */
const CHAR_W = 6.2

function openLinkMenu(v: LinkView, x: number, y: number, returnFocus: SVGElement | null) {
  useNetworkStore
    .getState()
    .openMenu({ subject: { kind: 'link', a: v.a, b: v.b }, x, y, returnFocus })
}

/** The cut mark in the gap: a cross when both ways are cut, an arrow along the cut direction otherwise. */
function CutMark({ cubic, view }: { cubic: Cubic; view: LinkView }) {
  const at = cubicAt(cubic, 0.5)
  const tan = cubicTangent(cubic, 0.5)
  const len = Math.hypot(tan.x, tan.y) || 1
  // Unit vector from a's end to b's.
  const ux = tan.x / len
  const uy = tan.y / len
  if (view.ab.blocked && view.ba.blocked) {
    const s = 5
    return (
      <path
        className="net-link-mark"
        d={`M${at.x - s},${at.y - s} L${at.x + s},${at.y + s} M${at.x - s},${at.y + s} L${at.x + s},${at.y - s}`}
      />
    )
  }
  const sign = view.ab.blocked ? 1 : -1
  const [fx, fy] = [ux * sign, uy * sign]
  const tip = { x: at.x + fx * 6, y: at.y + fy * 6 }
  const back = { x: at.x - fx * 5, y: at.y - fy * 5 }
  return (
    <path
      className="net-link-mark net-link-arrow"
      d={`M${tip.x},${tip.y} L${back.x - fy * 5},${back.y + fx * 5} L${back.x + fy * 5},${back.y - fx * 5} Z`}
    />
  )
}

interface LinkProps {
  view: LinkView
  cubic: Cubic
  leftIsA: boolean
}

/** One link: a wide invisible stroke to right-click, the line (cut in the middle when cut), and its caption. */
const NetworkLink = memo(function NetworkLink({ view, cubic, leftIsA }: LinkProps) {
  const state = linkState(view)
  const cut = state === 'cut' || state === 'cut-one-way'
  const { main, note } = linkCaption(view, leftIsA)
  const label = linkAriaLabel(view)
  const apex = cubicAt(cubic, 0.5)
  const full = cubicPath(cubic)
  const width = Math.max(main.length, note?.length ?? 0) * CHAR_W + 14
  const height = note ? 30 : 18
  // Under the cut mark, which sits on the apex.
  const chipY = apex.y + 11
  const onContextMenu = (e: MouseEvent<SVGElement>) => {
    e.preventDefault()
    e.stopPropagation()
    openLinkMenu(view, e.clientX, e.clientY, e.currentTarget)
  }
  const openFromChip = (el: SVGGElement) => {
    const r = el.getBoundingClientRect()
    openLinkMenu(view, r.left, r.bottom + 4, el)
  }
  const onKeyDown = (e: KeyboardEvent<SVGGElement>) => {
    if (
      e.key === 'Enter' ||
      e.key === ' ' ||
      e.key === 'ContextMenu' ||
      (e.key === 'F10' && e.shiftKey)
    ) {
      e.preventDefault()
      e.stopPropagation()
      openFromChip(e.currentTarget)
    }
  }
  return (
    <g
      className={`net-link net-${state} net-${view.source}${view.notApplied ? ' net-not-applied' : ''}`}
      data-link={view.key}
    >
      <path d={full} className="net-link-hit nopan" fill="none" onContextMenu={onContextMenu} />
      {cut ? (
        <>
          <path d={cubicPath(subCubic(cubic, 0, GAP[0]))} className="net-link-line" fill="none" />
          <path d={cubicPath(subCubic(cubic, GAP[1], 1))} className="net-link-line" fill="none" />
          <CutMark cubic={cubic} view={view} />
        </>
      ) : (
        <path d={full} className="net-link-line" fill="none" />
      )}
      <g
        className="net-link-chip nopan"
        role="button"
        tabIndex={0}
        aria-haspopup="menu"
        aria-label={label}
        onClick={(e) => {
          e.stopPropagation()
          openFromChip(e.currentTarget)
        }}
        onContextMenu={onContextMenu}
        onKeyDown={onKeyDown}
      >
        <title>{label}</title>
        <rect x={apex.x - width / 2} y={chipY} width={width} height={height} rx={9} />
        <text x={apex.x} y={chipY + 12.5} textAnchor="middle" className="net-link-text">
          {main}
        </text>
        {note && (
          <text x={apex.x} y={chipY + 25} textAnchor="middle" className="net-link-note">
            {note}
          </text>
        )}
      </g>
    </g>
  )
})

/**
 * The links between rooms under the rooms, each with its latency or what a fault made of it
 * ("20 ms", "cut", "cut →", "30 % loss"); right click or Enter opens its network menu.
 * Recomputed when rooms move or the network changes, never on pan or zoom.
 */
export const NetworkLinks = memo(function NetworkLinks({
  nodes,
  boxes
}: {
  nodes: readonly FlowNode[]
  boxes: ReadonlyMap<string, Box>
}) {
  const roomSpecs = useEditorStore((s) => s.history.present.rooms)
  const network = useEditorStore((s) => s.history.present.network)
  const running = useRunStore((s) => s.running)
  const status = useNetworkStore((s) => s.status)
  const replaying = useReplayStore((s) => s.active)
  const replayFaults = useReplayStore((s) => s.linkFaults)
  const roomIds = useMemo(() => roomSpecs.map((r) => r.id), [roomSpecs])
  const links = useMemo(
    () =>
      canvasLinks({
        rooms: roomIds,
        network,
        running,
        status,
        replay: replaying ? replayFaults : null
      }),
    [roomIds, network, running, status, replaying, replayFaults]
  )
  const rooms = useMemo(() => {
    const out = new Map<string, Box>()
    for (const n of nodes) if (n.type === 'room') out.set(n.data.roomId, boxes.get(n.id)!)
    return out
  }, [nodes, boxes])
  const arcs = useMemo(() => linkArcs(rooms, links), [rooms, links])
  return (
    <g className="net-links">
      {links.map((v) => {
        const cubic = arcs.get(v.key)
        if (!cubic) return null
        return <NetworkLink key={v.key} view={v} cubic={cubic} leftIsA={cubic.p0.x <= cubic.p3.x} />
      })}
    </g>
  )
})
