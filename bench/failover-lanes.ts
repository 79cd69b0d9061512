// `npm run bench:failover -- --lanes remoting,grpc,baseline`: the client lanes side by side on one
// sandbox (two-rooms-proxies: per room a name server, a master broker, a management node and a
// zone-pinned proxy, plus a plain proxy in room 1). Every run plans each client once per lane (own
// topic and group per lane), so one fault hits all lanes at the same instant on the same machine.
// Per case and lane, median over BENCH_RUNS runs (default 3) of: producer RTO p50/p99 over room-1
// producers (first failure after the fault → next success; 0 without failure; ∞ if none before the
// run ended), max send latency of sends started between fault and repair, acknowledged loss,
// duplicates; for the healthy case the share of room-1 producers' messages that brokers of room 2
// stored (read from the brokers' queue offsets, so it is the same ground truth for every lane).
// Then a healthy throughput/latency comparison, our remoting producer against the official
// client through room 1's proxy, at a fixed rate and at maximum rate (closed loop).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { stringify } from 'yaml'
import { computeRto, median, percentile } from '../common/scenario/metrics'
import type { ScenarioReport } from '../common/scenario/schema'
import { DrProducer } from '../main/services/clients/room-aware/producer'
import { httpManagement, pause } from '../main/services/clients/room-aware/ports'
import { officialSdk } from '../main/services/clients/grpc-lane/official-sdk'
import { LedgerReader } from '../main/services/ledger/ledger-reader'
import { NULL_LEDGER } from '../main/services/ledger/types'
import { openDatabase, Recorder } from '../main/services/ledger/recorder'
import { RemotingRpc } from '../main/services/remoting/remoting-rpc'
import { Sandbox } from '../main/services/sandbox/sandbox'
import type { LoadedScenario } from '../main/services/scenario/load-scenario'
import { parseScenario } from '../main/services/scenario/load-scenario'
import type { ClientLane } from '../main/services/scenario/plan'
import { ScenarioRunner } from '../main/services/scenario/scenario-runner'
import { createTopic } from '../main/services/engine/run/setup'
import { sandboxPlace, sourceWorkers } from '../main/services/workers/worker-launcher'

interface LaneCase {
  id: string
  label: string
  timeline: { at: string; action: string; target: string | string[] }[]
  rooms: Record<string, { producers: number; consumers: number }>
}

const FAULT_ROOMS = { room1: { producers: 2, consumers: 1 }, room2: { producers: 1, consumers: 1 } }
const CASES: LaneCase[] = [
  {
    id: 'healthy',
    label: 'healthy (room-1 producers only)',
    timeline: [],
    rooms: { room1: { producers: 2, consumers: 1 }, room2: { producers: 0, consumers: 1 } }
  },
  {
    id: 'broker-kill',
    label: 'broker kill (SIGKILL room-1 brokers)',
    timeline: [
      { at: '3s', action: 'kill', target: 'all brokers of room1' },
      { at: '6s', action: 'restart', target: 'all brokers of room1' }
    ],
    rooms: FAULT_ROOMS
  },
  {
    id: 'broker-pause',
    label: 'broker pause (SIGSTOP room-1 brokers)',
    timeline: [
      { at: '3s', action: 'pause', target: 'all brokers of room1' },
      { at: '6s', action: 'resume', target: 'all brokers of room1' }
    ],
    rooms: FAULT_ROOMS
  },
  {
    id: 'room-loss',
    label: 'room-1 name servers + brokers down',
    timeline: [
      { at: '3s', action: 'kill', target: ['all brokers of room1', 'nameservers of room1'] },
      { at: '6s', action: 'restart', target: ['nameservers of room1', 'all brokers of room1'] }
    ],
    rooms: FAULT_ROOMS
  },
  {
    id: 'proxy-down',
    label: 'room-1 proxies down (SIGKILL)',
    timeline: [
      { at: '3s', action: 'kill', target: 'proxies of room1' },
      { at: '6s', action: 'restart', target: 'proxies of room1' }
    ],
    rooms: FAULT_ROOMS
  }
]

interface LaneFigures {
  rtoP50Ms: number | null
  rtoP99Ms: number | null
  maxSendLatencyMs: number | null
  lost: number
  duplicates: number
  failedSends: number
  crossRoomShare: number | null
}

const r1 = (x: number | null): number | null =>
  x === null ? null : Number.isFinite(x) ? Math.round(x * 10) / 10 : x

