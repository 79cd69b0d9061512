import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ScenarioReport } from '../../common/scenario/schema'
import { openDatabase, Recorder } from '../../main/services/ledger/recorder'
import { LedgerReader } from '../../main/services/ledger/ledger-reader'
import { defaultDelayRouterPath } from '../../main/services/network/delay-router'
import { nodeExec } from '../../main/services/network/exec'
import { detectNetworkSupport } from '../../main/services/network/support'
import { machineSandboxOptions } from '../../main/services/sandbox/machine-sandbox'
import { Sandbox } from '../../main/services/sandbox/sandbox'
import { loadScenarioFile, parseScenario } from '../../main/services/scenario/load-scenario'
import type { LoadedScenario } from '../../common/scenario/run-plan'
import type { Topology } from '../../common/topology/schema'
import { sameDeployment } from '../../main/services/engine/lab-control'
import { expectParity } from '../../main/services/engine/test-parity'
import type { Headless } from './helpers/headless'
import { headless } from './helpers/headless'
import { formatScorecard } from '../../main/services/scenario/scorecard'
import { expectNothingLeft, trackHandles, type HandleTracker } from './helpers/live-handles'

// Issue 12: rooms as separate networks, with real JVMs in the namespaces, each topology booted
// once (a run heals the network and restores nodes before it starts). Each shipped network
// scenario runs through the headless driver; one more timeline covers the actions they do not (reject,
// one-way, node-level partition, delay and bandwidth as steps). That a SIGKILLed engine's namespaces
// go at the next start's sweep is checked in engine-death.test.ts, on the engine it kills anyway.

const ROOT = resolve(import.meta.dirname, '../..')
const SCENARIOS = join(ROOT, 'resources', 'scenarios')
const support = await detectNetworkSupport(nodeExec, {
  delayRouter: defaultDelayRouterPath(ROOT)
})
const skip = support.ok ? false : `${support.missing} (${support.fix})`
if (skip) process.stderr.write(`network scenarios skipped: ${skip}\n`)

let dataDir: string
let recorder: Recorder
let sandbox: Sandbox
let runner: Headless
let handles: HandleTracker | undefined

beforeAll(async () => {
  if (skip) return
  handles = trackHandles()
  dataDir = mkdtempSync(join(tmpdir(), 'drstudio-it-net-'))
  recorder = new Recorder(openDatabase(join(dataDir, 'drstudio.db')))
  sandbox = new Sandbox({ dataDir, repoRoot: ROOT, ...machineSandboxOptions(ROOT) })
  runner = headless(recorder, sandbox, dataDir)
})

afterAll(async () => {
  await sandbox?.stop({ force: true })
  recorder?.close()
  if (dataDir && !process.env.KEEP_RUN_DIR) rmSync(dataDir, { recursive: true, force: true })
  expect(ourNamespaces()).toEqual([])
  // Nothing the runs or the sandbox opened outlives stop(): a CLI would linger on it (issue 21).
  if (handles) await expectNothingLeft(handles, 'since the sandbox was created')
})

/** Namespaces of a lab this process owns (the sweep removes a dead owner's). */
function ourNamespaces(): string[] {
  const owners = join('/run/drstudio/net')
  let text = ''
  try {
    text = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' })
  } catch {
    return []
  }
  const mine = new Set<number>()
  try {
    for (const f of execFileSync('ls', [owners], { encoding: 'utf8' }).split('\n')) {
      if (!f.endsWith('.json')) continue
      const rec = JSON.parse(readFileSync(join(owners, f), 'utf8')) as {
        pid: number
        instance?: number
      }
      if (rec.pid === process.pid) mine.add(Number(f.replace('.json', '')))
    }
  } catch {
    // no owner records: nothing of ours
  }
  return text
    .split('\n')
    .map((l) => l.split(' ')[0]!)
    .filter((n) => [...mine].some((i) => n.startsWith(`drs-${i}-`)))
}

let booted: Topology | null = null

/** Runs a scenario, booting its topology only when the sandbox runs another one. */
async function run(loaded: LoadedScenario): Promise<ScenarioReport> {
  if (!booted || !sameDeployment(booted, loaded.topology)) {
    // As the app switches topologies: the old deployment is thrown away, its JVMs killed.
    if (sandbox.running) await sandbox.stop({ force: true })
    await sandbox.start(loaded.topology)
    booted = loaded.topology
  }
  expect(sandbox.network().mode).toBe('namespaces')
  // No network scenario gates or asserts duplicates: 1 s of late redeliveries instead of 3 s.
  loaded.scenario.workload.duplicateGrace = 1000
  const report = await runner.run(loaded)
  process.stderr.write(formatScorecard(report) + '\n')
  return report
}

