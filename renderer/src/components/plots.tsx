import 'uplot/dist/uPlot.min.css'
import { memo, useEffect, useRef } from 'react'
import uPlot from 'uplot'
import type { BarData, FaultMarker, TimeSeriesData } from '../model/plot-data'

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

/** Dashed vertical lines with a caption at each fault (kill, pause, …). */
function markerHook(markers: readonly FaultMarker[]) {
  return (u: uPlot) => {
    const { ctx } = u
    const { top, height } = u.bbox
    const colour = cssVar('--danger', '#dc2626')
    ctx.save()
    ctx.strokeStyle = colour
    ctx.fillStyle = colour
    ctx.lineWidth = 1.5 * uPlot.pxRatio
    ctx.setLineDash([5 * uPlot.pxRatio, 4 * uPlot.pxRatio])
    ctx.font = `${11 * uPlot.pxRatio}px system-ui, sans-serif`
    for (const m of markers) {
      const x = Math.round(u.valToPos(m.x, 'x', true))
      if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) continue
      ctx.beginPath()
      ctx.moveTo(x, top)
      ctx.lineTo(x, top + height)
      ctx.stroke()
      ctx.fillText(m.label, x + 4 * uPlot.pxRatio, top + 12 * uPlot.pxRatio)
    }
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
  markers
}: {
  title: string
  unit: string
  data: TimeSeriesData
  markers: readonly FaultMarker[]
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
              axes: [axis('seconds since start'), axis(unit)],
              hooks: { draw: [markerHook(markers)] }
            },
            data: [data.xs, ...data.series.map((s) => s.values)] as uPlot.AlignedData
          },
    [data, markers, empty]
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
                  // Full labels overlap beyond a few bars; the figure's label and list carry them.
                  values: (_u, splits) =>
                    splits.map((i) =>
                      data.values.length <= 3 ? (data.labels[i] ?? '') : `#${i + 1}`
                    )
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
          {data.values.length > 3 && (
            <ol className="bar-key" aria-hidden="true">
              {data.labels.map((l, i) => (
                <li key={i}>
                  <span className="mono">#{i + 1}</span> {l}
                </li>
              ))}
            </ol>
          )}
        </>
      )}
    </figure>
  )
})