function scenarioText(c: LaneCase, lanes: ClientLane[]): string {
  return stringify({
    name: `bench-lanes-${c.id}`,
    topology: 'two-rooms-proxies',
    workload: { duration: '8s', rate: 40, rooms: c.rooms, lanes, drainTimeout: '60s' },
    timeline: c.timeline,
    gates: { maxLost: 0 }
  })
}

/** Messages per broker room that the run's topic of `lane` holds, from the brokers' queue offsets. */
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

async function laneFigures(
  c: LaneCase,
  lane: ClientLane,
  report: ScenarioReport,
  recorder: Recorder,
  sandbox: Sandbox,
  loaded: LoadedScenario
): Promise<LaneFigures> {
  const reader = new LedgerReader(recorder.db)
  const runId = report.runId
  const mine = report.clients.filter((x) => x.id.endsWith(`-${lane}`))
  const room1 = mine.filter((x) => x.role === 'producer' && x.room === 'room1')
  const faultAbs = report.faults[0] ? report.originMs + report.faults[0].atMs : null
  const repairAbs = report.faults[1] ? report.originMs + report.faults[1].atMs : Infinity
  const rtos: number[] = []
  let maxLatency: number | null = null
  if (faultAbs !== null) {
    for (const p of room1) {
      const ep = computeRto(reader.sendOps(runId, p.id), [faultAbs, repairAbs]).find(
        (e) => e.boundaryMs === faultAbs
      )
      rtos.push(ep ? (ep.rtoMs ?? Infinity) : 0)
    }
    const row = recorder.db
      .prepare(
        `SELECT MAX(ended_at - started_at) AS l FROM ledger_sends
         WHERE run_id = ? AND client_id IN (${room1.map(() => '?').join(',') || "''"})
           AND started_at >= ? AND started_at < ?`
      )
      .get(
        runId,
        ...room1.map((p) => p.id),
        faultAbs,
        Number.isFinite(repairAbs) ? repairAbs : 1e15
      ) as {
      l: number | null
    }
    maxLatency = row.l
  }
  let crossRoomShare: number | null = null
  if (c.id === 'healthy') {
    const topic = report.topic.split(',').find((t) => t.includes(`-${lane}-r`))
    if (topic) {
      const by = await storedByRoom(sandbox, loaded, topic)
      const total = [...by.values()].reduce((a, b) => a + b, 0)
      crossRoomShare = total ? (total - (by.get('room1') ?? 0)) / total : null
    }
  }
  return {
    // percentile() skips non-finite values; a producer that never recovered makes the RTO ∞.
    rtoP50Ms: rtos.length
      ? rtos.filter(Number.isFinite).length * 2 <= rtos.length
        ? Infinity
        : r1(percentile(rtos, 50))
      : null,
    rtoP99Ms: rtos.length
      ? rtos.some((x) => !Number.isFinite(x))
        ? Infinity
        : r1(percentile(rtos, 99))
      : null,
    maxSendLatencyMs: r1(maxLatency),
    lost: mine.reduce((s, x) => s + x.lost, 0),
    duplicates: mine.reduce((s, x) => s + x.duplicates, 0),
    failedSends: mine.reduce((s, x) => s + x.failed, 0),
    crossRoomShare: crossRoomShare === null ? null : Math.round(crossRoomShare * 10000) / 10000
  }
}

interface LaneRow {
  rtoP50Ms: number | null
  rtoP99Ms: number | null
  maxSendLatencyMs: number | null
  lostTotal: number
  duplicatesTotal: number
  failedSendsMedian: number | null
  crossRoomShare: number | null
}

interface ThroughputSummary {
  client: string
  fixedRate: { rate: number; p50Ms: number | null; p99Ms: number | null }
  maxRate: {
    concurrency: number
    msgPerSec: number | null
    p50Ms: number | null
    p99Ms: number | null
  }
}

export interface LaneResult {
  generatedAt: string
  command: string
  runsPerCase: number
  wallSeconds: number
  machine: { cpus: number; memoryGiB: number; node: string }
  setup: string
  targets: {
    brokerKillRtoP99RatioRemotingOverBaseline: number | null
    brokerKillTargetMet: boolean
    maxRateThroughputRatioRemotingOverOfficial: number | null
    throughputTargetMet: boolean
  }
  cases: { id: string; label: string; lanes: Record<string, LaneRow> }[]
  throughput: { remoting: ThroughputSummary | null; official: ThroughputSummary | null }
}

interface Throughput {
  client: string
  fixedRate: { rate: number; acked: number; p50Ms: number; p99Ms: number }
  maxRate: { concurrency: number; msgPerSec: number; p50Ms: number; p99Ms: number }
}

type SendFn = () => Promise<boolean>

