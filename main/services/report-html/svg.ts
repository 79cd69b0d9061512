import type { Topology } from '../../../common/topology/schema'
import { listNodes } from '../../../common/topology/model'

/** Escapes text for HTML and SVG (content and attribute values). */
export function esc(text: unknown): string {
  return String(text)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')
}

/** A palette that reads on white and for the common colour blindnesses (Okabe–Ito). */
export const PALETTE = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00', '#000000']

export interface PlotSeries {
  name: string
  /** [seconds since the workload start, value] */
  points: readonly (readonly [number, number])[]
}

export interface PlotMarker {
  atS: number
  label: string
}

/**
 * A line plot as inline SVG: series over time, fault markers as dashed verticals, axes with a few
 * ticks. Scales with its container (viewBox), so it reads on a phone; `title` is its accessible name.
 */
export function linePlot(
  title: string,
  unit: string,
  series: readonly PlotSeries[],
  markers: readonly PlotMarker[]
): string {
  const W = 640
  const H = 220
  const L = 48
  const R = 12
  const T = 12
  const B = 28
  const all = series.flatMap((s) => s.points)
  const xMax = Math.max(1, ...all.map((p) => p[0]), ...markers.map((m) => m.atS))
  const xMin = Math.min(0, ...all.map((p) => p[0]))
  // Four gridlines at round values.
  const yMax = 4 * niceCeil(Math.max(1, ...all.map((p) => p[1])) / 4)
  const x = (v: number) => L + ((v - xMin) / (xMax - xMin || 1)) * (W - L - R)
  const y = (v: number) => H - B - (v / yMax) * (H - T - B)
  const parts: string[] = []
  for (let i = 0; i <= 4; i++) {
    const v = (yMax * i) / 4
    parts.push(
      `<line x1="${L}" x2="${W - R}" y1="${y(v)}" y2="${y(v)}" class="grid"/>`,
      `<text x="${L - 6}" y="${y(v) + 4}" text-anchor="end">${fmt(v)}</text>`
    )
  }
  for (const t of ticks(xMin, xMax)) {
    parts.push(`<text x="${x(t)}" y="${H - 8}" text-anchor="middle">${fmt(t)} s</text>`)
  }
  for (const m of markers) {
    parts.push(
      `<line x1="${x(m.atS)}" x2="${x(m.atS)}" y1="${T}" y2="${H - B}" class="fault"><title>${esc(m.label)}</title></line>`
    )
  }
  series.forEach((s, i) => {
    if (s.points.length === 0) return
    const d = s.points.map((p) => `${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`).join(' ')
    parts.push(
      `<polyline points="${d}" fill="none" stroke="${PALETTE[i % PALETTE.length]}" stroke-width="1.6"><title>${esc(s.name)}</title></polyline>`
    )
  })
  const legend = series
    .map(
      (s, i) =>
        `<li><span class="swatch" style="background:${PALETTE[i % PALETTE.length]}"></span>${esc(s.name)}</li>`
    )
    .join('')
  return `<figure><svg viewBox="0 0 ${W} ${H}" style="max-width:${W * 1.5}px" role="img" aria-label="${esc(title)} (${esc(unit)})">${parts.join('')}</svg><figcaption>${esc(title)} (${esc(unit)}); dashed: faults</figcaption><ul class="legend">${legend}</ul></figure>`
}

/**
 * The topology as inline SVG: a box per room with its server nodes; rooms a fault hit are marked,
 * and an arrow per room pair that clients failed over along, labelled with how many.
 */
export function topologyPicture(
  topology: Topology,
  hitRooms: ReadonlySet<string>,
  failovers: ReadonlyMap<string, number>
): string {
  const nodes = listNodes(topology).filter((n) => n.kind !== 'producer' && n.kind !== 'consumer')
  const perRoom = topology.rooms.map((r) => nodes.filter((n) => n.room === r.id))
  const boxW = 190
  const gap = 60
  const rowH = 18
  const boxH = 40 + rowH * Math.max(1, ...perRoom.map((l) => l.length))
  const W = topology.rooms.length * boxW + (topology.rooms.length - 1) * gap + 20
  const H = boxH + 30 + Math.min(3, Math.max(1, failovers.size)) * 20
  const left = (i: number) => 10 + i * (boxW + gap)
  const parts: string[] = [
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#d55e00"/></marker></defs>'
  ]
  topology.rooms.forEach((room, i) => {
    const hit = hitRooms.has(room.id)
    parts.push(
      `<rect x="${left(i)}" y="10" width="${boxW}" height="${boxH}" rx="8" class="${hit ? 'room hit' : 'room'}"/>`,
      `<text x="${left(i) + 10}" y="30" class="room-name">${esc(room.name ?? room.id)}${hit ? ' (fault)' : ''}</text>`
    )
    perRoom[i]!.forEach((n, j) => {
      const role = n.kind === 'broker' ? ` ${n.spec.role}` : ''
      parts.push(
        `<text x="${left(i) + 14}" y="${52 + j * rowH}">${esc(n.id)} <tspan class="muted">${esc(n.kind)}${esc(role)}</tspan></text>`
      )
    })
  })
  const index = new Map(topology.rooms.map((r, i) => [r.id, i]))
  let lane = 0
  for (const [pair, count] of failovers) {
    const [from, to] = pair.split('\u0000') as [string, string]
    const a = index.get(from)
    const b = index.get(to)
    if (a === undefined || b === undefined || a === b) continue
    const yLine = boxH + 30 + (lane++ % 3) * 20
    const x1 = left(a) + boxW / 2
    const x2 = left(b) + boxW / 2
    parts.push(
      `<line x1="${x1}" y1="${yLine}" x2="${x2}" y2="${yLine}" class="failover" marker-end="url(#arrow)"/>`,
      `<text x="${(x1 + x2) / 2}" y="${yLine - 3}" text-anchor="middle" class="failover-label">${count} failover${count === 1 ? '' : 's'} ${esc(from)} → ${esc(to)}</text>`
    )
  }
  return `<svg viewBox="0 0 ${W} ${H}" style="max-width:${Math.round(W * 1.6)}px" role="img" aria-label="Topology ${esc(topology.name)}: ${topology.rooms.length} rooms">${parts.join('')}</svg>`
}

function niceCeil(v: number): number {
  const p = 10 ** Math.floor(Math.log10(v))
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p
  return 10 * p
}

function ticks(min: number, max: number): number[] {
  const step = niceCeil((max - min) / 6)
  const out: number[] = []
  for (let t = Math.ceil(min / step) * step; t <= max + 1e-9; t += step) out.push(t)
  return out
}

function fmt(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(Math.abs(v) < 10 ? 1 : 0)
}
