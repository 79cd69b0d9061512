import type { CounterSample } from '../../../common/scenario/metrics'
import { countersToRates } from '../../../common/scenario/metrics'
import type { ScenarioReport } from '../../../common/scenario/schema'
import type { Topology } from '../../../common/topology/schema'
import { trafficLines } from '../../../common/scenario/traffic-text'
import { headroomLine } from '../../../common/scenario/headroom'
import { FAULT_ACTIONS } from '../engine/run/fault'
import type { PlotMarker, PlotSeries } from './svg'
import { esc, linePlot, topologyPicture } from './svg'
import type { SweepSummary } from '../../../common/scenario/sweep-summary'
import { sweepTable } from '../../../common/scenario/sweep-summary'

/** What one run's HTML report is made of: its report, its topology and its clients' counters. */
export interface ReportHtmlInput {
  report: ScenarioReport
  topology: Topology
  counters: readonly CounterSample[]
}

/** Network faults that slow a room rather than take it out: it is hit all the same. */
const DEGRADATIONS = new Set(['delay', 'bandwidth', 'one-way'])

/** No scripts, no network: the page carries its styles and pictures inline. */
const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

const STYLE = `
:root { color-scheme: light; font: 15px/1.45 system-ui, -apple-system, 'Segoe UI', sans-serif; color: #1d1d1f; }
body { margin: 0 auto; max-width: 980px; padding: 16px; }
h1 { font-size: 1.5rem; margin: 0 0 4px; } h2 { font-size: 1.15rem; margin: 28px 0 8px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
.verdict { display: inline-block; padding: 2px 10px; border-radius: 12px; font-weight: 600; }
.pass { background: #e3f4ea; color: #0b6b33; } .fail { background: #fde7e3; color: #a3260f; }
.muted { color: #666; fill: #666; } .meta { color: #555; margin: 4px 0 0; }
.scroll { overflow-x: auto; } table { border-collapse: collapse; width: 100%; font-size: 0.9rem; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #eee; white-space: nowrap; }
td:first-child { white-space: normal; min-width: 8em; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
svg { width: 100%; height: auto; font-size: 11px; } figure { margin: 12px 0; } figcaption { color: #555; font-size: 0.85rem; }
.grid { stroke: #eee; } .fault { stroke: #d55e00; stroke-dasharray: 4 3; }
.room { fill: #f7f9fc; stroke: #9aa7b8; } .room.hit { fill: #fff3ef; stroke: #d55e00; stroke-width: 2; }
.room-name { font-weight: 600; font-size: 13px; } .failover { stroke: #d55e00; stroke-width: 1.5; } .failover-label { fill: #a3260f; }
.legend { list-style: none; padding: 0; margin: 4px 0; display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 0.85rem; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 5px; }
@media (max-width: 600px) { body { padding: 10px; } th, td { padding: 3px 5px; } }
`

/**
 * One run as a single self-contained HTML file (Runs ▸ Export ▸ HTML, `drstudio report <run>
 * --html`): the verdict, the topology with the rooms a fault hit and the failovers between them,
 * the fault timeline, gates, plots of sends and failures with the faults marked, the ledger's
 * totals per client, and what the run noted. No scripts and nothing fetched: it opens anywhere,
 * mail and phones included.
 */
