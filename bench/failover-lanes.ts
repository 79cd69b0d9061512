// `npm run bench:failover -- --lanes remoting,java,java-zone,java-tuned,grpc,baseline`: the client
// lanes side by side on one sandbox boot (two-rooms-proxies, rooms as separate networks). Every run
// plans each client once per lane (own topic and group), so each fault hits every lane at the same
// instant on the same machine. Beside the lanes asked for, a variant of our remoting client runs in
// most cases (bench/lanes/cases.ts): remoting-hedged (hedged sends on) or remoting-nokeep (consumer
// offsets handled as before keepOffsets), the before/after of items 5 and 6. The path-for-path
// comparison (bench/lanes/paths.ts) runs first, on the quiet machine. Figures:
// bench/lanes/figures.ts and stats.ts; output bench/results/failover-lanes.md (committed) and .json
// (raw, ignored).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import type { LaneEntry } from '../common/scenario/schema'
import type { LoadedScenario } from '../common/scenario/run-plan'
import { findAppPaths } from '../main/services/app-paths'
import { composeServices } from '../main/services/engine/compose'
import type { RunProgress } from '../main/services/engine/run/run-context'
import { runScenario } from '../main/services/engine/scenario-driver'
import { RemotingRpc } from '../main/services/remoting/remoting-rpc'
import type { Sandbox } from '../main/services/sandbox/sandbox'
import { parseScenario } from '../main/services/scenario/load-scenario'
import type { ClientLane } from '../common/topology/lanes'
import { laneOf } from '../common/scenario/client-plan'
import { sourceWorkers } from '../main/services/workers/worker-launcher'
import { WorkerPool } from '../main/services/workers/worker-pool'
import type { LaneCase } from './lanes/cases'
import { caseLanes, CASES, FAULT_RATE, RATE, roomsOf, scenarioText } from './lanes/cases'
import type { LaneRun } from './lanes/figures'
import { laneRun } from './lanes/figures'
import { laneMarkdown } from './lanes/markdown'
import type { PathResult } from './lanes/paths'
import { measurePaths } from './lanes/paths'
import type { LaneSummary } from './lanes/summary'
import { jsonSafe, summarizeLane } from './lanes/summary'
import type { WorkerCpu } from './lanes/cpu'
import { CpuSampler } from './lanes/cpu'
import type { LoadStep } from './lanes/load'
import { BusyLoad, pinProcesses } from './lanes/load'

export interface LaneBenchResult {
  generatedAt: string
  command: string
  runsPerCase: number
  wallSeconds: number
  machine: { cpus: number; cpuModel: string; memoryGiB: number; node: string }
  /** 1-minute load average: at the start, after the boot, after each case, at the end. */
  load: { at: string; load1: number; load5: number; load15: number }[]
  network: string
  /** Client worker processes: one per room and lane kept across runs, or fresh every run. */
  workers: { reused: boolean; spawned: number | null }
  lanes: string[]
  /** Pinned CPUs (taskset), or null when servers and clients share every CPU. */
  pin: { servers: string; clients: string } | null
  cases: {
    id: string
    label: string
    /** The load step (--load) the case ran at; absent when the host ran as it was. */
    load?: string
    /** Producers per lane in each room, and each one's rate. */
    producers?: { room1: number; room2: number; rate: number }
    focus: LaneCase['focus']
    lanes: LaneSummary[]
    runs: Record<string, LaneRun[]>
    /** Per lane: its workers' CPU and run-queue wait (ms per second, summed over rooms), median of runs. */
    cpu: Record<string, { cpuMsPerSec: number; waitMsPerSec: number; threads: number }>
  }[]
  paths: PathResult[] | null
}

/**
 * The path-for-path tails are the machine's when it is still busy (the boot, or a job before this
 * one): wait until the 1-minute load average is under BENCH_PATH_LOAD (default 4), at most 3 min.
 */
