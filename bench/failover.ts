// `npm run bench:failover`: failover timings of the room-aware client against real RocketMQ 5.3.3
// on the sandbox (two-rooms topology, 4 producers + 1 consumer per room at 50 msg/s each).
// Each case runs BENCH_RUNS times (default 3) and reports the median of the per-run figures:
//  - producer RTO (OpenChaos: first failed or timed-out operation after the fault → next success,
//    per room-1 producer; 0 when a producer saw no failure), p50 and p99 over room-1 producers;
//  - max send latency of sends started between the fault and the repair;
//  - consumer takeover: the kill of the last room-1 consumer → the first room-1 message a room-2
//    consumer consumes.
// Writes bench/results/failover.json and bench/results/failover.md.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join, resolve } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { stringify } from 'yaml'
import { computeRto } from '../common/scenario/metrics'
import type { Recovery } from './lanes/stats'
import { medianKeepingInfinity, rankPercentile, summarizeRecoveries } from './lanes/stats'
import { jsonSafe } from './lanes/summary'
import { loadNow, provenance } from './results-file'
import type { ScenarioReport } from '../common/scenario/schema'
import { LedgerReader } from '../main/services/ledger/ledger-reader'
import { parseScenario } from '../main/services/scenario/load-scenario'
import type { LoadedScenario } from '../common/scenario/run-plan'
import { composeServices } from '../main/services/engine/compose'
import { runScenario } from '../main/services/engine/scenario-driver'
import type { ClientLane } from '../common/topology/lanes'
import { CLIENT_LANES } from '../common/topology/lanes'
import { runLaneBenchmark } from './failover-lanes'
import { argOrEnv, parseLoadSteps, parsePin, requireStressNg } from './lanes/load'

const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const ONLY = process.env.BENCH_CASES?.split(',')
const ROOT = resolve(import.meta.dirname, '..')
const OUT = join(ROOT, 'bench', 'results')

interface Case {
  id: string
  label: string
  /** What the figure is compared against. */
  metric: 'rto' | 'takeover'
  targetMs: number
  timeline: { at: string; action: string; target: string | string[] }[]
  duration: string
}

const CASES: Case[] = [
  {
    id: 'broker-kill',
    label: 'broker kill (SIGKILL every broker of room 1)',
    metric: 'rto',
    targetMs: 50,
    duration: '8s',
    timeline: [
      { at: '3s', action: 'kill', target: 'all brokers of room1' },
      { at: '6s', action: 'restart', target: 'all brokers of room1' }
    ]
  },
  {
    id: 'broker-pause',
    label: 'broker pause (SIGSTOP every broker of room 1)',
    metric: 'rto',
    targetMs: 1000,
    duration: '8s',
    timeline: [
      { at: '3s', action: 'pause', target: 'all brokers of room1' },
      { at: '6s', action: 'resume', target: 'all brokers of room1' }
    ]
  },
  {
    id: 'room-loss',
    label: 'room loss (SIGKILL brokers and name servers of room 1)',
    metric: 'rto',
    targetMs: 1000,
    duration: '8s',
    timeline: [
      { at: '3s', action: 'kill', target: ['all brokers of room1', 'nameservers of room1'] },
      { at: '6s', action: 'restart', target: ['nameservers of room1', 'all brokers of room1'] }
    ]
  },
  {
    id: 'management-loss',
    label: 'management-node loss (SIGKILL management of room 1)',
    metric: 'rto',
    targetMs: 1000,
    duration: '8s',
    timeline: [
      { at: '3s', action: 'kill', target: 'management of room1' },
      { at: '6s', action: 'restart', target: 'management of room1' }
    ]
  },
  {
    id: 'consumer-takeover',
    label: 'consumer takeover (crash the last room-1 consumer)',
    metric: 'takeover',
    targetMs: 2000,
    duration: '6s',
    timeline: [{ at: '3s', action: 'kill', target: 'consumers of room1' }]
  }
]

interface RunFigures {
  runId: number
  passed: boolean
  rtoP50Ms: number | null
  rtoP99Ms: number | null
  /** Room-1 producers that saw no failure: not an RTO of 0, reported apart. */
  producersWithoutFailure: number
  maxSendLatencyMs: number | null
  takeoverMs: number | null
  /** Per-message failover durations (failed attempt → acknowledged elsewhere), p99. */
  perMessageFailoverP99Ms: number | null
  /** Fault injected → first failure a producer observed (how long the dead peer took to show). */
  faultToFirstFailureMs: number | null
  /** The client's own part: first failure observed → next success, p99 over room-1 producers. */
  reactionP99Ms: number | null
  failedSends: number
  lost: number
  duplicates: number
  eventLoopMaxMs: number
}

const r1 = (x: number | null): number | null =>
  x === null || !Number.isFinite(x) ? x : Math.round(x * 10) / 10

