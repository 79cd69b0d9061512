import 'uplot/dist/uPlot.min.css'
import { memo, useEffect, useRef } from 'react'
import uPlot from 'uplot'
import type { BarData, FaultMarker, TimeSeriesData } from '../model/plot-data'
import { layoutMarkerLabels } from '../model/plot-data'

const PALETTE = ['#2563eb', '#16a34a', '#ea580c', '#7c3aed', '#0d9488', '#db2777', '#ca8a04']
const HEIGHT = 190

function cssVar(name: string, fallback: string): string {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim()
  return v || fallback
}

function axis(label: string): uPlot.Axis {
  const text = cssVar('--text-2', '#566173')
  const grid = cssVar('--border', '#dde1e7')
  return {
    label,
    stroke: text,
    labelSize: 18,
    font: '11px system-ui, sans-serif',
    labelFont: '11px system-ui, sans-serif',
    grid: { stroke: grid, width: 1 },
    ticks: { stroke: grid, width: 1 }
  }
}

/**
 * Dashed vertical lines with a caption at each fault (kill, pause, …). Captions of faults close
 * together stack on rows instead of overprinting; one that finds no free row is left to the
 * figure's label, which lists every fault.
 */
function markerHook(markers: readonly FaultMarker[]) {
  return (u: uPlot) => {
    const { ctx } = u
    const { top, height } = u.bbox
    const colour = cssVar('--danger', '#dc2626')
    const px = uPlot.pxRatio
    ctx.save()
    ctx.strokeStyle = colour
    ctx.fillStyle = colour
    ctx.lineWidth = 1.5 * px
    ctx.font = `${11 * px}px system-ui, sans-serif`
    // uPlot leaves the axes' alignment on the context; captions start at their line.
    ctx.textAlign = 'left'
    ctx.textBaseline = 'alphabetic'
    const visible = markers
      .map((m) => ({ m, x: Math.round(u.valToPos(m.x, 'x', true)) }))
      .filter(({ x }) => x >= u.bbox.left && x <= u.bbox.left + u.bbox.width)
    const placed = layoutMarkerLabels(
      visible.map((v) => v.x),
      visible.map((v) => ctx.measureText(v.m.label).width + 8 * px),
      3,
      4 * px
    )
    visible.forEach(({ m, x }, i) => {
      // Faults dashed in red, what the order checker found dotted in amber.
      const c = m.kind === 'order' ? cssVar('--warn', '#d97706') : colour
      ctx.strokeStyle = c
      ctx.fillStyle = c
      ctx.setLineDash(m.kind === 'order' ? [2 * px, 3 * px] : [5 * px, 4 * px])
      ctx.beginPath()
      ctx.moveTo(x, top)
      ctx.lineTo(x, top + height)
      ctx.stroke()
      const p = placed[i]!
      if (p.shown) ctx.fillText(m.label, x + 4 * px, top + (12 + p.row * 13) * px)
    })
    ctx.restore()
  }
}

/** Creates the chart once per data change and keeps it as wide as its container. */
function usePlot(
  build: (width: number) => { opts: uPlot.Options; data: uPlot.AlignedData } | null,
  deps: readonly unknown[]
) {
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const el = ref.current
    if (!el) return
    const built = build(el.clientWidth || 600)
    if (!built) return
    const plot = new uPlot(built.opts, built.data, el)
    const ro = new ResizeObserver(() => {
      if (el.clientWidth > 0) plot.setSize({ width: el.clientWidth, height: HEIGHT })
    })
    ro.observe(el)
    return () => {
      ro.disconnect()
      plot.destroy()
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps)
  return ref
}

