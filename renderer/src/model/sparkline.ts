/**
 * An svg path of a sparkline: `values` left to right over `width`, 0 at the bottom and the
 * largest value (at least `floor`) at the top. Empty for fewer than two points.
 */
export function sparkPath(
  values: readonly number[],
  width: number,
  height: number,
  floor = 1
): string {
  if (values.length < 2) return ''
  const max = Math.max(floor, ...values)
  const dx = width / (values.length - 1)
  const y = (v: number) => Math.round((height - (Math.max(0, v) / max) * height) * 10) / 10
  return values.map((v, i) => `${i ? 'L' : 'M'}${Math.round(i * dx * 10) / 10},${y(v)}`).join('')
}

/** "20/s · p99 5 ms · 2 failed": the figures line of a client node. */
export function figuresText(rate: number, p99Ms: number | null, failures: number): string {
  const r = rate >= 10 || rate === 0 ? String(Math.round(rate)) : rate.toFixed(1)
  const p =
    p99Ms === null ? 'p99 –' : `p99 ${p99Ms >= 100 ? Math.round(p99Ms) : p99Ms.toFixed(1)} ms`
  return `${r}/s · ${p}${failures ? ` · ${failures} failed` : ''}`
}
