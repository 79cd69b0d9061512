// `npm run bench:controller`: RocketMQ 5 controller mode on the sandbox (three-rooms-controller:
// a controller embedded in each room's name server, broker-a and broker-b with a replica in every
// room, a producer and a consumer per room at 50 msg/s). BENCH_RUNS (default 3) kills of broker-a's
// master, then one asynchronous-replication run where the master dies while its replicas lag.
// Per kill:
//  - master switch: the kill → every name server routes broker-a to a new master (polled every
//    20 ms through GET_BROKER_CLUSTER_INFO, the name servers' own view);
//  - election: the kill → the controllers report the new master (the watcher's master-elected);
//  - producers write again: per producer, first failed or timed-out send after the kill → next
//    acknowledged send (OpenChaos RTO), worst over producers; and the kill → the first send the
//    new master of broker-a acknowledged (the group itself accepting writes again);
//  - the RPO figures of the run (acknowledged messages lost with the old master, of them never
//    consumed, and unreplicated at the fault).
// Writes bench/results/controller.json and bench/results/controller.md.
import { readFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join, resolve } from 'node:path'
import { stringify } from 'yaml'
import { median } from '../common/scenario/metrics'
import type { ScenarioReport } from '../common/scenario/schema'
import { LedgerReader } from '../main/services/ledger/ledger-reader'
import type { LoadedScenario } from '../common/scenario/run-plan'
import { composeServices } from '../main/services/engine/compose'
import { bootFor } from '../main/services/engine/lab-control'
import { runScenario } from '../main/services/engine/scenario-driver'
import { RemotingRpc } from '../main/services/remoting'
import type { Sandbox } from '../main/services/sandbox/sandbox'
import { parseScenario } from '../main/services/scenario/load-scenario'

type Runner = (loaded: LoadedScenario) => Promise<ScenarioReport>

const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const ROOT = resolve(import.meta.dirname, '..')
const OUT = join(ROOT, 'bench', 'results')
const GROUP = 'broker-a'

interface KillFigures {
  runId: number
  from: string | null
  to: string | null
  /** Kill → every name server routes the group to its new master. */
  switchMs: number | null
  /** Kill → the controllers report the new master. */
  electionMs: number | null
  /** Worst producer RTO (first failure → next success) after the kill; 0 = no producer failed. */
  producerRtoMs: number | null
  /** Kill → the first send the new master acknowledged. */
  groupWritesAgainMs: number | null
  lost: number
  rpo: NonNullable<ScenarioReport['controller']>['rpo'] | null
}

const r1 = (x: number | null | undefined): number | null =>
  x === null || x === undefined || !Number.isFinite(x) ? null : Math.round(x * 10) / 10

/** Polls every name server's cluster info: when did all of them route GROUP away from `old`. */
class SwitchWatch {
  private timer: NodeJS.Timeout | undefined
  private old: string | null = null
  private since = 0
  allAt: number | null = null

  constructor(
    private readonly rpc: RemotingRpc,
    private readonly nameServers: () => string[]
  ) {}

  arm(oldMaster: string | null, at: number): void {
    this.old = oldMaster
    this.since = at
    this.allAt = null
    const tick = async (): Promise<void> => {
      const masters = await Promise.all(
        this.nameServers().map((ns) =>
          this.rpc
            .getBrokerClusterInfo(ns, { timeoutMs: 500 })
            .then((i) => i.brokerAddrTable[GROUP]?.brokerAddrs['0'] ?? null)
            .catch(() => null)
        )
      )
      if (masters.length > 0 && masters.every((m) => m !== null && m !== this.old)) {
        this.allAt = performance.timeOrigin + performance.now()
        return
      }
      if (performance.timeOrigin + performance.now() - this.since < 60_000) {
        this.timer = setTimeout(() => void tick(), 20)
      }
    }
    void tick()
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer)
  }
}