const failedGates = (r: ScenarioReport): string[] =>
  r.gates.filter((g) => !g.passed).map((g) => `${g.name}: ${g.actual} (limit ${g.limit})`)

describe.skipIf(skip)('rooms as separate networks, real JVMs', () => {
  it('room1-isolated: each side keeps serving its own room, 0 lost, normal after the heal; the live driver agrees; java-dr too', async () => {
    const loaded = loadScenarioFile(join(SCENARIOS, 'room1-isolated.yaml'))
    // The shipped 22 s (cut 5–15 s) shortened, as it runs twice: 6 s cut, 5 s after the heal.
    loaded.scenario.workload.duration = 14_000
    loaded.scenario.timeline[0]!.at = 3_000
    loaded.scenario.timeline[1]!.at = 9_000
    // The stock Java client with our extension (issue 25) beside our lane, in both runs.
    loaded.scenario.workload.lanes = ['remoting', 'java-dr']
    // The timeline's isolation, then the same one as the operator's action on a live run.
    const { timeline: r, live } = await expectParity(runner.deps, run, loaded)
    process.stderr.write(formatScorecard(live) + '\n')
    expect(r.faults.map((f) => `${f.action}:${f.ok}`)).toEqual(['isolate:true', 'heal:true'])
    expect(failedGates(r)).toEqual([])
    // Every lane's sends stayed in their own room, before the cut and under it, in both runs.
    for (const report of [r, live]) {
      const roomOf = new Map(report.clients.map((c) => [c.id, c.room]))
      for (const lane of ['remoting', 'java-dr']) {
        const before = report.selections.filter(
          (s) => s.phase === 'before-fault' && s.clientId.endsWith(`-${lane}`)
        )
        const home = before.filter((s) => s.brokerRoom === roomOf.get(s.clientId))
        const count = (xs: typeof before) => xs.reduce((n, s) => n + s.count, 0)
        expect(count(home) / count(before), lane).toBeGreaterThanOrEqual(0.99)
        const after = report.selections.filter(
          (s) =>
            s.role === 'producer' && s.phase === 'after-fault' && s.clientId.endsWith(`-${lane}`)
        )
        expect(
          after.reduce((n, s) => n + s.count, 0),
          lane
        ).toBeGreaterThan(0)
        expect(
          after.every((s) => s.brokerRoom === roomOf.get(s.clientId)),
          lane
        ).toBe(true)
      }
    }
  })

  it('room1-lossy: 30 % loss on the link room 1 must cross, and 0 acknowledged loss', async () => {
    const loaded = loadScenarioFile(join(SCENARIOS, 'room1-lossy.yaml'))
    // The shipped 22 s shortened: broker down 6 s under the loss, 4 s of traffic after the heal.
    loaded.scenario.workload.duration = 15_000
    for (const [i, at] of [2_000, 3_000, 9_000, 11_000].entries()) {
      loaded.scenario.timeline[i]!.at = at
    }
    const r = await run(loaded)
    expect(failedGates(r)).toEqual([])
    expect(r.faults.find((f) => f.action === 'loss')).toMatchObject({ ok: true })
  })

  it('room1-brokers-down-thin-link: room 2 cannot carry room 1’s load over a 200 kbit/s link, and the headroom gate says so (issue 24)', async () => {
    const r = await run(loadScenarioFile(join(SCENARIOS, 'room1-brokers-down-thin-link.yaml')))
    expect(r.faults.every((f) => f.ok)).toBe(true)
    const kill = r.headroom!.find((h) => h.fault === 'kill all brokers of room1')!
    const room = (id: string) => kill.rooms.find((x) => x.room === id)!
    // Room 1's clients kept offering their 200 msg/s; with its brokers out nothing was stored
    // there but what they answered between the kill's start (the window's stamp) and their death
    // (a clean clone on a loaded host saw 36 acks, ~180 ms of load). No attempt begun well after
    // the stamp was acknowledged by a room-1 broker before the restart: they were dead.
    expect(room('room1').offeredPerS).toBeGreaterThan(150)
    const killAt = r.originMs + r.faults.find((f) => f.action === 'kill')!.atMs
    const restartAt = r.originMs + r.faults.find((f) => f.action === 'restart')!.atMs
    const lateRoom1Acks = recorder.db
      .prepare(
        `SELECT COUNT(*) AS n FROM ledger_sends WHERE run_id = ? AND status = 'acked'
         AND broker_room = 'room1' AND COALESCE(attempt_started_at, started_at) BETWEEN ? AND ?`
      )
      .get(r.runId, killAt + 2000, restartAt) as { n: number }
    expect(lateRoom1Acks.n, 'room-1 brokers acknowledged sends begun 2 s after their kill').toBe(0)
    expect(room('room1').carriedPerS).toBeLessThan(0.1 * room('room1').offeredPerS)
    // Room 2's broker took what came through the link, not room 1's whole load.
    expect(room('room2').carriedPerS).toBeLessThan(
      room('room1').offeredPerS + room('room2').offeredPerS
    )
    expect(kill.share).toBeLessThan(0.9)
    // The brokers' load was read meanwhile (CPU from /proc, the send queue from the broker): room
    // 2's broker answered, room 1's was dead.
    expect(room('room2').peakCpuPct).not.toBeNull()
    expect(room('room2').peakSendQueue).not.toBeNull()
    expect(room('room1').peakSendQueue).toBeNull()
    const gate = r.gates.find((g) => g.name.startsWith('acknowledged share of the offered rate'))!
    expect(gate).toMatchObject({ passed: false, limit: 0.9 })
    expect(gate.actual).toBeLessThanOrEqual(kill.share!)
    console.log(`thin link: ${r.headroom!.map((h) => JSON.stringify(h)).join('; ')}`)
  })

  it('broker-cut-from-remote-ns: room 2’s name server stops listing broker-1 while room 1’s keeps it', async () => {
    const r = await run(loadScenarioFile(join(SCENARIOS, 'broker-cut-from-remote-ns.yaml')))
    expect(failedGates(r)).toEqual([])
    const views = new LedgerReader(recorder.db).events(r.runId, { kinds: ['namesrv-view'] })
    const lists = (ns: string, from: number, to: number): Set<string>[] =>
      views
        .filter((v) => v.data.namesrvId === ns && v.atMs >= from && v.atMs < to)
        .map((v) => new Set((v.data.brokers as { brokerName: string }[]).map((b) => b.brokerName)))
    const cut = r.originMs + r.faults[0]!.atMs
    const heal = r.originMs + r.faults[1]!.atMs
    // Once broker-1's heartbeats stop reaching ns-2, ns-2 drops it; ns-1 never does.
    expect(lists('ns-2', cut, heal).some((s) => !s.has('broker-a'))).toBe(true)
    expect(lists('ns-1', cut, heal).every((s) => s.has('broker-a'))).toBe(true)
  })

  it('applies every other network action: reject, one-way, node-level cut, delay, bandwidth, heal', async () => {
    const loaded = parseScenario(`
name: network-actions
topology: two-rooms
workload: { duration: 9s, rate: 20 }
timeline:
  - { at: 1s, action: partition, target: room1, peer: room2, direction: to, mode: reject }
  - { at: 2s, action: heal, target: room1, peer: room2 }
  - { at: 3s, action: delay, target: room1, peer: room2, latencyMs: 15, jitterMs: 1 }
  - { at: 4s, action: bandwidth, target: room1, peer: room2, mbit: 5 }
  - { at: 5s, action: partition, target: broker-1, peer: ns-2, mode: reject }
  - { at: 7s, action: heal }
gates: { maxLost: 0 }
`)
    const r = await run(loaded)
    expect(r.faults.map((f) => `${f.action}:${f.ok}${f.error ? `:${f.error}` : ''}`)).toEqual([
      'partition:true',
      'heal:true',
      'delay:true',
      'bandwidth:true',
      'partition:true',
      'heal:true'
    ])
    expect(sandbox.network().faults).toEqual([])
    expect(failedGates(r)).toEqual([])
  })

  it('wan-latency: traffic stays local; crossing the 20 ms link costs its round trip', async () => {
    // The shipped 20 s with its kill at 10 s, shortened: hundreds of cross-room sends either way.
    const loaded = loadScenarioFile(join(SCENARIOS, 'wan-latency.yaml'))
    loaded.scenario.workload.duration = 13_000
    loaded.scenario.timeline[0]!.at = 6_000
    const r = await run(loaded)
    expect(failedGates(r)).toEqual([])
    const cross = r.latency!.find((l) => l.scope === 'cross-room')!
    const same = r.latency!.find((l) => l.scope === 'same-room')!
    // One request-response over the link is two one-way 20 ms (± 2) trips.
    expect(cross.sends).toBeGreaterThan(0)
    expect(cross.p50Ms!).toBeGreaterThanOrEqual(36)
    expect(same.p50Ms!).toBeLessThan(cross.p50Ms! / 2)
  })
})
