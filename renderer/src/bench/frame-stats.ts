/** Summary of frame times in milliseconds. */
export interface FrameStats {
  frames: number
  fps: number
  mean: number
  p50: number
  p95: number
  p99: number
  max: number
  /** Frames slower than 33 ms (under 30 fps). */
  longFrames: number
}

function quantile(sorted: number[], q: number): number {
  if (!sorted.length) return 0
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

/** Computes frame-time statistics from a list of frame durations. */
export function summarize(durations: readonly number[]): FrameStats {
  const sorted = [...durations].sort((a, b) => a - b)
  const total = durations.reduce((a, b) => a + b, 0)
  const round = (n: number) => Math.round(n * 100) / 100
  return {
    frames: durations.length,
    fps: total ? round((durations.length * 1000) / total) : 0,
    mean: durations.length ? round(total / durations.length) : 0,
    p50: round(quantile(sorted, 0.5)),
    p95: round(quantile(sorted, 0.95)),
    p99: round(quantile(sorted, 0.99)),
    max: round(sorted[sorted.length - 1] ?? 0),
    longFrames: durations.filter((d) => d > 33).length
  }
}
