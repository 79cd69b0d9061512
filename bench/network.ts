// `npm run bench:network`: what the links between rooms cost and what cuts do, on real JVMs with
// rooms as network namespaces (needs root; says so and exits otherwise).
//  1. same-room vs cross-room send latency (p50/p99, from the schedule) across a 20 ms link;
//  2. producers' RTO when room 1 is isolated, and room 2's when room 1's brokers are cut from it;
//  3. healthy throughput with rooms as namespaces against loopback, same run, as a ratio.
// Writes bench/results/network.{json,md}.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { ScenarioReport } from '../common/scenario/schema'
import { median } from '../common/scenario/metrics'
import { defaultDelayRouterPath } from '../main/services/network/delay-router'
import { nodeExec } from '../main/services/network/exec'
import { detectNetworkSupport } from '../main/services/network/support'
import { parseScenario } from '../main/services/scenario/load-scenario'
import { composeServices } from '../main/services/engine/compose'
import { runScenario } from '../main/services/engine/scenario-driver'

const ROOT = resolve(import.meta.dirname, '..')
const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const t = performance.now()
const log = (m: string): void =>
  void process.stderr.write(`${((performance.now() - t) / 1000).toFixed(1).padStart(6)}s ${m}\n`)

const support = await detectNetworkSupport(nodeExec, { delayRouter: defaultDelayRouterPath(ROOT) })
if (!support.ok) {
  console.error(`bench:network needs rooms as namespaces: ${support.missing}; fix: ${support.fix}`)
  process.exit(2)
}

const dataDir = mkdtempSync(join(tmpdir(), 'drstudio-bench-network-'))
const services = composeServices({ dataDir, fromSource: true })
const { sandbox } = services
let booted: string | null = null
// The same two rooms on loopback, for the throughput ratio.
const twoRooms = JSON.parse(
  readFileSync(join(ROOT, 'resources/topologies/two-rooms.json'), 'utf8')
) as Record<string, unknown>
writeFileSync(
  join(dataDir, 'two-rooms-loopback.json'),
  JSON.stringify({ ...twoRooms, name: 'two-rooms-loopback', network: { mode: 'loopback' } })
)

async function run(topology: string, body: string): Promise<ScenarioReport> {
  const loaded = parseScenario(`name: bench-network\ntopology: ${topology}\n${body}`, {
    resourcesDir: join(ROOT, 'resources')
  })
  if (booted !== topology) {
    if (sandbox.running) await sandbox.stop({ force: true })
    await sandbox.start(loaded.topology)
    await sandbox.waitForRegistration({ timeoutMs: 90_000 })
    booted = topology
    log(`booted ${topology}: ${sandbox.network().mode}`)
  }
  return runScenario(services.runDeps(), loaded, {
    onOpen: (r) => r.on('progress', (p) => log(`[${p.phase}] ${p.message}`))
  })
}

const producerRto = (r: ScenarioReport, room: string): string => {
  const eps = r.clients
    .filter((c) => c.role === 'producer' && c.room === room)
    .flatMap((c) => c.rtoMs)
  if (eps.length === 0) return 'no failure'
  if (eps.some((e) => e === null)) return 'never recovered'
  return `${Math.max(...(eps as number[]))} ms`
}

const throughputOf = (r: ScenarioReport): number => (r.totals.acked * 1000) / r.timings.workloadMs