/** A per-client line chart over seconds since the run's start, with fault markers. */
export const TimePlot = memo(function TimePlot({
  title,
  unit,
  data,
  markers,
  xLabel = 'seconds since start'
}: {
  title: string
  unit: string
  data: TimeSeriesData
  markers: readonly FaultMarker[]
  /** What the x axis counts from. */
  xLabel?: string
}) {
  const empty = !data.xs.length || !data.series.length
  const ref = usePlot(
    (width) =>
      empty
        ? null
        : {
            opts: {
              width,
              height: HEIGHT,
              scales: {
                x: { time: false },
                y: { range: (_u, _min, max) => [0, Math.max(1, (max ?? 0) * 1.15)] }
              },
              legend: { show: true },
              cursor: { drag: { x: false, y: false } },
              series: [
                { label: 's', value: (_u, v) => (v === null ? '–' : `${v.toFixed(1)} s`) },
                ...data.series.map((s, i) => ({
                  label: s.clientId,
                  stroke: PALETTE[i % PALETTE.length]!,
                  width: 1.5,
                  spanGaps: true,
                  points: { show: false },
                  value: (_u: uPlot, v: number | null) => (v === null ? '–' : v.toFixed(1))
                }))
              ],
              axes: [axis(xLabel), axis(unit)],
              hooks: { draw: [markerHook(markers)] }
            },
            data: [data.xs, ...data.series.map((s) => s.values)] as uPlot.AlignedData
          },
    [data, markers, empty, xLabel]
  )
  const clients = data.series.map((s) => s.clientId).join(', ')
  return (
    <figure className="plot" aria-label={title}>
      <figcaption className="plot-title">{title}</figcaption>
      {empty ? (
        <p className="plot-empty muted">No counters were recorded for this run.</p>
      ) : (
        <div
          ref={ref}
          className="plot-canvas"
          role="img"
          aria-label={`${title} for ${clients}${markers.length ? `; faults: ${markers.map((m) => `${m.label} at ${m.x.toFixed(1)} s`).join(', ')}` : ''}`}
        />
      )}
    </figure>
  )
})

/** One bar per failover: its recovery time. */
export const BarPlot = memo(function BarPlot({
  title,
  unit,
  data
}: {
  title: string
  unit: string
  data: BarData
}) {
  const empty = !data.values.length
  const numbered = data.values.length > 1
  const ref = usePlot(
    (width) =>
      empty
        ? null
        : {
            opts: {
              width,
              height: HEIGHT,
              scales: {
                x: { time: false, range: [-0.5, data.values.length - 0.5] },
                y: { range: (_u, _min, max) => [0, Math.max(10, (max ?? 0) * 1.15)] }
              },
              legend: { show: false },
              cursor: { drag: { x: false, y: false } },
              series: [
                {},
                {
                  label: unit,
                  stroke: cssVar('--accent', '#2563eb'),
                  fill: `${cssVar('--accent', '#2563eb')}99`,
                  width: 1,
                  points: { show: false },
                  paths: uPlot.paths.bars!({ size: [0.6, 64], align: 0 })
                }
              ],
              axes: [
                {
                  ...axis('failover'),
                  splits: () => data.values.map((_, i) => i),
                  // Full labels overlap as soon as two sit side by side: bars are numbered and the
                  // key under the chart names them.
                  values: (_u, splits) =>
                    splits.map((i) => (numbered ? `#${i + 1}` : (data.labels[i] ?? '')))
                },
                axis(unit)
              ]
            },
            data: [data.values.map((_, i) => i), data.values] as uPlot.AlignedData
          },
    [data, empty]
  )
  return (
    <figure className="plot" aria-label={title}>
      <figcaption className="plot-title">{title}</figcaption>
      {empty ? (
        <p className="plot-empty muted">No failovers in this run.</p>
      ) : (
        <>
          <div
            ref={ref}
            className="plot-canvas"
            role="img"
            aria-label={`${title}: ${data.labels.map((l, i) => `${l} ${data.values[i] ?? 'never'} ${unit}`).join('; ')}`}
          />
          {numbered && (
            <ol className="bar-key" aria-hidden="true">
              {data.labels.map((l, i) => (
                <li key={i}>
                  <span className="mono">#{i + 1}</span> {l}:{' '}
                  <span className="mono">
                    {data.values[i] === null ? 'never' : `${data.values[i]} ${unit}`}
                  </span>
                </li>
              ))}
            </ol>
          )}
        </>
      )}
    </figure>
  )
})
