// `npm run bench:canvas`: frame times of the designer canvas in Chromium on the bench route
// (`&bench=1`: a generated topology, synthetic engine events), median of N repetitions.
// Scenarios, interleaved per repetition so machine noise hits them alike:
//   idle        events=0, no panning                      (baseline: what the browser gives an idle page)
//   pan         events=0, panning and zooming
//   events      500 events/s, canvas still
//   events+pan  500 events/s while panning and zooming    (the target: p95 ≤ 16.7 ms)
//   metrics     500 events/s + live metrics (a snapshot of every client every 500 ms), canvas still
//   metrics+pan the same while panning and zooming        (live metrics on: the same target)
// Needs a build (`npm run build`). Env: BENCH_RUNS (3), BENCH_SECONDS (5), BENCH_NODES (300),
// BENCH_ROOMS (6), BENCH_EPS (500).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { loadNow, writeResultMarkdown } from './results-file'
import { join } from 'node:path'
import type { Browser, CDPSession } from '@playwright/test'
import { chromium } from '@playwright/test'
import { chromiumPath, startBrowserShell } from '../e2e/support/shell'

const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const NODES = Number(process.env.BENCH_NODES ?? 300)
const ROOMS = Number(process.env.BENCH_ROOMS ?? 6)
const EPS = Number(process.env.BENCH_EPS ?? 500)
const WARMUP_MS = 1500
const TARGET_P95_MS = 16.7
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update'
]

/** What `window.__drstudioBench.stats()` returns (renderer/src/bench/bench.ts). */
interface PageStats {
  frames: number
  fps: number
  mean: number
  p50: number
  p95: number
  p99: number
  max: number
  longFrames: number
  events: number
  eventsPerSecond: number
  seconds: number
}

/** Page stats plus CPU the browser's processes used meanwhile, in cores (1 = one core busy). */
interface Stats extends PageStats {
  rendererCores: number
  gpuCores: number
  load1: number
}

interface Scenario {
  id: 'idle' | 'pan' | 'events' | 'events+pan' | 'metrics' | 'metrics+pan'
  label: string
  events: boolean
  pan: boolean
  metrics?: boolean
}

const SCENARIOS: Scenario[] = [
  { id: 'idle', label: 'baseline: idle canvas, no events', events: false, pan: false },
  { id: 'pan', label: 'pan + zoom, no events', events: false, pan: true },
  { id: 'events', label: `${EPS} events/s, canvas still`, events: true, pan: false },
  { id: 'events+pan', label: `${EPS} events/s while panning + zooming`, events: true, pan: true },
  {
    id: 'metrics',
    label: `${EPS} events/s + live metrics, canvas still`,
    events: true,
    pan: false,
    metrics: true
  },
  {
    id: 'metrics+pan',
    label: `${EPS} events/s + live metrics while panning + zooming`,
    events: true,
    pan: true,
    metrics: true
  }
]

const METRICS = [
  'p50',
  'p95',
  'p99',
  'mean',
  'max',
  'fps',
  'longFrames',
  'eventsPerSecond',
  'rendererCores',
  'gpuCores',
  'load1'
] as const
type Metric = (typeof METRICS)[number]

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits

/** One measurement on a fresh page, so no scenario inherits another's DOM or heap. */
/** CPU seconds used so far by renderer processes and by the GPU (software compositing) process. */
async function cpuTimes(cdp: CDPSession): Promise<{ renderer: number; gpu: number }> {
  const { processInfo } = (await cdp.send('SystemInfo.getProcessInfo')) as {
    processInfo: { type: string; cpuTime: number }[]
  }
  const sum = (type: string) =>
    processInfo.filter((p) => p.type === type).reduce((a, p) => a + p.cpuTime, 0)
  return { renderer: sum('renderer'), gpu: sum('GPU') }
}

async function measure(
  browser: Browser,
  cdp: CDPSession,
  url: string,
  s: Scenario
): Promise<Stats> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
  try {
    const page = await context.newPage()
    const params = new URLSearchParams({
      bench: '1',
      nodes: String(NODES),
      rooms: String(ROOMS),
      eps: String(EPS),
      ...(s.events ? {} : { events: '0' }),
      ...(s.metrics ? { metrics: '1' } : {})
    })
    await page.goto(`${url}&${params}`)
    await page.locator('body[data-app-state="ready"]').waitFor({ timeout: 120_000 })
    await page.waitForFunction(() => '__drstudioBench' in globalThis, undefined, {
      timeout: 60_000
    })
    // Let the first layout, fit-view and the first event batches settle before measuring.
    await page.waitForTimeout(WARMUP_MS)
    const ms = SECONDS * 1000
    const cpu0 = await cpuTimes(cdp)
    const t0 = performance.now()
    const stats: PageStats = await page.evaluate(
      async ({ pan, ms }) => {
        const bench = (globalThis as unknown as { __drstudioBench: BenchLike }).__drstudioBench
        if (pan) return bench.panZoom(ms)
        bench.reset()
        await new Promise((r) => setTimeout(r, ms))
        return bench.stats()
      },
      { pan: s.pan, ms }
    )
    const wall = (performance.now() - t0) / 1000
    const cpu1 = await cpuTimes(cdp)
    return {
      ...stats,
      rendererCores: round((cpu1.renderer - cpu0.renderer) / wall),
      gpuCores: round((cpu1.gpu - cpu0.gpu) / wall),
      load1: round(loadavg()[0]!)
    }
  } finally {
    await context.close()
  }
}