async function measure(
  client: string,
  send: SendFn,
  rate: number,
  concurrency: number,
  windowMs: number
): Promise<Throughput> {
  for (let i = 0; i < 300; i++) await send() // JIT and connection warm-up on both sides
  const fixed: number[] = []
  let acked = 0
  const inflight: Promise<void>[] = []
  const t0 = performance.now()
  for (let i = 0; i < (rate * windowMs) / 1000; i++) {
    const due = t0 + (i * 1000) / rate
    const wait = due - performance.now()
    if (wait > 0) await pause(wait)
    const s = performance.now()
    inflight.push(
      send().then((ok) => {
        if (ok) {
          acked++
          fixed.push(performance.now() - s)
        }
      })
    )
  }
  await Promise.all(inflight)
  const closed: number[] = []
  const end = performance.now() + windowMs
  const start = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const s = performance.now()
        if (await send()) closed.push(performance.now() - s)
      }
    })
  )
  const elapsed = (performance.now() - start) / 1000
  return {
    client,
    fixedRate: {
      rate,
      acked,
      p50Ms: r1(percentile(fixed, 50))!,
      p99Ms: r1(percentile(fixed, 99))!
    },
    maxRate: {
      concurrency,
      msgPerSec: Math.round(closed.length / elapsed),
      p50Ms: r1(percentile(closed, 50))!,
      p99Ms: r1(percentile(closed, 99))!
    }
  }
}

async function throughput(
  sandbox: Sandbox,
  loaded: LoadedScenario,
  rounds: number
): Promise<{ remoting: Throughput[]; official: Throughput[] }> {
  const topic = `bench-tput-${Date.now()}`
  const admin = new RemotingRpc({ connectTimeoutMs: 1000, requestTimeoutMs: 3000 })
  try {
    await createTopic(
      {
        clock: { now: () => performance.timeOrigin + performance.now() },
        admin,
        signal: new AbortController().signal,
        cluster: sandbox,
        readyTimeoutMs: 90_000,
        loaded
      },
      topic,
      4
    )
  } finally {
    admin.close()
  }
  const nodes = sandbox.status().nodes
  const managementNodes = nodes
    .filter((n) => n.kind === 'management' && n.address)
    .map((n) => ({ id: n.nodeId, room: n.room, url: `http://${n.address}` }))
  const proxy1 = nodes.find((n) => n.nodeId === 'proxy-1')!.address!
  const body = Buffer.alloc(256, 0x61)
  const ours = new DrProducer(
    { id: 'tput-remoting', room: 'room1', topic, group: 'tput', managementNodes },
    {
      remoting: (o) => new RemotingRpc(o),
      management: httpManagement,
      ledger: NULL_LEDGER
    }
  )
  // The official client with its defaults (3 s request timeout, 3 attempts), as users run it.
  const official = officialSdk.producer({ endpoints: proxy1, topic })
  await ours.start()
  await official.startup()
  const remoting: Throughput[] = []
  const off: Throughput[] = []
  try {
    for (let i = 0; i < rounds; i++) {
      remoting.push(
        await measure(
          'remoting (ours, direct to broker-1)',
          async () => (await ours.send({ body, record: false })).ok,
          200,
          16,
          5000
        )
      )
      off.push(
        await measure(
          'rocketmq-client-nodejs 1.0.8 via proxy-1',
          () =>
            official.send({ topic, body }).then(
              () => true,
              () => false
            ),
          200,
          16,
          5000
        )
      )
    }
  } finally {
    await ours.stop()
    await official.shutdown().catch(() => undefined)
  }
  return { remoting, official: off }
}

