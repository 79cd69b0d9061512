import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LiveMetrics } from '../../common/contract/runs'
import { reportSchema } from '../../common/scenario/schema'
import { openDatabase, Recorder } from '../../main/services/ledger/recorder'
import { Sandbox } from '../../main/services/sandbox/sandbox'
import { loadScenarioFile } from '../../main/services/scenario/load-scenario'
import { RunMetrics } from '../../main/services/metrics/run-metrics'
import { checkMetrics } from '../../main/services/metrics/test-promtool'
import { formatScorecard } from '../../main/services/scenario/scorecard'
import type { Headless } from './helpers/headless'
import { headless } from './helpers/headless'
import { expectNothingLeft, trackHandles, type HandleTracker } from './helpers/live-handles'

/**
 * Master/slave groups replicating synchronously across rooms (two-rooms-sync) on real RocketMQ
 * 5.3.3: apache/rocketmq#3885, transactional messages while a synchronous master's slave is down,
 * and #569, ordered messages when a master and its slave die together, on our lane and the stock
 * Java client's.
 */
const ROOT = resolve(import.meta.dirname, '../..')
const SCENARIOS = join(ROOT, 'resources', 'scenarios')
const SCENARIO = join(SCENARIOS, 'transactional-sync-slave-down.yaml')

let dataDir: string
let recorder: Recorder
let sandbox: Sandbox
let runner: Headless
let handles: HandleTracker | undefined

beforeAll(async () => {
  handles = trackHandles()
  // The Java lane runs the Java client worker as this checkout builds it.
  const build = spawnSync(process.execPath, ['scripts/build-java-worker.mjs'], {
    cwd: ROOT,
    encoding: 'utf8'
  })
  expect(build.status, `${build.stdout}${build.stderr}`).toBe(0)
  dataDir = mkdtempSync(join(tmpdir(), 'drstudio-it-sync-'))
  recorder = new Recorder(openDatabase(join(dataDir, 'drstudio.db')))
  sandbox = new Sandbox({ dataDir, repoRoot: ROOT })
  runner = headless(recorder, sandbox, dataDir)
  await sandbox.start(loadScenarioFile(SCENARIO).topology)
}, 240_000)

afterAll(async () => {
  await sandbox?.stop({ force: true })
  recorder?.close()
  const left = spawnSync('pgrep', ['-f', dataDir], { encoding: 'utf8' }).stdout.trim()
  expect(left).toBe('')
  if (dataDir && !process.env.KEEP_RUN_DIR) rmSync(dataDir, { recursive: true, force: true })
  if (handles) await expectNothingLeft(handles, 'since the sandbox was created')
}, 60_000)

