import { z } from 'zod'

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 }

/** Parses `250ms`, `1.5s`, `2m` or a bare number of milliseconds; undefined when malformed. */
export function parseDuration(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/.exec(value)
  if (!m) return undefined
  return Math.round(Number(m[1]) * UNIT_MS[m[2] ?? 'ms']!)
}

/** Scenario files write times as `15s`; everything downstream works in milliseconds. */
export const durationSchema = z.union([z.number(), z.string()]).transform((v, ctx) => {
  const ms = parseDuration(v)
  if (ms === undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `"${String(v)}" is not a duration; write e.g. 500ms, 15s, 2m or a number of milliseconds`
    })
    return z.NEVER
  }
  return ms
})

/** Formats milliseconds for scorecards: `850 ms`, `1.25 s`. */
export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—'
  if (ms < 1000) return `${Math.round(ms)} ms`
  return `${(ms / 1000).toFixed(2)} s`
}
