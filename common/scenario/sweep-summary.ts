import { z } from 'zod'

/**
 * A what-if sweep as it is stored with each of its runs' reports and shown in Runs: per
 * combination of the varied settings, the medians of its figures over the runs, the best
 * combination of each figure and the trade-off of the fastest recovery. Lower is better for every
 * figure. The engine computes it (main/services/sweep); this is its one shape.
 */
export const SWEEP_FIGURES = [
  { key: 'rtoMs', label: 'RTO', unit: 'ms' },
  { key: 'failedSends', label: 'failed sends', unit: '' },
  { key: 'duplicates', label: 'duplicates', unit: '' },
  { key: 'crossRoomShare', label: 'cross-room share', unit: '%' },
  { key: 'sendP99Ms', label: 'send p99', unit: 'ms' }
] as const

export type SweepFigureKey = (typeof SWEEP_FIGURES)[number]['key']

const figureKeySchema = z.enum([
  'rtoMs',
  'failedSends',
  'duplicates',
  'crossRoomShare',
  'sendP99Ms'
])

export const sweepSummarySchema = z.object({
  scenario: z.string(),
  rows: z.array(
    z.object({
      /** The lane variant's name (s1, s2, …), which its clients, topic and group carry. */
      name: z.string(),
      /** What it set, as the user wrote it: `lane=java-tuned requestTimeout=200ms`. */
      label: z.string(),
      lane: z.string(),
      runs: z.number().int().positive(),
      runIds: z.array(z.number().int()),
      figures: z.object({
        /** null: a producer of it never recovered. */
        rtoMs: z.number().nullable(),
        failedSends: z.number(),
        duplicates: z.number(),
        crossRoomShare: z.number(),
        sendP99Ms: z.number()
      })
    })
  ),
  best: z.array(z.object({ figure: figureKeySchema, names: z.array(z.string()) })),
  tradeOff: z.string().nullable()
})
export type SweepSummary = z.infer<typeof sweepSummarySchema>

/** A figure as the table prints it; null and Infinity are a recovery that never came. */
export function formatSweepFigure(v: number | null, unit: string): string {
  if (v === null || v === Infinity) return 'never'
  if (unit === '%') return `${(v * 100).toFixed(1)} %`
  const n = Number.isInteger(v) ? String(v) : v.toFixed(1)
  return unit ? `${n} ${unit}` : n
}

export interface SweepTableRow {
  name: string
  label: string
  runIds: number[]
  cells: { text: string; best: boolean }[]
}

/** The sweep as the scorecard shows it: a row per combination, the best of each figure marked. */
export function sweepTable(sweep: SweepSummary): {
  head: string[]
  rows: SweepTableRow[]
  best: string[]
  tradeOff: string | null
} {
  const bestOf = new Map(sweep.best.map((b) => [b.figure, new Set(b.names)]))
  const labelOf = new Map(sweep.rows.map((r) => [r.name, r.label]))
  return {
    head: SWEEP_FIGURES.map((f) => f.label),
    rows: sweep.rows.map((r) => ({
      name: r.name,
      label: r.label,
      runIds: r.runIds,
      cells: SWEEP_FIGURES.map((f) => ({
        text: formatSweepFigure(r.figures[f.key], f.unit),
        best: bestOf.get(f.key)?.has(r.name) ?? false
      }))
    })),
    best: sweep.best.map(
      (b) =>
        `best ${SWEEP_FIGURES.find((f) => f.key === b.figure)!.label}: ${b.names.map((n) => labelOf.get(n) ?? n).join(' / ')}`
    ),
    tradeOff: sweep.tradeOff
  }
}