describe('synchronous master/slave pairs across rooms', () => {
  it('boots broker-a as a SYNC_MASTER that waits for its slave (inSyncReplicas 2)', () => {
    const conf = readFileSync(join(sandbox.status().runDir!, 'broker-1', 'broker.conf'), 'utf8')
    expect(conf).toMatch(/^brokerRole=SYNC_MASTER$/m)
    expect(conf).toMatch(/^inSyncReplicas=2$/m)
    const slave = readFileSync(
      join(sandbox.status().runDir!, 'broker-1-slave', 'broker.conf'),
      'utf8'
    )
    expect(slave).toMatch(/^brokerRole=SLAVE$/m)
  })

  it('#3885: with the slave down the stock Java client rolls transactions back unrun; ours runs them; nothing committed is lost', async () => {
    // With the canvas's live figures on, as the app runs it.
    const live: LiveMetrics[] = []
    // And the metrics endpoint's registry, as `--metrics` serves it.
    const metrics = new RunMetrics()
    runner.deps.metrics = metrics
    const r = await runner
      .run(loadScenarioFile(SCENARIO), {
        liveMetrics: true,
        onOpen: (run) => run.on('metrics', (m) => live.push(m))
      })
      .finally(() => delete runner.deps.metrics)
    process.stderr.write(formatScorecard(r))
    expect(reportSchema.safeParse(r).success).toBe(true)
    const lane = (name: string) => r.transactions!.lanes.find((l) => l.lane === name)!
    const ours = lane('remoting')
    const java = lane('java')
    const kill = r.originMs + r.faults.find((f) => f.action === 'kill')!.atMs
    // Every send broker-a answered with a warning came after its slave died: before it, the
    // master had its slave's acknowledgement in time.
    const warned = recorder.db
      .prepare(
        `SELECT client_id AS clientId, error, ended_at AS endedAt FROM ledger_sends
          WHERE run_id = ? AND status = 'acked' AND error IS NOT NULL`
      )
      .all(r.runId) as { clientId: string; error: string; endedAt: number }[]
    expect(warned.length).toBeGreaterThan(0)
    expect(new Set(warned.map((w) => w.error))).toEqual(new Set(['FLUSH_SLAVE_TIMEOUT']))
    expect(warned.every((w) => w.endedAt > kill)).toBe(true)
    // The stock client rolled the half messages stored with FLUSH_SLAVE_TIMEOUT back itself.
    expect(java.storedWithWarning).toBeGreaterThan(0)
    expect(java.clientRollbacks).toBe(java.storedWithWarning)
    expect(ours.clientRollbacks).toBe(0)
    // What committed arrived and nothing rolled back did, on both lanes.
    expect(ours).toMatchObject({ mismatches: 0, unresolved: 0 })
    expect(java.mismatches).toBe(0)
    expect(r.totals.lost).toBe(0)
    const gate = r.gates.find((g) => g.name.startsWith('transactions rolled back by the client'))!
    expect(gate).toMatchObject({ passed: false, actual: java.clientRollbacks, limit: 0 })
    // Replication between the rooms, from the slaves' own HA status (issue 24): each master's
    // commit log reached the slave in the other room, the killed slave's catch-up included.
    const replication = r.traffic!.replication!
    const flow = (from: string, to: string) =>
      replication.find((f) => f.fromRoom === from && f.toRoom === to)
    expect(flow('room1', 'room2')!.pairs).toEqual([
      { master: 'broker-1', slave: 'broker-1-slave', bytes: expect.any(Number) }
    ])
    expect(flow('room2', 'room1')!.pairs.map((p) => `${p.master}>${p.slave}`)).toEqual([
      'broker-2>broker-2-slave'
    ])
    // At least the 256-byte bodies of the messages each master acknowledged (plus their headers,
    // half messages, commits and the brokers' own system topics).
    const ackedTo = (broker: string) =>
      (
        recorder.db
          .prepare(
            `SELECT COUNT(*) AS n FROM ledger_sends WHERE run_id = ? AND status = 'acked' AND broker_name = ?`
          )
          .get(r.runId, broker) as { n: number }
      ).n
    expect(flow('room1', 'room2')!.bytes).toBeGreaterThan(ackedTo('broker-a') * 256)
    expect(flow('room2', 'room1')!.bytes).toBeGreaterThan(ackedTo('broker-b') * 256)
    // The canvas's room links showed it while the run lasted: growing, with a rate (the killed
    // slave's direction held its total while it was down).
    const replicated = (from: string, to: string) =>
      live.map(
        (m) =>
          m.roomLinks.find((l) => l.fromRoom === from && l.toRoom === to)?.replicationBytes ?? 0
      )
    for (const [from, to] of [
      ['room1', 'room2'],
      ['room2', 'room1']
    ] as const) {
      const seen = replicated(from, to)
      expect(Math.max(...seen), `${from} → ${to} live`).toBeGreaterThan(0)
      expect(seen.every((b, i) => i === 0 || b >= seen[i - 1]!)).toBe(true)
    }
    expect(
      live.some((m) => m.roomLinks.some((l) => l.replicationBytesPerSecond > 0)),
      'a live replication rate'
    ).toBe(true)
    // The metrics endpoint counts the same replication between rooms, and promtool reads it.
    const exposition = await metrics.registry.metrics()
    for (const [from, to] of [
      ['room1', 'room2'],
      ['room2', 'room1']
    ] as const) {
      const m = new RegExp(
        `^drstudio_replication_bytes_total\\{from_room="${from}",to_room="${to}"\\} (\\d+)$`,
        'm'
      ).exec(exposition)
      expect(Number(m?.[1] ?? 0), `${from} → ${to} on the metrics endpoint`).toBeGreaterThan(0)
    }
    expect(checkMetrics(exposition)).toMatchObject({ ok: true })
    const peak = (from: string, to: string) =>
      Math.max(
        ...live.map(
          (m) =>
            m.roomLinks.find((l) => l.fromRoom === from && l.toRoom === to)
              ?.replicationBytesPerSecond ?? 0
        )
      )
    console.log(
      `live replication: room1 → room2 ${Math.max(...replicated('room1', 'room2'))} B (peak ${peak('room1', 'room2')} B/s), ` +
        `room2 → room1 ${Math.max(...replicated('room2', 'room1'))} B (peak ${peak('room2', 'room1')} B/s) over ${live.length} snapshots`
    )
    console.log(
      `replication: ${replication.map((f) => `${f.fromRoom} → ${f.toRoom} ${f.bytes} B`).join(', ')}`
    )
    console.log(
      `sync slave down: ` +
        ['remoting', 'java']
          .map((n) => {
            const l = lane(n)
            return `${n} ${l.acked}/${l.sent} acked, ${l.storedWithWarning} stored with a warning, ${l.clientRollbacks} client rollbacks, ${l.committed} committed, ${l.mismatches} mismatches`
          })
          .join('; ')
    )
  }, 240_000)

  it('#569: a master and its slave down together: the key-hash selector with a 1 s route poll rehashes keys onto broker-b, ours holds them; both reported', async () => {
    const loaded = loadScenarioFile(join(SCENARIOS, 'ordered-pair-down.yaml'))
    // The stock lane (30 s route poll) sees only failed sends in a 6 s outage: left out here.
    loaded.scenario.workload.lanes = ['remoting', 'java-tuned']
    const r = await runner.run(loaded)
    process.stderr.write(formatScorecard(r))
    expect(reportSchema.safeParse(r).success).toBe(true)
    const lane = (name: string) => r.order!.lanes.find((l) => l.lane === name)!
    const ours = lane('remoting')
    const java = lane('java-tuned')
    // wait: broker-a's keys were held, never sent to broker-b; their sends in the outage failed.
    expect(ours).toMatchObject({ orderPolicy: 'wait', violations: 0, reroutes: 0 })
    const kill = r.originMs + r.faults.find((f) => f.action === 'kill')!.atMs
    const start = r.originMs + r.faults.find((f) => f.action === 'start')!.atMs
    const failed = r.clients
      .filter((c) => c.id.endsWith('-remoting') && c.role === 'producer')
      .reduce((n, c) => n + c.failed, 0)
    expect(failed).toBeGreaterThan(0)
    // The Java client hashed keys over the queues its route had left: moved keys are reroutes.
    expect(java.reroutes).toBeGreaterThan(0)
    expect(r.totals.lost).toBe(0)
    const gate = r.gates.find((g) => g.name.startsWith('order violations'))!
    expect(gate.actual).toBe(java.violations)
    expect(start).toBeGreaterThan(kill)
    console.log(
      `pair down: ours ${ours.acked} acked, ${failed} failed, ${ours.violations} violations, stall ${ours.maxStallMs} ms; ` +
        `java ${java.acked} acked, ${java.reroutes} reroutes over ${java.reroutedKeyCount} keys, ` +
        `${java.violations} violations over ${java.violatedKeyCount} keys, stall ${java.maxStallMs} ms`
    )
  }, 240_000)
})