async function settleLoad(log: (m: string) => void): Promise<void> {
  const below = Number(process.env.BENCH_PATH_LOAD ?? 4)
  const deadline = Date.now() + 180_000
  while (loadavg()[0]! >= below && Date.now() < deadline) {
    log(`waiting for the load average (${loadavg()[0]!.toFixed(1)}) to fall under ${below}`)
    await new Promise((r) => setTimeout(r, 10_000))
  }
}

/** The command that reproduces this run: the BENCH_* settings it read, the lanes, the load axis, the pin. */
function commandLine(lanes: readonly string[], options: LaneBenchOptions): string {
  const env = ['BENCH_CASES', 'BENCH_RUNS', 'BENCH_NAME', 'BENCH_VARIANTS', 'BENCH_REUSE_WORKERS']
    .filter((k) => process.env[k] !== undefined)
    .map((k) => `${k}=${process.env[k]} `)
    .join('')
  const steps = options.loadSteps.filter((s) => s.name !== 'as is')
  const load = steps.length
    ? ` --load ${steps.map((s) => (s.busy === 0 ? 'idle' : String(s.busy))).join(',')}`
    : ''
  const pin = options.pin ? ` --pin ${options.pin.servers}:${options.pin.clients}` : ''
  return `${env}npm run bench:failover -- --lanes ${lanes.join(',')}${load}${pin}`
}

/** Per case, lane and run: the failover episodes and the takeover, nothing message-level. */
function episodeFile(out: LaneBenchResult): unknown {
  return {
    generatedAt: out.generatedAt,
    command: out.command,
    load: out.load,
    cases: out.cases.map((c) => ({
      id: c.id,
      runs: Object.fromEntries(
        Object.entries(c.runs).map(([lane, runs]) => [
          lane,
          runs.map((r) => ({ runId: r.runId, episodes: r.episodes, takeover: r.takeover }))
        ])
      )
    }))
  }
}

/** Messages of `topic` stored per room, from the brokers' queue offsets (ground truth). */
async function storedByRoom(
  sandbox: Sandbox,
  loaded: LoadedScenario,
  topic: string
): Promise<Map<string, number>> {
  const admin = new RemotingRpc({ connectTimeoutMs: 1000, requestTimeoutMs: 3000 })
  const specs = new Map(loaded.topology.rooms.flatMap((r) => r.brokers.map((b) => [b.id, b])))
  const out = new Map<string, number>()
  try {
    for (const n of sandbox.status().nodes) {
      const spec = specs.get(n.nodeId)
      if (n.kind !== 'broker' || !n.address || !spec) continue
      for (let q = 0; q < 4; q++) {
        const off = await admin
          .getMaxOffset(n.address, { brokerName: spec.brokerName, topic, queueId: q })
          .catch(() => 0)
        out.set(n.room, (out.get(n.room) ?? 0) + off)
      }
    }
  } finally {
    admin.close()
  }
  return out
}

/** `worker-room1` hosts our remoting lane; `<lane or variant>-worker-<room>` the others. */
export function laneOfWorker(worker: string): string {
  if (worker.startsWith('node:')) return `server: ${worker.slice(5).replace(/-\d+$|-plain$/, '')}`
  return worker.startsWith('worker-') ? 'remoting' : worker.replace(/-worker-[^-]+$/, '')
}

/** Each lane's workers summed over rooms, then the median over runs. */
function laneCpu(runs: WorkerCpu[][]): LaneBenchResult['cases'][number]['cpu'] {
  const perRun = runs.map((ws) => {
    const by = new Map<string, { cpuMsPerSec: number; waitMsPerSec: number; threads: number }>()
    for (const w of ws) {
      const l = laneOfWorker(w.worker)
      const a = by.get(l) ?? { cpuMsPerSec: 0, waitMsPerSec: 0, threads: 0 }
      by.set(l, {
        cpuMsPerSec: a.cpuMsPerSec + w.cpuMsPerSec,
        waitMsPerSec: a.waitMsPerSec + w.waitMsPerSec,
        threads: a.threads + w.threads
      })
    }
    return by
  })
  const lanes = new Set(perRun.flatMap((m) => [...m.keys()]))
  const med = (xs: number[]): number => {
    const s = [...xs].sort((a, b) => a - b)
    return s.length ? s[Math.floor((s.length - 1) / 2)]! : 0
  }
  return Object.fromEntries(
    [...lanes].map((l) => {
      const xs = perRun.map((m) => m.get(l)).filter((x) => x !== undefined)
      return [
        l,
        {
          cpuMsPerSec: Math.round(med(xs.map((x) => x.cpuMsPerSec))),
          waitMsPerSec: Math.round(med(xs.map((x) => x.waitMsPerSec))),
          threads: med(xs.map((x) => x.threads))
        }
      ]
    })
  )
}