function scenarioText(topology: string, timeline: object[], gates: object): string {
  return stringify({
    name: `bench-controller-${topology}`,
    topology,
    workload: { duration: '14s', rate: 50, drainTimeout: '40s' },
    client: { requestTimeout: '1500ms' },
    timeline,
    gates
  })
}

function figures(
  report: ScenarioReport,
  reader: LedgerReader,
  switchAt: number | null
): KillFigures {
  const kill = report.faults.find((f) => f.action === 'kill')!
  const killAbs = report.originMs + kill.atMs
  const elected = reader
    .events(report.runId, { kinds: ['master-elected'] })
    .find((e) => e.data.group === GROUP && e.data.from !== null && e.atMs >= killAbs - 1000)
  const newRoom = (elected?.data.toRoom as string | undefined) ?? null
  const firstNewWrite = reader
    .ackedSendsTo(report.runId, [GROUP])
    .filter((s) => s.brokerRoom === newRoom && s.ackedAt >= killAbs)
    .sort((a, b) => a.ackedAt - b.ackedAt)[0]
  const rtos = report.clients
    .filter((c) => c.role === 'producer')
    .map((c) => (c.rtoMs.length ? c.rtoMs[0]! : 0))
  return {
    runId: report.runId,
    from: (elected?.data.from as string | undefined) ?? null,
    to: (elected?.data.to as string | undefined) ?? null,
    switchMs: r1(switchAt === null ? null : switchAt - killAbs),
    electionMs: r1(elected ? elected.atMs - killAbs : null),
    producerRtoMs: r1(rtos.some((x) => x === null) ? Infinity : Math.max(...(rtos as number[]))),
    groupWritesAgainMs: r1(firstNewWrite ? firstNewWrite.ackedAt - killAbs : null),
    lost: report.totals.lost,
    rpo: report.controller?.rpo ?? null
  }
}

