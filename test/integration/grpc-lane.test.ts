import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ScenarioReport } from '../../common/scenario/schema'
import { reportSchema } from '../../common/scenario/schema'
import { LedgerReader } from '../../main/services/ledger/ledger-reader'
import { openDatabase, Recorder } from '../../main/services/ledger/recorder'
import { Sandbox } from '../../main/services/sandbox/sandbox'
import { loadScenarioFile } from '../../main/services/scenario/load-scenario'
import { ScenarioRunner } from '../../main/services/scenario/scenario-runner'
import { sandboxPlace, sourceWorkers } from '../../main/services/workers/worker-launcher'
import { formatScorecard } from '../../main/services/scenario/scorecard'

/**
 * The gRPC lane (rocketmq-client-nodejs through zone-pinned RocketMQ 5 proxies) against real
 * RocketMQ 5.3.3: healthy traffic stays on each room's proxy, and room 1's clients move to room 2's
 * proxy when room 1's proxy or brokers die, with nothing acknowledged lost.
 */
const ROOT = resolve(import.meta.dirname, '../..')
const SCENARIOS = join(ROOT, 'resources', 'scenarios')

let dataDir: string
let recorder: Recorder
let sandbox: Sandbox
let runner: ScenarioRunner

async function run(name: string): Promise<ScenarioReport> {
  const report = await runner.run(loadScenarioFile(join(SCENARIOS, `${name}.yaml`)), sandbox)
  process.stderr.write(formatScorecard(report))
  expect(reportSchema.safeParse(report).success).toBe(true)
  return report
}

/** Acknowledged sends of a client per proxy it went through (the ledger's entry point). */
function sendsByProxy(runId: number, clientId: string, afterMs = -Infinity): Map<string, number> {
  const rows = recorder.db
    .prepare(
      `SELECT namesrv_id AS proxy, COUNT(*) AS n FROM ledger_sends
       WHERE run_id = ? AND client_id = ? AND status = 'acked' AND ended_at >= ?
       GROUP BY namesrv_id`
    )
    .all(runId, clientId, afterMs) as { proxy: string; n: number }[]
  return new Map(rows.map((r) => [r.proxy, r.n]))
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'drstudio-it-grpc-'))
  recorder = new Recorder(openDatabase(join(dataDir, 'drstudio.db')))
  sandbox = new Sandbox({ dataDir, repoRoot: ROOT })
  runner = new ScenarioRunner({ recorder, workers: sourceWorkers(sandboxPlace(sandbox, dataDir)) })
  runner.on('progress', (p) => process.stderr.write(`[${p.phase}] ${p.message}\n`))
  await sandbox.start(loadScenarioFile(join(SCENARIOS, 'grpc-healthy.yaml')).topology)
}, 300_000)

afterAll(async () => {
  await sandbox?.stop({ force: true })
  recorder?.close()
  if (dataDir && !process.env.KEEP_RUN_DIR) rmSync(dataDir, { recursive: true, force: true })
}, 60_000)

describe('gRPC lane through zone-pinned proxies on real RocketMQ', () => {
  it('healthy: each room sends and receives through its own proxy, nothing lost', async () => {
    const r = await run('grpc-healthy')
    expect(r.totals.lost).toBe(0)
    expect(r.totals.acked).toBeGreaterThan(0)
    expect(r.totals.consumed).toBeGreaterThanOrEqual(r.totals.acked)
    // Own room's proxy for (nearly) every send; see minLocalShare in grpc-healthy.yaml.
    for (const [producer, own] of [
      ['producer-1', 'proxy-1'],
      ['producer-2', 'proxy-2']
    ] as const) {
      const by = sendsByProxy(r.runId, producer)
      const total = [...by.values()].reduce((a, b) => a + b, 0)
      expect(by.get(own) ?? 0).toBeGreaterThanOrEqual(0.95 * total)
      expect(by.has('proxy-plain')).toBe(false)
    }
    const consumed = new LedgerReader(recorder.db).consumerStats(r.runId)
    expect(consumed.find((c) => c.clientId === 'consumer-1')?.consumed).toBeGreaterThan(0)
    expect(r.passed).toBe(true)
  }, 240_000)

  it("room 1's proxy killed: room 1 moves to room 2's proxy and back, nothing lost", async () => {
    const r = await run('grpc-room1-proxy-down')
    expect(r.totals.lost).toBe(0)
    const fault = r.originMs + r.faults[0]!.atMs
    const after = sendsByProxy(r.runId, 'producer-1', fault)
    expect(after.get('proxy-2') ?? 0).toBeGreaterThan(0)
    const f = r.failovers.find((x) => x.clientId === 'producer-1' && x.from === 'proxy-1')
    expect(f?.to).toBe('proxy-2')
    expect(r.passed).toBe(true)
  }, 240_000)

  it("room 1's brokers killed: room 1 moves to room 2's proxy, nothing lost", async () => {
    const r = await run('grpc-room1-brokers-down')
    expect(r.totals.lost).toBe(0)
    const fault = r.originMs + r.faults[0]!.atMs
    expect(sendsByProxy(r.runId, 'producer-1', fault).get('proxy-2') ?? 0).toBeGreaterThan(0)
    expect(r.passed).toBe(true)
  }, 240_000)
})