export interface LaneBenchOptions {
  /** Background load steps (bench/lanes/load.ts); one `as is` step by default. */
  loadSteps: LoadStep[]
  pin: { servers: string; clients: string } | null
}

/** Timestamped progress lines and the load-average samples the result keeps. */
function benchLog(): {
  log: (m: string) => void
  sampleLoad: (at: string) => void
  load: LaneBenchResult['load']
  seconds: () => number
} {
  const t = performance.now()
  const seconds = (): number => (performance.now() - t) / 1000
  const log = (m: string): void =>
    void process.stderr.write(`${seconds().toFixed(1).padStart(7)}s ${m}\n`)
  const load: LaneBenchResult['load'] = []
  const sampleLoad = (at: string): void => {
    const [load1, load5, load15] = loadavg().map((x) => Math.round(x * 100) / 100) as [
      number,
      number,
      number
    ]
    load.push({ at, load1, load5, load15 })
    log(`load ${load1} / ${load5} / ${load15} (${at})`)
  }
  return { log, sampleLoad, load, seconds }
}

/**
 * A run's progress lines, and the CPU and run-queue wait of every client worker over its workload
 * phase (`take` hands over the last run's and starts afresh).
 */
function runSampler(
  dataDir: string,
  pin: LaneBenchOptions['pin'],
  log: (m: string) => void
): { onProgress: (p: RunProgress) => void; take: () => WorkerCpu[] } {
  let sampler: CpuSampler | undefined
  let lastRun: WorkerCpu[] = []
  return {
    onProgress: (p) => {
      if (p.phase === 'workload' && !sampler) {
        // A restarted JVM is a new process: pin again every run.
        if (pin) pinProcesses(dataDir, pin)
        sampler = new CpuSampler(dataDir)
        sampler.start()
      }
      if (p.phase === 'restore' && sampler) {
        lastRun = sampler.stop()
        sampler = undefined
      }
      if (p.phase !== 'workload' || !/^\d+ producers/.test(p.message))
        log(`  [${p.phase}] ${p.message}`)
    },
    take: () => {
      const cpu = lastRun
      lastRun = []
      return cpu
    }
  }
}

/** What measuring one case needs from the benchmark around it. */
interface CaseContext {
  services: ReturnType<typeof composeServices>
  lanesOf: (c: LaneCase) => LaneEntry[]
  baseDir: string
  runs: number
  sampler: ReturnType<typeof runSampler>
  log: (m: string) => void
}

