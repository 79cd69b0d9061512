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
 * The six built-in scenarios against real RocketMQ 5.3.3. One sandbox serves the whole file; each
 * scenario is its own run (new run id, topic and group) and the runner restores every node and
 * drains before reporting, so the scenarios stay independent.
 */
const ROOT = resolve(import.meta.dirname, '../..')
const SCENARIOS = join(ROOT, 'resources', 'scenarios')

let dataDir: string
let recorder: Recorder
let sandbox: Sandbox
let runner: ScenarioRunner
const log: string[] = []

async function run(name: string): Promise<ScenarioReport> {
  const loaded = loadScenarioFile(join(SCENARIOS, `${name}.yaml`))
  const report = await runner.run(loaded, sandbox)
  // The scorecard is the first thing to read when an assertion below fails.
  process.stderr.write(formatScorecard(report))
  expect(reportSchema.safeParse(report).success).toBe(true)
  return report
}

function gate(report: ScenarioReport, name: string): { passed: boolean; actual: unknown } {
  const g = report.gates.find((x) => x.name.startsWith(name))
  if (!g) throw new Error(`no gate "${name}" in ${report.gates.map((x) => x.name).join(', ')}`)
  return g
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'drstudio-it-scenario-'))
  recorder = new Recorder(openDatabase(join(dataDir, 'drstudio.db')))
  sandbox = new Sandbox({ dataDir, repoRoot: ROOT })
  sandbox.on('progress', (p) => log.push(`${p.nodeId} ${p.message}`))
  runner = new ScenarioRunner({ recorder, workers: sourceWorkers(sandboxPlace(sandbox, dataDir)) })
  runner.on('progress', (p) => process.stderr.write(`[${p.phase}] ${p.message}\n`))
  await sandbox.start(loadScenarioFile(join(SCENARIOS, 'healthy.yaml')).topology)
}, 240_000)

afterAll(async () => {
  await sandbox?.stop({ force: true })
  recorder?.close()
  if (dataDir && !process.env.KEEP_RUN_DIR) rmSync(dataDir, { recursive: true, force: true })
}, 60_000)

describe('built-in scenarios on real RocketMQ', () => {
  it('healthy: ≥ 99% of sends and consumptions stay in the client room, nothing lost', async () => {
    const r = await run('healthy')
    expect(r.totals.lost).toBe(0)
    expect(r.totals.acked).toBeGreaterThan(0)
    expect(gate(r, 'sends served in own room').passed).toBe(true)
    expect(gate(r, 'consumptions served in own room').passed).toBe(true)
    for (const s of r.selections.filter((x) => x.phase === 'before-fault')) {
      const room = r.clients.find((c) => c.id === s.clientId)!.room
      if (s.brokerRoom !== room) expect(s.count).toBeLessThan(0.01 * r.totals.acked)
    }
    expect(r.passed).toBe(true)
  }, 180_000)

  it('room1 brokers down: room-1 producers send through room 2, nothing lost', async () => {
    const r = await run('room1-brokers-down')
    expect(r.totals.lost).toBe(0)
    expect(gate(r, "room1 producers' sends acknowledged by room2").passed).toBe(true)
    const f = r.failovers.find(
      (x) => x.kind === 'broker' && x.fromRoom === 'room1' && x.toRoom === 'room2'
    )
    expect(f).toBeDefined()
    expect(r.selections).toContainEqual(
      expect.objectContaining({
        clientId: 'producer-1',
        phase: 'after-fault',
        namesrvRoom: 'room1',
        brokerRoom: 'room2'
      })
    )
    expect(r.passed).toBe(true)
  }, 180_000)

  it('room1 brokers and name servers down: room 2 name server and brokers, nothing lost', async () => {
    const r = await run('room1-brokers-and-namesrv-down')
    expect(r.totals.lost).toBe(0)
    expect(
      r.failovers.some(
        (x) => x.kind === 'namesrv' && x.fromRoom === 'room1' && x.toRoom === 'room2'
      )
    ).toBe(true)
    expect(
      r.failovers.some((x) => x.kind === 'broker' && x.fromRoom === 'room1' && x.toRoom === 'room2')
    ).toBe(true)
    expect(r.selections).toContainEqual(
      expect.objectContaining({
        clientId: 'producer-1',
        phase: 'after-fault',
        namesrvRoom: 'room2',
        brokerRoom: 'room2'
      })
    )
    expect(r.passed).toBe(true)
  }, 180_000)

  it('room1 consumers down: room-2 consumers consume room 1 backlog, takeover in the ledger', async () => {
    const r = await run('room1-consumers-down')
    expect(r.totals.lost).toBe(0)
    expect(gate(r, 'room1 messages consumed by room2 consumers').passed).toBe(true)
    const takeovers = new LedgerReader(recorder.db).events(r.runId, {
      kinds: ['consumer-takeover']
    })
    expect(takeovers.some((e) => e.data.fromRoom === 'room1' && e.data.toRoom === 'room2')).toBe(
      true
    )
    expect(
      r.failovers.some(
        (x) => x.kind === 'consumer-takeover' && x.fromRoom === 'room1' && x.toRoom === 'room2'
      )
    ).toBe(true)
    expect(r.passed).toBe(true)
  }, 180_000)

  it('room1 broker paused (hung, no close): detected by timeout, sends go through room 2', async () => {
    const r = await run('room1-broker-paused')
    expect(r.totals.lost).toBe(0)
    expect(
      r.failovers.some(
        (x) =>
          x.kind === 'broker' &&
          x.fromRoom === 'room1' &&
          x.toRoom === 'room2' &&
          x.reason === 'timeout'
      )
    ).toBe(true)
    expect(gate(r, "room1 producers' sends acknowledged by room2").passed).toBe(true)
    expect(r.passed).toBe(true)
  }, 180_000)

  it('room1 management down: clients keep their list, fall back to room 2, keep working', async () => {
    const r = await run('room1-management-down')
    expect(r.totals.lost).toBe(0)
    expect(r.totals.failed).toBe(0)
    expect(gate(r, 'room1 clients falling back').passed).toBe(true)
    expect(r.passed).toBe(true)
  }, 180_000)
})