export function reportHtml({ report: r, topology, counters }: ReportHtmlInput): string {
  const verdict = r.aborted ? 'ABORTED' : r.passed ? 'PASSED' : 'FAILED'
  const markers: PlotMarker[] = r.faults.map((f) => ({
    atS: f.atMs / 1000,
    label: `${f.action} ${f.target.join(', ')}`
  }))
  const hitRooms = new Set(
    r.faults
      .filter((f) => f.ok && (FAULT_ACTIONS.has(f.action) || DEGRADATIONS.has(f.action)))
      .flatMap((f) => roomsOf(topology, [...f.target, ...f.nodes]))
  )
  const pairs = new Map<string, number>()
  for (const f of r.failovers) {
    if (!f.fromRoom || !f.toRoom || f.fromRoom === f.toRoom) continue
    const k = `${f.fromRoom}\u0000${f.toRoom}`
    pairs.set(k, (pairs.get(k) ?? 0) + 1)
  }
  const body = [
    `<header><h1>${esc(r.scenario)}</h1>`,
    `<p><span class="verdict ${r.passed && !r.aborted ? 'pass' : 'fail'}">${verdict}</span></p>`,
    `<p class="meta">Run ${r.runId} · topology ${esc(r.topology)} · ${esc(r.startedAt)} → ${esc(r.endedAt)} · topic ${esc(r.topic)}</p>`,
    r.description ? `<p>${esc(r.description)}</p>` : '',
    r.aborted ? `<p><strong>Stopped by the abort block:</strong> ${esc(r.aborted)}</p>` : '',
    '</header>',
    section('Topology', topologyPicture(topology, hitRooms, pairs)),
    section('Gates', gatesTable(r)),
    section('Faults', faultsTable(r)),
    section('Failovers', failoversTable(r)),
    section('Traffic', plots(r, counters, markers)),
    section('Ledger', ledgerTables(r)),
    r.sweep ? section('Sweep', sweepSection(r.sweep)) : '',
    r.traffic
      ? section(
          'Cross-room traffic',
          `<ul>${trafficLines(r.traffic)
            .map((l) => `<li>${esc(l)}</li>`)
            .join('')}</ul>`
        )
      : '',
    r.headroom?.length
      ? section(
          'Headroom',
          `<p>Messages per second offered by each room's clients and carried by each room's brokers while a fault lasted.</p><ul>${r.headroom
            .map((h) => `<li>${esc(headroomLine(h))}</li>`)
            .join('')}</ul>`
        )
      : '',
    r.notes.length
      ? section('Notes', `<ul>${r.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>`)
      : ''
  ].join('\n')
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<title>${esc(`${r.scenario}: ${verdict} (run ${r.runId})`)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
<footer><p class="muted">DR Studio run report · every time is seconds from the workload start</p></footer>
</body>
</html>
`
}

function section(title: string, html: string): string {
  const id = title.toLowerCase().replace(/[^a-z0-9]+/g, '-')
  return `<section aria-labelledby="h-${id}"><h2 id="h-${id}">${esc(title)}</h2>${html}</section>`
}

function table(
  caption: string,
  head: readonly string[],
  rows: readonly (readonly string[])[],
  numeric = new Set<number>()
): string {
  if (rows.length === 0) return `<p class="muted">${esc(caption)}: none.</p>`
  const th = head
    .map((h, i) => `<th scope="col"${numeric.has(i) ? ' class="num"' : ''}>${esc(h)}</th>`)
    .join('')
  const tr = rows
    .map(
      (row) =>
        `<tr>${row.map((c, i) => `<td${numeric.has(i) ? ' class="num"' : ''}>${c}</td>`).join('')}</tr>`
    )
    .join('')
  return `<div class="scroll"><table><caption class="muted">${esc(caption)}</caption><thead><tr>${th}</tr></thead><tbody>${tr}</tbody></table></div>`
}

/** The what-if sweep this run belongs to: a row per setting, the best of each figure starred. */
function sweepSection(sweep: SweepSummary): string {
  const t = sweepTable(sweep)
  const numeric = new Set(t.head.map((_, i) => i + 1))
  return (
    table(
      'every setting under the same faults; medians, * best',
      ['setting', ...t.head],
      t.rows.map((row) => [
        esc(row.label),
        ...row.cells.map((c) => `${esc(c.text)}${c.best ? ' *' : ''}`)
      ]),
      numeric
    ) +
    `<ul>${[...t.best, ...(t.tradeOff ? [`trade-off: ${t.tradeOff}`] : [])]
      .map((l) => `<li>${esc(l)}</li>`)
      .join('')}</ul>`
  )
}

function gatesTable(r: ScenarioReport): string {
  return table(
    `${r.gates.filter((g) => g.passed).length} of ${r.gates.length} gates passed`,
    ['gate', 'result', 'actual', 'limit'],
    r.gates.map((g) => [
      esc(g.name),
      g.passed
        ? '<span class="verdict pass">pass</span>'
        : '<span class="verdict fail">fail</span>',
      esc(g.actual ?? '—'),
      esc(g.limit)
    ])
  )
}

function faultsTable(r: ScenarioReport): string {
  return table(
    'Faults and repairs, in order',
    ['at (s)', 'action', 'target', 'nodes', 'by', 'ok'],
    r.faults.map((f) => [
      secs(f.atMs),
      esc(f.action),
      esc(f.target.join(', ')),
      esc(f.nodes.join(', ')),
      esc(f.source ?? 'timeline'),
      f.ok ? 'yes' : `no: ${esc(f.error ?? '')}`
    ]),
    new Set([0])
  )
}

/** Failovers grouped by client, kind and route: a client that fails over per send is one row. */
function failoversTable(r: ScenarioReport): string {
  const groups = new Map<
    string,
    { f: ScenarioReport['failovers'][number]; n: number; worst: number | null }
  >()
  for (const f of r.failovers) {
    const where = (name: string | null | undefined, room: string | null) =>
      `${name ?? ''} ${room ? `(${room})` : ''}`.trim()
    const k = [f.clientId, f.kind, where(f.from, f.fromRoom), where(f.to, f.toRoom)].join('\u0000')
    const g = groups.get(k)
    if (!g) groups.set(k, { f, n: 1, worst: f.durationMs })
    else {
      g.n++
      if (f.durationMs !== null) g.worst = Math.max(g.worst ?? 0, f.durationMs)
    }
  }
  return table(
    'Each client’s failovers by route: the first, how many, the longest',
    ['first at (s)', 'client', 'kind', 'from', 'to', 'times', 'longest (ms)', 'why (first)'],
    [...groups.values()].map(({ f, n, worst }) => [
      secs(f.atMs),
      esc(f.clientId),
      esc(f.kind),
      esc(`${f.from ?? ''} ${f.fromRoom ? `(${f.fromRoom})` : ''}`.trim()),
      esc(`${f.to ?? ''} ${f.toRoom ? `(${f.toRoom})` : ''}`.trim()),
      String(n),
      worst === null ? '—' : String(Math.round(worst)),
      esc(f.reason.length > 80 ? `${f.reason.slice(0, 80)}…` : f.reason)
    ]),
    new Set([0, 5, 6])
  )
}

function plots(
  r: ScenarioReport,
  counters: readonly CounterSample[],
  markers: PlotMarker[]
): string {
  const rates = countersToRates(counters)
  const seriesOf = (metric: string): PlotSeries[] => {
    const by = new Map<string, [number, number][]>()
    for (const p of rates) {
      const v = p.rates[metric]
      if (v === undefined) continue
      const list = by.get(p.clientId) ?? []
      list.push([(p.atMs - r.originMs) / 1000, Math.round(v * 10) / 10])
      by.set(p.clientId, list)
    }
    return [...by]
      .filter(([, pts]) => pts.some(([, v]) => v > 0))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, points]) => ({ name, points }))
  }
  if (rates.length === 0)
    return '<p class="muted">No client counters were recorded for this run.</p>'
  const plot = (title: string, metric: string, none: string) => {
    const series = seriesOf(metric)
    return series.length ? linePlot(title, 'messages/s', series, markers) : `<p>${esc(none)}</p>`
  }
  return [
    plot('Acknowledged sends per producer', 'acked', 'No send was acknowledged.'),
    plot('Failed sends per producer', 'failed', 'No send failed.'),
    plot('Consumed per consumer', 'consumed', 'Nothing was consumed.'),
    '<p class="muted">Plotted: the clients that report counters (DR Studio’s own lanes); every lane is in the tables.</p>'
  ].join('')
}

function ledgerTables(r: ScenarioReport): string {
  const t = r.totals
  const totals = table(
    'What the ledger holds for this run',
    ['sent', 'acknowledged', 'failed', 'consumed', 'lost', 'duplicates'],
    [[t.sent, t.acked, t.failed, t.consumed, t.lost, t.duplicates].map(String)],
    new Set([0, 1, 2, 3, 4, 5])
  )
  const clients = table(
    'Per client',
    ['client', 'room', 'role', 'sent', 'acked', 'failed', 'consumed', 'lost', 'dups', 'RTO (ms)'],
    r.clients.map((c) => [
      esc(c.id),
      esc(c.room),
      esc(c.role),
      ...[c.sent, c.acked, c.failed, c.consumed, c.lost, c.duplicates].map(String),
      c.rtoMs.length
        ? c.rtoMs.map((v) => (v === null ? 'never' : String(Math.round(v)))).join(', ')
        : '—'
    ]),
    new Set([3, 4, 5, 6, 7, 8])
  )
  return totals + clients
}

/** The rooms named by fault targets: room ids as they are, nodes by their room. */
function roomsOf(topology: Topology, names: readonly string[]): string[] {
  const out = new Set<string>()
  for (const n of names) {
    const room = topology.rooms.find(
      (r) =>
        r.id === n ||
        [r.nameServers, r.brokers, r.managementNodes, r.proxies, r.controllers ?? []].some((list) =>
          list.some((x) => x.id === n)
        )
    )
    if (room) out.add(room.id)
  }
  return [...out]
}

function secs(ms: number): string {
  return (ms / 1000).toFixed(1)
}