/** One case at one load step: `runs` runs, each lane's figures per run and summed up. */
async function measureCase(
  ctx: CaseContext,
  c: LaneCase,
  stepName: string | undefined
): Promise<LaneBenchResult['cases'][number]> {
  const { services, log, runs } = ctx
  const at = stepName ? ` @ ${stepName}` : ''
  const loaded = parseScenario(scenarioText(c, ctx.lanesOf(c)), { baseDir: ctx.baseDir })
  const brokerNameOf = new Map(
    loaded.topology.rooms.flatMap((r) => r.brokers.map((b) => [b.id, b.brokerName] as const))
  )
  const here = ctx.lanesOf(c).map((e) => laneOf(e).name)
  const byLane: Record<string, LaneRun[]> = Object.fromEntries(here.map((n) => [n, []]))
  const stored: Record<string, { total: number; room2: number }> = {}
  const cpu: WorkerCpu[][] = []
  for (let i = 0; i < runs; i++) {
    log(`${c.id}${at} run ${i + 1}/${runs}`)
    ctx.sampler.take()
    const report = await runScenario(services.runDeps(), loaded, {
      onOpen: (r) => r.on('progress', ctx.sampler.onProgress)
    })
    cpu.push(ctx.sampler.take())
    for (const name of here) {
      byLane[name]!.push(laneRun(c, name, report, services.recorder, brokerNameOf))
      if (c.focus !== 'healthy') continue
      const topic = report.topic.split(',').find((x) => x.includes(`-${name}-r`))
      if (!topic) continue
      const by = await storedByRoom(services.sandbox, loaded, topic)
      const total = [...by.values()].reduce((a, b) => a + b, 0)
      const s = (stored[name] ??= { total: 0, room2: 0 })
      s.total += total
      s.room2 += total - (by.get('room1') ?? 0)
    }
    log(
      `${c.id} run ${i + 1}: ${report.totals.acked} acked, ${report.totals.lost} lost, ${report.notes.length} notes ${report.notes.join(' | ').slice(0, 300)}`
    )
  }
  const summaries = here.map((n) => {
    const s = summarizeLane(n, byLane[n]!)
    const st = stored[n]
    return st ? { ...s, brokerCrossRoomShare: st.total ? st.room2 / st.total : null } : s
  })
  for (const s of summaries) log(`${c.id} ${s.lane}: ${JSON.stringify(jsonSafe({ ...s }))}`)
  return {
    ...(stepName ? { load: stepName } : {}),
    producers: {
      room1: roomsOf(c, here.length).room1?.producers ?? 0,
      room2: roomsOf(c, here.length).room2?.producers ?? 0,
      rate: c.focus === 'healthy' ? RATE : FAULT_RATE
    },
    id: c.id,
    label: c.label,
    focus: c.focus,
    lanes: summaries,
    runs: byLane,
    cpu: laneCpu(cpu)
  }
}

/**
 * The engine's services for the benchmark, from source. One worker process per room and lane for
 * the whole benchmark, fresh clients in it every run (BENCH_REUSE_WORKERS=0: fresh processes every
 * run, as before).
 */
function benchServices(
  dataDir: string,
  root: string
): {
  services: ReturnType<typeof composeServices>
  pool: () => WorkerPool | undefined
  reuseWorkers: boolean
} {
  const reuseWorkers = process.env.BENCH_REUSE_WORKERS !== '0'
  let pool: WorkerPool | undefined
  const services = composeServices({
    dataDir,
    paths: { ...findAppPaths(), root },
    fromSource: true,
    workers: (place) => {
      const spawn = sourceWorkers(place)
      pool = new WorkerPool(spawn)
      return reuseWorkers ? pool.workers : spawn
    }
  })
  return { services, pool: () => pool, reuseWorkers }
}

/** Boots the first case's topology (every case shares it); returns the network mode it got. */
async function bootSandbox(
  sandbox: Sandbox,
  ctx: Pick<CaseContext, 'lanesOf' | 'baseDir'>,
  log: (m: string) => void
): Promise<string> {
  const first = parseScenario(scenarioText(CASES[0]!, ctx.lanesOf(CASES[0]!)), {
    baseDir: ctx.baseDir
  })
  log('booting the two-rooms-proxies sandbox')
  await sandbox.start(first.topology)
  const net = sandbox.network()
  const network = net.faultsDisabled
    ? `${net.mode} (network faults off: ${net.faultsDisabled})`
    : net.mode
  log(`sandbox up, network ${network}`)
  return network
}