export async function runLaneBenchmark(
  lanes: ClientLane[],
  runs: number,
  outDir: string,
  root: string
): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'drstudio-bench-lanes-'))
  const recorder = new Recorder(openDatabase(join(dataDir, 'drstudio.db')))
  const sandbox = new Sandbox({ dataDir, repoRoot: root })
  const runner = new ScenarioRunner({
    recorder,
    workers: sourceWorkers(sandboxPlace(sandbox, dataDir))
  })
  const t = performance.now()
  const log = (m: string): void =>
    void process.stderr.write(`${((performance.now() - t) / 1000).toFixed(1).padStart(6)}s ${m}\n`)
  runner.on('progress', (p) => log(`[${p.phase}] ${p.message}`))
  sandbox.on('progress', (p) => log(`  ${p.nodeId} ${p.message}`))
  const only = process.env.BENCH_CASES?.split(',')
  const cases = CASES.filter((c) => !only || only.includes(c.id))
  const results: { case: LaneCase; byLane: Map<ClientLane, LaneFigures[]> }[] = []
  let tput: Awaited<ReturnType<typeof throughput>> | undefined
  const baseDir = join(root, 'resources', 'scenarios')
  try {
    const first = parseScenario(scenarioText(cases[0]!, lanes), { baseDir })
    log('booting the two-rooms-proxies sandbox')
    await sandbox.start(first.topology)
    log(`sandbox up after ${((performance.now() - t) / 1000).toFixed(1)} s`)
    for (const c of cases) {
      const loaded = parseScenario(scenarioText(c, lanes), { baseDir })
      const byLane = new Map<ClientLane, LaneFigures[]>(lanes.map((l) => [l, []]))
      for (let i = 0; i < runs; i++) {
        log(`${c.id} run ${i + 1}/${runs}`)
        const report = await runner.run(loaded, sandbox)
        for (const lane of lanes) {
          const f = await laneFigures(c, lane, report, recorder, sandbox, loaded)
          log(`${c.id} run ${i + 1} ${lane}: ${JSON.stringify(f)}`)
          byLane.get(lane)!.push(f)
        }
      }
      results.push({ case: c, byLane })
    }
    if (!only || only.includes('throughput')) {
      log('healthy throughput: remoting vs official client')
      tput = await throughput(
        sandbox,
        parseScenario(scenarioText(CASES[0]!, lanes), { baseDir }),
        runs
      )
    }
  } finally {
    await sandbox.stop().catch(() => undefined)
    recorder.close()
    rmSync(dataDir, { recursive: true, force: true })
  }

  const med = (xs: (number | null)[]): number | null => {
    if (xs.some((x) => x === Infinity)) {
      const finite = xs.filter((x): x is number => x !== null)
      return finite.length
        ? (finite.sort((a, b) => a - b)[Math.floor(finite.length / 2)] ?? null)
        : null
    }
    return r1(median(xs))
  }
  const table = results.map(({ case: c, byLane }) => ({
    id: c.id,
    label: c.label,
    lanes: Object.fromEntries(
      [...byLane].map(([lane, fs]) => [
        lane,
        {
          rtoP50Ms: med(fs.map((f) => f.rtoP50Ms)),
          rtoP99Ms: med(fs.map((f) => f.rtoP99Ms)),
          maxSendLatencyMs: med(fs.map((f) => f.maxSendLatencyMs)),
          lostTotal: fs.reduce((s, f) => s + f.lost, 0),
          duplicatesTotal: fs.reduce((s, f) => s + f.duplicates, 0),
          failedSendsMedian: med(fs.map((f) => f.failedSends)),
          crossRoomShare: med(fs.map((f) => f.crossRoomShare)),
          runs: fs
        }
      ])
    )
  }))
  const tputMed = (xs: Throughput[]) =>
    xs.length
      ? {
          client: xs[0]!.client,
          fixedRate: {
            rate: xs[0]!.fixedRate.rate,
            p50Ms: med(xs.map((x) => x.fixedRate.p50Ms)),
            p99Ms: med(xs.map((x) => x.fixedRate.p99Ms))
          },
          maxRate: {
            concurrency: xs[0]!.maxRate.concurrency,
            msgPerSec: med(xs.map((x) => x.maxRate.msgPerSec)),
            p50Ms: med(xs.map((x) => x.maxRate.p50Ms)),
            p99Ms: med(xs.map((x) => x.maxRate.p99Ms))
          }
        }
      : null
  const ours = tput ? tputMed(tput.remoting) : null
  const theirs = tput ? tputMed(tput.official) : null
  const kill = table.find((x) => x.id === 'broker-kill')?.lanes as
    Record<string, { rtoP99Ms: number | null }> | undefined
  const killRatio =
    kill?.remoting?.rtoP99Ms != null &&
    kill?.baseline?.rtoP99Ms != null &&
    kill.baseline.rtoP99Ms > 0
      ? kill.remoting.rtoP99Ms / kill.baseline.rtoP99Ms
      : null
  const tputRatio =
    ours?.maxRate.msgPerSec && theirs?.maxRate.msgPerSec
      ? ours.maxRate.msgPerSec / theirs.maxRate.msgPerSec
      : null
  const out = {
    generatedAt: new Date().toISOString(),
    command: `npm run bench:failover -- --lanes ${lanes.join(',')}`,
    runsPerCase: runs,
    wallSeconds: Math.round((performance.now() - t) / 1000),
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? '',
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version
    },
    setup:
      'two-rooms-proxies sandbox (RocketMQ 5.3.3: per room ns, master broker, management node, zone-pinned proxy; plain proxy in room 1). ' +
      'Per lane 2 producers in room 1 + 1 in room 2 (healthy case: room 1 only) at 40 msg/s, 1 consumer per room. ' +
      'remoting = our room-aware remoting client; grpc = rocketmq-client-nodejs 1.0.8 through the same-room zone-pinned proxy with our proxy failover; ' +
      'baseline = rocketmq-client-nodejs 1.0.8 with its defaults on one endpoint, the plain proxy of room 1',
    targets: {
      brokerKillRtoP99RatioRemotingOverBaseline:
        killRatio === null ? null : Math.round(killRatio * 10000) / 10000,
      brokerKillTargetMet: killRatio !== null && killRatio <= 0.1,
      maxRateThroughputRatioRemotingOverOfficial:
        tputRatio === null ? null : Math.round(tputRatio * 100) / 100,
      throughputTargetMet: tputRatio !== null && tputRatio >= 1
    },
    cases: table,
    throughput: { remoting: ours, official: theirs, rounds: tput ?? null }
  }
  mkdirSync(outDir, { recursive: true })
  writeFileSync(join(outDir, 'failover-lanes.json'), JSON.stringify(out, null, 2) + '\n')
  const md = laneMarkdown(out)
  writeFileSync(join(outDir, 'failover-lanes.md'), md)
  process.stdout.write(md)
}