function figures(
  c: Case,
  report: ScenarioReport,
  reader: LedgerReader,
  loopMaxMs: number
): RunFigures {
  const runId = report.runId
  const faultAbs = report.faults[0] ? report.originMs + report.faults[0].atMs : null
  const repairAbs = report.faults[1] ? report.originMs + report.faults[1].atMs : Infinity
  const room1 = report.clients.filter((x) => x.role === 'producer' && x.room === 'room1')
  const recoveries: Recovery[] = []
  const reactions: number[] = []
  let firstFailure: number | null = null
  for (const p of room1) {
    if (faultAbs === null) break
    const ops = reader.sendOps(runId, p.id)
    const ep = computeRto(ops, [faultAbs, repairAbs]).find((e) => e.boundaryMs === faultAbs)
    recoveries.push(
      !ep
        ? { kind: 'no-failure' }
        : ep.rtoMs === null
          ? { kind: 'unrecovered' }
          : { kind: 'rto', ms: ep.rtoMs }
    )
    const f = ops.find((o) => !o.ok && o.endMs >= faultAbs && o.endMs < repairAbs)
    if (f) {
      firstFailure = Math.min(firstFailure ?? Infinity, f.endMs - faultAbs)
      const rec = ops.filter((o) => o.ok && o.endMs >= f.endMs).sort((a, b) => a.endMs - b.endMs)[0]
      reactions.push(rec ? rec.endMs - f.endMs : Infinity)
    }
  }
  const rto = summarizeRecoveries(recoveries)
  const lat = faultAbs === null ? [] : reader.sendLatencies(runId, faultAbs, repairAbs)
  const perMessage = report.failovers
    .filter((f) => f.kind === 'broker' && f.durationMs !== null)
    .map((f) => f.durationMs!)
  const takeovers = report.failovers
    .filter(
      (f) =>
        f.kind === 'consumer-takeover' &&
        f.fromRoom === 'room1' &&
        f.toRoom === 'room2' &&
        f.durationMs !== null
    )
    .map((f) => f.durationMs!)
  return {
    runId,
    passed: report.passed,
    rtoP50Ms: c.metric === 'rto' ? r1(rto.p50Ms) : null,
    rtoP99Ms: c.metric === 'rto' ? r1(rto.p99Ms) : null,
    producersWithoutFailure: rto.noFailure,
    maxSendLatencyMs: r1(lat.length ? Math.max(...lat) : null),
    // Median of the run's takeover events (a minimum would report the luckiest consumer).
    takeoverMs: c.metric === 'takeover' ? r1(medianKeepingInfinity(takeovers)) : null,
    perMessageFailoverP99Ms: r1(rankPercentile(perMessage, 99)),
    faultToFirstFailureMs: r1(firstFailure),
    reactionP99Ms: c.metric === 'rto' ? r1(rankPercentile(reactions, 99)) : null,
    failedSends: report.totals.failed,
    lost: report.totals.lost,
    duplicates: report.totals.duplicates,
    eventLoopMaxMs: r1(loopMaxMs)!
  }
}

function scenarioText(c: Case): string {
  return stringify({
    name: `bench-${c.id}`,
    topology: 'two-rooms',
    workload: {
      duration: c.duration,
      rate: 50,
      rooms: { room1: { producers: 4, consumers: 1 }, room2: { producers: 4, consumers: 1 } },
      drainTimeout: '40s'
    },
    timeline: c.timeline,
    gates: { maxLost: 0 }
  })
}