/** The subset of the page's bench API used inside `page.evaluate`. */
interface BenchLike {
  reset(): void
  stats(): PageStats
  panZoom(ms: number): Promise<PageStats>
}

const dataDir = mkdtempSync(join(tmpdir(), 'drstudio-bench-canvas-'))
const loadBefore = loadavg().map((x) => round(x))
const { url, child } = await startBrowserShell(dataDir)
const browser = await chromium.launch({ executablePath: chromiumPath(), args: ARGS })
const cdp = await browser.newBrowserCDPSession()
const samples = new Map<Scenario['id'], Stats[]>(SCENARIOS.map((s) => [s.id, []]))
try {
  for (let run = 0; run < RUNS; run++) {
    // Rotate the order each repetition so drift (thermal, other load) is spread over scenarios.
    const order = SCENARIOS.map((_, i) => SCENARIOS[(i + run) % SCENARIOS.length]!)
    for (const s of order) {
      const stats = await measure(browser, cdp, url, s)
      samples.get(s.id)!.push(stats)
      process.stderr.write(
        `run ${run + 1}/${RUNS} ${s.id.padEnd(10)} p50 ${stats.p50} ms  p95 ${stats.p95} ms  ` +
          `frames ${stats.frames}  events/s ${stats.eventsPerSecond}  renderer ${stats.rendererCores} cores  ` +
          `load ${stats.load1}\n`
      )
    }
  }
} finally {
  await browser.close()
  child.kill('SIGTERM')
  await new Promise((r) => child.once('exit', r))
  rmSync(dataDir, { recursive: true, force: true })
}

const summary = Object.fromEntries(
  SCENARIOS.map((s) => {
    const runs = samples.get(s.id)!
    const med = Object.fromEntries(
      METRICS.map((m) => [m, round(median(runs.map((r) => r[m])))])
    ) as Record<Metric, number>
    return [s.id, { label: s.label, median: med, runs }]
  })
) as Record<Scenario['id'], { label: string; median: Record<Metric, number>; runs: Stats[] }>

const idle = summary.idle.median
const target = summary['events+pan'].median
const withMetrics = summary['metrics+pan'].median
const result = {
  at: new Date().toISOString(),
  config: {
    nodes: NODES,
    rooms: ROOMS,
    eventsPerSecond: EPS,
    secondsPerRun: SECONDS,
    runs: RUNS,
    viewport: '1440x900',
    chromium: chromiumPath(),
    args: ARGS
  },
  machine: {
    cpus: cpus().length,
    loadAvg: { before: loadBefore, after: loadavg().map((x) => round(x)) }
  },
  targetP95Ms: TARGET_P95_MS,
  targetMet: target.p95 <= TARGET_P95_MS,
  targetMetWithMetrics: withMetrics.p95 <= TARGET_P95_MS,
  scenarios: summary,
  ratios: {
    p50VsIdle: round(target.p50 / idle.p50),
    p95VsIdle: round(target.p95 / idle.p95),
    p95VsPanOnly: round(target.p95 / summary.pan.median.p95),
    metricsP95VsEvents: round(withMetrics.p95 / target.p95)
  }
}
mkdirSync('bench/results', { recursive: true })
writeFileSync('bench/results/canvas.json', JSON.stringify(result, null, 2) + '\n')

const rows = SCENARIOS.map((s) => {
  const m = summary[s.id].median
  const ratio = (a: number, b: number) => (b ? `${(a / b).toFixed(2)}×` : 'n/a')
  return `| ${s.label} | ${m.p50.toFixed(1)} | ${m.p95.toFixed(1)} | ${m.p99.toFixed(1)} | ${m.fps.toFixed(1)} | ${m.longFrames} | ${m.eventsPerSecond} | ${m.rendererCores.toFixed(2)} | ${ratio(m.p50, idle.p50)} | ${ratio(m.p95, idle.p95)} |`
})
const table = `Canvas frame times: ${NODES} nodes in ${ROOMS} rooms, ${SECONDS} s per run, median of ${RUNS} runs, ${cpus().length} CPUs, no GPU

| scenario | p50 ms | p95 ms | p99 ms | fps | frames > 33 ms | events/s | renderer CPU (cores) | p50 vs idle | p95 vs idle |
|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

target p95 ≤ ${TARGET_P95_MS} ms with ${EPS} events/s while panning: ${result.targetMet ? 'met' : 'NOT met'} (p95 ${target.p95} ms)
with live metrics on: ${result.targetMetWithMetrics ? 'met' : 'NOT met'} (p95 ${withMetrics.p95} ms, ${result.ratios.metricsP95VsEvents}× the run without)
load average during the runs (1 min, median): ${target.load1} on ${cpus().length} CPUs; frame times on a shared machine move with it`
console.log(table)
writeResultMarkdown(
  'canvas',
  'Canvas frame times',
  'npm run bench:canvas',
  { before: loadBefore, after: loadNow() },
  table
)