/** The result files: the JSON, the committed episodes beside it, and the Markdown tables. */
function writeResults(out: LaneBenchResult, outDir: string, onlyPaths: boolean): void {
  mkdirSync(outDir, { recursive: true })
  // `BENCH_CASES=paths` measures only the path-for-path tails: its own file, the full run's kept.
  // BENCH_NAME names the files of a run beside the main one (e.g. a lane subset).
  const name = process.env.BENCH_NAME ?? (onlyPaths ? 'failover-paths' : 'failover-lanes')
  writeFileSync(join(outDir, `${name}.json`), JSON.stringify(jsonSafe(out), null, 2) + '\n')
  // The raw episodes and takeovers, small per-episode rows, committed beside the tables.
  writeFileSync(
    join(outDir, `${name}-episodes.json`),
    JSON.stringify(jsonSafe(episodeFile(out)), null, 1) + '\n'
  )
  const md = laneMarkdown(out)
  writeFileSync(join(outDir, `${name}.md`), md)
  process.stdout.write(md)
}

export async function runLaneBenchmark(
  lanes: ClientLane[],
  runs: number,
  outDir: string,
  root: string,
  options: LaneBenchOptions = { loadSteps: [{ name: 'as is', busy: 0 }], pin: null }
): Promise<void> {
  const busy = new BusyLoad()
  const killHogs = (): void => busy.killSync()
  process.once('exit', killHogs)
  const variants = process.env.BENCH_VARIANTS !== '0'
  const lanesOf = (c: LaneCase): LaneEntry[] => caseLanes(c, lanes, variants)
  const names = [...new Set(CASES.flatMap((c) => lanesOf(c).map((e) => laneOf(e).name)))]
  const dataDir = mkdtempSync(join(tmpdir(), 'drstudio-bench-lanes-'))
  const { services, pool, reuseWorkers } = benchServices(dataDir, root)
  const { sandbox, workers } = services
  const { log, sampleLoad, load, seconds } = benchLog()
  const only = process.env.BENCH_CASES?.split(',')
  const cases = CASES.filter((c) => !only || only.includes(c.id))
  const results: LaneBenchResult['cases'] = []
  let paths: PathResult[] | null = null
  let network = 'unknown'
  const baseDir = join(root, 'resources', 'scenarios')
  const ctx: CaseContext = {
    services,
    lanesOf,
    baseDir,
    runs,
    sampler: runSampler(dataDir, options.pin, log),
    log
  }
  sampleLoad('start')
  try {
    network = await bootSandbox(sandbox, ctx, log)
    sampleLoad('after boot')
    if (!only || only.includes('paths')) {
      // First, while the machine is quiet: after the fault cases the load average stays high for
      // minutes, and a tail measured then is the machine's, not the client's.
      await settleLoad(log)
      log('path for path: throughput and tail latency')
      paths = await measurePaths({
        sandbox,
        workers,
        rounds: Number(process.env.BENCH_PATH_ROUNDS ?? 12),
        rate: 200,
        roundMs: Number(process.env.BENCH_PATH_ROUND_MS ?? 1500),
        maxInflight: 16,
        log
      })
      sampleLoad('after paths')
    }
    for (const step of options.loadSteps) {
      const stepName = options.loadSteps.length > 1 || step.busy > 0 ? step.name : undefined
      busy.start(step)
      if (stepName) sampleLoad(`start of ${stepName}`)
      try {
        for (const c of cases) {
          results.push(await measureCase(ctx, c, stepName))
          sampleLoad(`after ${c.id}${stepName ? ` @ ${stepName}` : ''}`)
        }
      } finally {
        await busy.stop()
      }
    }
  } finally {
    await busy.stop()
    process.off('exit', killHogs)
    // The workers first: they run in the rooms' namespaces, which the sandbox removes.
    await pool()?.close()
    await services.close({ force: true })
    rmSync(dataDir, { recursive: true, force: true })
  }
  sampleLoad('end')
  writeResults(
    {
      generatedAt: new Date().toISOString(),
      command: commandLine(lanes, options),
      runsPerCase: runs,
      wallSeconds: Math.round(seconds()),
      machine: {
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model ?? '',
        memoryGiB: Math.round(totalmem() / 2 ** 30),
        node: process.version
      },
      load,
      network,
      pin: options.pin,
      workers: { reused: reuseWorkers, spawned: reuseWorkers ? (pool()?.spawned ?? 0) : null },
      lanes: names,
      cases: results,
      paths
    },
    outDir,
    cases.length === 0 && paths !== null
  )
}