async function main(): Promise<void> {
  const loadBefore = loadNow()
  const dataDir = mkdtempSync(join(tmpdir(), 'drstudio-bench-failover-'))
  const services = composeServices({ dataDir, fromSource: true, machineNetwork: false })
  const { sandbox, recorder } = services
  const reader = new LedgerReader(recorder.db)
  const t = performance.now()
  const log = (m: string): void =>
    void process.stderr.write(`${((performance.now() - t) / 1000).toFixed(1).padStart(6)}s ${m}\n`)
  const runner = {
    run: (loaded: LoadedScenario) =>
      runScenario(services.runDeps(), loaded, {
        onOpen: (r) => r.on('progress', (p) => log(`[${p.phase}] ${p.message}`))
      })
  }
  const cases = CASES.filter((c) => !ONLY || ONLY.includes(c.id))
  const results: { case: Case; runs: RunFigures[] }[] = []
  try {
    const first = parseScenario(scenarioText(cases[0]!), {
      baseDir: join(ROOT, 'resources', 'scenarios')
    })
    log('booting the two-rooms sandbox')
    await sandbox.start(first.topology)
    for (const c of cases) {
      const loaded = parseScenario(scenarioText(c), {
        baseDir: join(ROOT, 'resources', 'scenarios')
      })
      const runs: RunFigures[] = []
      for (let i = 0; i < RUNS; i++) {
        log(`${c.id} run ${i + 1}/${RUNS}`)
        const loop = monitorEventLoopDelay({ resolution: 5 })
        loop.enable()
        const report = await runner.run(loaded)
        loop.disable()
        const f = figures(c, report, reader, loop.max / 1e6)
        log(`${c.id} run ${i + 1}: ${JSON.stringify(f)}`)
        runs.push(f)
      }
      results.push({ case: c, runs })
    }
  } finally {
    await services.close()
    rmSync(dataDir, { recursive: true, force: true })
  }

  // A run that never recovered is ∞ and stays in the median.
  const med = (runs: RunFigures[], k: keyof RunFigures): number | null =>
    r1(medianKeepingInfinity(runs.map((r) => (typeof r[k] === 'number' ? (r[k] as number) : null))))
  const summary = results.map(({ case: c, runs }) => {
    const m = {
      rtoP50Ms: med(runs, 'rtoP50Ms'),
      rtoP99Ms: med(runs, 'rtoP99Ms'),
      maxSendLatencyMs: med(runs, 'maxSendLatencyMs'),
      takeoverMs: med(runs, 'takeoverMs'),
      perMessageFailoverP99Ms: med(runs, 'perMessageFailoverP99Ms'),
      faultToFirstFailureMs: med(runs, 'faultToFirstFailureMs'),
      reactionP99Ms: med(runs, 'reactionP99Ms')
    }
    const figure = c.metric === 'rto' ? m.rtoP99Ms : m.takeoverMs
    return {
      id: c.id,
      label: c.label,
      metric: c.metric === 'rto' ? 'producer RTO p99' : 'consumer takeover',
      targetMs: c.targetMs,
      medianOfRuns: m,
      // No producer failed in any run: nothing to recover from, which meets an RTO target.
      meetsTarget:
        c.metric === 'rto' && figure === null && runs.length > 0
          ? true
          : figure !== null && figure <= c.targetMs,
      lostTotal: runs.reduce((s, r) => s + r.lost, 0),
      runs
    }
  })
  const out = {
    generatedAt: new Date().toISOString(),
    command: 'npm run bench:failover',
    runsPerCase: RUNS,
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? '',
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version
    },
    setup:
      'two-rooms sandbox (RocketMQ 5.3.3, management discovery), 4 producers + 1 consumer per room, 50 msg/s per producer, ' +
      'request timeout 400 ms, send deadline 3 s, probe every 200 ms, route refresh 1 s',
    cases: summary
  }
  mkdirSync(OUT, { recursive: true })
  writeFileSync(join(OUT, 'failover.json'), JSON.stringify(jsonSafe(out), null, 2) + '\n')
  const f = (x: number | null): string => (x === null ? '—' : x === Infinity ? '∞' : `${x}`)
  // Every room-1 producer of every run saw no failure: that is the figure, not an RTO of 0.
  const rto = (s: (typeof summary)[number], x: number | null): string =>
    s.metric === 'producer RTO p99' && x === null ? 'no failure' : f(x)
  const md = [
    '# Failover benchmark',
    '',
    `${provenance(out.command, { before: loadBefore, after: loadNow() })} Median of ${RUNS} runs per case (a run that never recovered is ∞ in it).`,
    '',
    out.setup + '.',
    '',
    '| case | RTO p50 (ms) | RTO p99 (ms) | max send latency (ms) | takeover (ms) | fault → first failure (ms) | failure seen → next success p99 (ms) | target | met | lost |',
    '|---|---:|---:|---:|---:|---:|---:|---|---|---:|',
    ...summary.map(
      (s) =>
        `| ${s.label} | ${rto(s, s.medianOfRuns.rtoP50Ms)} | ${rto(s, s.medianOfRuns.rtoP99Ms)} | ${f(s.medianOfRuns.maxSendLatencyMs)} | ` +
        `${f(s.medianOfRuns.takeoverMs)} | ${f(s.medianOfRuns.faultToFirstFailureMs)} | ${f(s.medianOfRuns.reactionP99Ms)} | ${s.metric} ≤ ${s.targetMs} ms | ${s.meetsTarget ? 'yes' : 'no'} | ${s.lostTotal} |`
    ),
    ''
  ].join('\n')
  writeFileSync(join(OUT, 'failover.md'), md)
  process.stdout.write(md)
}

/** `--lanes remoting,grpc,baseline` switches to the side-by-side lane benchmark (bench/failover-lanes.ts). */
function lanesArg(argv: string[]): ClientLane[] | null {
  const i = argv.findIndex((a) => a === '--lanes' || a.startsWith('--lanes='))
  if (i === -1) return null
  const raw = argv[i]!.includes('=') ? argv[i]!.split('=')[1]! : (argv[i + 1] ?? '')
  const lanes = raw.split(',').filter(Boolean)
  const known: readonly string[] = CLIENT_LANES
  const bad = lanes.filter((l) => !known.includes(l))
  if (lanes.length === 0 || bad.length) {
    throw new Error(`--lanes takes a comma list of ${CLIENT_LANES.join(', ')} (got "${raw}")`)
  }
  return lanes as ClientLane[]
}

const lanes = lanesArg(process.argv.slice(2))
if (lanes) {
  const argv = process.argv.slice(2)
  const loadSteps = parseLoadSteps(argOrEnv(argv, 'load', process.env.BENCH_LOAD))
  requireStressNg(loadSteps)
  const pin = parsePin(argOrEnv(argv, 'pin', process.env.BENCH_PIN))
  await runLaneBenchmark(lanes, RUNS, OUT, ROOT, { loadSteps, pin })
} else await main()