/** The Markdown table of a lane benchmark result (also re-rendered from failover-lanes.json). */
export function laneMarkdown(out: LaneResult): string {
  const runs = out.runsPerCase
  const table = out.cases
  const { ours, theirs } = { ours: out.throughput.remoting, theirs: out.throughput.official }
  const killRatio = out.targets.brokerKillRtoP99RatioRemotingOverBaseline
  const tputRatio = out.targets.maxRateThroughputRatioRemotingOverOfficial
  const f = (x: number | null | undefined, unit = ''): string =>
    x === null || x === undefined
      ? '—'
      : x === Infinity
        ? '∞ (no recovery within the run)'
        : `${x}${unit}`
  // In a fault case a missing RTO means a producer never recovered (JSON has no Infinity).
  const rto = (id: string, x: number | null): string =>
    id !== 'healthy' && (x === null || x === Infinity) ? f(Infinity) : f(x)
  const pct = (x: number | null | undefined): string =>
    x === null || x === undefined ? '—' : `${(x * 100).toFixed(2)} %`
  return [
    '# Failover benchmark: client lanes side by side',
    '',
    `${out.generatedAt}, \`${out.command}\`, median of ${runs} runs per case, ${out.wallSeconds} s in total; ${out.machine.cpus} CPUs, ${out.machine.memoryGiB} GiB, Node ${out.machine.node}.`,
    '',
    out.setup + '.',
    '',
    '| case | lane | RTO p50 (ms) | RTO p99 (ms) | max send latency (ms) | failed sends (median) | acked lost | duplicates | cross-room share (healthy) |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ...table.flatMap((row) =>
      Object.entries(row.lanes).map(
        ([lane, v]) =>
          `| ${row.label} | ${lane} | ${rto(row.id, v.rtoP50Ms)} | ${rto(row.id, v.rtoP99Ms)} | ${f(v.maxSendLatencyMs)} | ${f(v.failedSendsMedian)} | ${v.lostTotal} | ${v.duplicatesTotal} | ${row.id === 'healthy' ? pct(v.crossRoomShare) : ''} |`
      )
    ),
    '',
    '| healthy throughput (256 B, room 1 → broker of room 1) | fixed 200 msg/s p50 / p99 (ms) | max rate, 16 in flight (msg/s) | max rate p50 / p99 (ms) |',
    '|---|---:|---:|---:|',
    ...[ours, theirs]
      .filter((x): x is NonNullable<typeof x> => x !== null)
      .map(
        (x) =>
          `| ${x.client} | ${f(x.fixedRate.p50Ms)} / ${f(x.fixedRate.p99Ms)} | ${f(x.maxRate.msgPerSec)} | ${f(x.maxRate.p50Ms)} / ${f(x.maxRate.p99Ms)} |`
      ),
    '',
    `Broker kill RTO p99, remoting / baseline: ${killRatio === null ? '—' : killRatio.toFixed(4)} (target ≤ 0.1: ${out.targets.brokerKillTargetMet ? 'met' : 'not met'}). ` +
      `Max-rate throughput, remoting / official: ${tputRatio === null ? '—' : tputRatio.toFixed(2)} (target ≥ 1: ${out.targets.throughputTargetMet ? 'met' : 'not met'}).`,
    ''
  ].join('\n')
}