const latency: { same50: number; same99: number; cross50: number; cross99: number }[] = []
const rto: { isolatedRoom1: string; isolatedRoom2: string; brokersCutRoom2: string }[] = []
const tput: { namespaces: number; loopback: number }[] = []
try {
  for (let i = 0; i < RUNS; i++) {
    log(`round ${i + 1} of ${RUNS}`)
    // 1. The 20 ms link: healthy traffic stays local, then room 1's broker dies and its producers cross.
    const wan = await run(
      'two-rooms-wan',
      `workload: { duration: 16s, rate: 50 }\ntimeline:\n  - { at: 8s, action: kill, target: all brokers of room1 }`
    )
    const same = wan.latency!.find((l) => l.scope === 'same-room')!
    const cross = wan.latency!.find((l) => l.scope === 'cross-room')!
    latency.push({
      same50: same.p50Ms!,
      same99: same.p99Ms!,
      cross50: cross.p50Ms!,
      cross99: cross.p99Ms!
    })
    // 2. Cuts: room 1 isolated; then room 1's brokers cut from room 2.
    const iso = await run(
      'two-rooms',
      `workload: { duration: 14s, rate: 50 }\ntimeline:\n  - { at: 4s, action: isolate, target: room1 }\n  - { at: 10s, action: heal }`
    )
    const cut = await run(
      'two-rooms',
      `workload: { duration: 14s, rate: 50 }\ntimeline:\n  - { at: 4s, action: partition, target: broker-1, peer: room2 }\n  - { at: 10s, action: heal }`
    )
    rto.push({
      isolatedRoom1: producerRto(iso, 'room1'),
      isolatedRoom2: producerRto(iso, 'room2'),
      brokersCutRoom2: producerRto(cut, 'room2')
    })
    // 3. Healthy throughput, namespaces then loopback, at an offered 1500 msg/s per producer.
    const offered = `workload: { duration: 10s, rate: 1500 }`
    const ns = throughputOf(await run('two-rooms', offered))
    const lo = throughputOf(await run(join(dataDir, 'two-rooms-loopback.json'), offered))
    tput.push({ namespaces: ns, loopback: lo })
  }
} finally {
  await services.close()
}

const m = (xs: number[]): number => Math.round((median(xs) ?? NaN) * 10) / 10
const result = {
  machine: `${process.arch}, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
  date: new Date().toISOString(),
  runs: RUNS,
  latency,
  rto,
  throughput: tput,
  medians: {
    sameRoomP50: m(latency.map((l) => l.same50)),
    sameRoomP99: m(latency.map((l) => l.same99)),
    crossRoomP50: m(latency.map((l) => l.cross50)),
    crossRoomP99: m(latency.map((l) => l.cross99)),
    namespacesMsgPerS: m(tput.map((x) => x.namespaces)),
    loopbackMsgPerS: m(tput.map((x) => x.loopback)),
    ratio: m(tput.map((x) => x.namespaces / x.loopback).map((r) => r * 100)) / 100
  }
}
const md = `# bench:network (${result.date})

${result.machine}; ${RUNS} rounds; command \`npm run bench:network\`.

| figure | median | rounds |
|---|---:|---|
| same-room send p50 / p99 (20 ms link) | ${result.medians.sameRoomP50} / ${result.medians.sameRoomP99} ms | ${latency.map((l) => `${l.same50}/${l.same99}`).join(', ')} |
| cross-room send p50 / p99 (20 ms link) | ${result.medians.crossRoomP50} / ${result.medians.crossRoomP99} ms | ${latency.map((l) => `${l.cross50}/${l.cross99}`).join(', ')} |
| room 1 isolated: room 1 producers' RTO | ${rto.map((r) => r.isolatedRoom1).join(', ')} | |
| room 1 isolated: room 2 producers' RTO | ${rto.map((r) => r.isolatedRoom2).join(', ')} | |
| room 1's brokers cut from room 2: room 2 producers' RTO | ${rto.map((r) => r.brokersCutRoom2).join(', ')} | |
| healthy throughput, namespaces / loopback (offered 2 × 1500 msg/s) | ${result.medians.namespacesMsgPerS} / ${result.medians.loopbackMsgPerS} msg/s = ${result.medians.ratio}× | ${tput.map((x) => `${Math.round(x.namespaces)}/${Math.round(x.loopback)}`).join(', ')} |
`
mkdirSync(join(ROOT, 'bench/results'), { recursive: true })
writeFileSync(join(ROOT, 'bench/results/network.json'), JSON.stringify(result, null, 2) + '\n')
writeFileSync(join(ROOT, 'bench/results/network.md'), md)
console.log(md)
rmSync(dataDir, { recursive: true, force: true })