/** RSS of every sandbox JVM and node process, MiB (read from /proc). */
function rssMiB(sandbox: Sandbox): number {
  let kb = 0
  for (const p of sandbox.processes()) {
    try {
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p.pid}/status`, 'utf8'))
      kb += Number(m?.[1] ?? 0)
    } catch {
      // gone meanwhile
    }
  }
  return Math.round(kb / 1024)
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'drstudio-bench-controller-'))
  const services = composeServices({ dataDir, fromSource: true, machineNetwork: false })
  const { sandbox, recorder } = services
  const reader = new LedgerReader(recorder.db)
  const rpc = new RemotingRpc({ connectTimeoutMs: 500, requestTimeoutMs: 500 })
  const t = performance.now()
  const log = (m: string): void =>
    void process.stderr.write(`${((performance.now() - t) / 1000).toFixed(1).padStart(6)}s ${m}\n`)
  const kills: KillFigures[] = []
  let asyncRun: KillFigures | null = null
  let rss = 0
  /** Boots a topology; its runs feed the switch watch the moment a master is killed. */
  const boot = async (topology: string): Promise<{ run: Runner; watch: SwitchWatch }> => {
    if (sandbox.status().running) await sandbox.stop({ force: true })
    log(`booting ${topology}`)
    await bootFor(sandbox, parseScenario(scenarioText(topology, [], {})).topology, undefined, log)
    const watch = new SwitchWatch(rpc, () =>
      sandbox
        .status()
        .nodes.filter((n) => n.kind === 'nameserver' && n.state === 'up')
        .map((n) => n.address!)
    )
    const run: Runner = (loaded) =>
      runScenario(services.runDeps(), loaded, {
        onOpen: (r) => {
          r.on('progress', (p) => log(`[${p.phase}] ${p.message}`))
          r.on('fault', (f) => {
            if (f.action !== 'kill') return
            rss = Math.max(rss, rssMiB(sandbox))
            const master =
              sandbox.node(f.nodes.find((n) => n.startsWith(`${GROUP}-`)) ?? f.nodes[0]!).address ??
              null
            watch.arm(master, performance.timeOrigin + performance.now())
          })
        }
      })
    return { run, watch }
  }
  try {
    const sync = await boot('three-rooms-controller')
    for (let i = 0; i < RUNS; i++) {
      const loaded = parseScenario(
        scenarioText(
          'three-rooms-controller',
          [{ at: '4s', action: 'kill', target: `master of group ${GROUP}` }],
          { maxLost: 0, maxRpoMessages: 0 }
        )
      )
      const report = await sync.run(loaded)
      // The kill is recorded once the process is gone; the watch armed then, so it may be late
      // by that much, never early.
      const f = figures(report, reader, sync.watch.allAt)
      sync.watch.stop()
      kills.push(f)
      log(`kill ${i + 1}: ${JSON.stringify(f)}`)
    }
    const async = await boot('three-rooms-controller-async')
    const loaded = parseScenario(
      readFileSync(join(ROOT, 'resources/scenarios/controller-master-kill-async.yaml'), 'utf8'),
      { resourcesDir: join(ROOT, 'resources') }
    )
    const report = await async.run(loaded)
    asyncRun = figures(report, reader, async.watch.allAt)
    async.watch.stop()
    log(`async: ${JSON.stringify(asyncRun)}`)
  } finally {
    rpc.close()
    await services.close({ force: true })
    if (!process.env.KEEP_RUN_DIR) rmSync(dataDir, { recursive: true, force: true })
  }
  const med = (k: keyof KillFigures): number | null =>
    r1(median(kills.map((f) => f[k]).filter((x): x is number => typeof x === 'number')))
  const unrecovered = (k: keyof KillFigures): number => kills.filter((f) => f[k] === null).length
  const summary = {
    runs: kills.length,
    switchP50Ms: med('switchMs'),
    electionP50Ms: med('electionMs'),
    producerRtoP50Ms: med('producerRtoMs'),
    groupWritesAgainP50Ms: med('groupWritesAgainMs'),
    unrecovered: {
      switch: unrecovered('switchMs'),
      groupWrites: unrecovered('groupWritesAgainMs')
    },
    syncRpoMax: Math.max(0, ...kills.map((f) => f.rpo?.lostWithOldMaster ?? 0)),
    async: asyncRun
  }
  const machine = { cpus: cpus().length, memGiB: Math.round(totalmem() / 2 ** 30), peakRssMiB: rss }
  mkdirSync(OUT, { recursive: true })
  writeFileSync(
    join(OUT, 'controller.json'),
    JSON.stringify({ machine, summary, kills }, null, 2) + '\n'
  )
  const md = [
    '# Controller mode: master switch (npm run bench:controller)',
    '',
    `${machine.cpus} cores, ${machine.memGiB} GiB; three-rooms-controller (9 JVMs), peak RSS of the sandbox ${rss} MiB.`,
    '',
    `| figure (median of ${kills.length} kills of broker-a's master) | value |`,
    '|---|---|',
    `| kill → new master on every name server | ${summary.switchP50Ms ?? '—'} ms |`,
    `| kill → controllers report the new master | ${summary.electionP50Ms ?? '—'} ms |`,
    `| worst producer RTO (first failure → next success) | ${summary.producerRtoP50Ms ?? '—'} ms |`,
    `| kill → first write the new master acknowledged | ${summary.groupWritesAgainP50Ms ?? '—'} ms |`,
    `| acknowledged messages lost with the old master (sync) | ${summary.syncRpoMax} (max over runs) |`,
    '',
    asyncRun?.rpo
      ? `Asynchronous replication, replicas lagging 3 s when the master dies: ${asyncRun.rpo.lostWithOldMaster} ` +
        `acknowledged messages lost with the old master (${asyncRun.rpo.neverConsumed} never consumed, ` +
        `${asyncRun.rpo.unreplicatedAtFault} unreplicated at the fault); loss checker: ${asyncRun.lost}.`
      : 'Asynchronous run: no figures.',
    ''
  ].join('\n')
  writeFileSync(join(OUT, 'controller.md'), md)
  process.stdout.write(md)
}

await main()
