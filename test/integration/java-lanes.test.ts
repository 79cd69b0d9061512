import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse, stringify } from 'yaml'
import type { ScenarioReport } from '../../common/scenario/schema'
import { reportSchema } from '../../common/scenario/schema'
import type { ClientLane } from '../../common/topology/schema'
import { openDatabase, Recorder } from '../../main/services/ledger/recorder'
import { Sandbox } from '../../main/services/sandbox/sandbox'
import { parseScenario } from '../../main/services/scenario/load-scenario'
import { ScenarioRunner } from '../../main/services/scenario/scenario-runner'
import { formatScorecard } from '../../main/services/scenario/scorecard'
import { sandboxPlace, sourceWorkers } from '../../main/services/workers/worker-launcher'

/**
 * The Java lanes through the scenario runner, as `drstudio scenario run` and the app run them: the
 * built-in room1-brokers-down scenario with `workload.lane` set to each Java lane, on one sandbox.
 * The room workers and the Java JVMs (one per room and lane) are spawned by the same factory the
 * engine uses. Nothing acknowledged may be lost on any lane; how each lane reacts to the kill is
 * the stock Java client's own behaviour, checked from the report.
 */
const ROOT = resolve(import.meta.dirname, '../..')
const SCENARIOS = join(ROOT, 'resources', 'scenarios')

let dataDir: string
let recorder: Recorder
let sandbox: Sandbox
let runner: ScenarioRunner

function brokersDown(lane: ClientLane) {
  const raw = parse(readFileSync(join(SCENARIOS, 'room1-brokers-down.yaml'), 'utf8'))
  raw.workload.lane = lane
  return parseScenario(stringify(raw), { baseDir: SCENARIOS })
}

async function run(lane: ClientLane): Promise<ScenarioReport> {
  const report = await runner.run(brokersDown(lane), sandbox)
  process.stderr.write(formatScorecard(report))
  expect(reportSchema.safeParse(report).success).toBe(true)
  return report
}

/** Acknowledged sends of room-1 producers after the kill, by the room of the broker that stored them. */
function room1SendsAfterFault(r: ScenarioReport): Map<string | null, number> {
  const room1 = new Set(r.clients.filter((c) => c.room === 'room1').map((c) => c.id))
  const out = new Map<string | null, number>()
  for (const s of r.selections) {
    if (s.role !== 'producer' || s.phase !== 'after-fault' || !room1.has(s.clientId)) continue
    out.set(s.brokerRoom, (out.get(s.brokerRoom) ?? 0) + s.count)
  }
  return out
}

beforeAll(async () => {
  const build = spawnSync(process.execPath, ['scripts/build-java-worker.mjs'], {
    cwd: ROOT,
    encoding: 'utf8'
  })
  expect(build.status, `${build.stdout}${build.stderr}`).toBe(0)
  dataDir = mkdtempSync(join(tmpdir(), 'drstudio-it-java-lanes-'))
  recorder = new Recorder(openDatabase(join(dataDir, 'drstudio.db')))
  sandbox = new Sandbox({ dataDir, repoRoot: ROOT })
  runner = new ScenarioRunner({ recorder, workers: sourceWorkers(sandboxPlace(sandbox, dataDir)) })
  runner.on('progress', (p) => process.stderr.write(`[${p.phase}] ${p.message}\n`))
  await sandbox.start(brokersDown('java').topology)
}, 240_000)

afterAll(async () => {
  await sandbox?.stop({ force: true })
  recorder?.close()
  const left = spawnSync('pgrep', ['-f', dataDir], { encoding: 'utf8' }).stdout.trim()
  expect(left).toBe('')
  if (dataDir && !process.env.KEEP_RUN_DIR) rmSync(dataDir, { recursive: true, force: true })
}, 60_000)

describe('Java lanes on room1-brokers-down (real RocketMQ 5.3.3)', () => {
  it.each(['java', 'java-tuned'] as const)(
    '%s: room-1 producers go on through room 2, nothing acknowledged is lost',
    async (lane) => {
      const r = await run(lane)
      expect(r.clients.map((c) => c.id).sort()).toEqual([
        'consumer-1',
        'consumer-2',
        'producer-1',
        'producer-2'
      ])
      expect(r.totals.acked).toBeGreaterThan(0)
      expect(r.totals.lost).toBe(0)
      expect(r.clients.every((c) => c.lost === 0)).toBe(true)
      expect(room1SendsAfterFault(r).get('room2') ?? 0).toBeGreaterThan(0)
      expect(r.failovers).toContainEqual(
        expect.objectContaining({
          kind: 'broker',
          clientId: 'producer-1',
          fromRoom: 'room1',
          toRoom: 'room2'
        })
      )
    },
    240_000
  )

  it('java-zone: zone mode has no fallback, so room-1 sends fail while room 1 has no broker; nothing acknowledged is lost', async () => {
    const r = await run('java-zone')
    expect(r.totals.acked).toBeGreaterThan(0)
    expect(r.totals.lost).toBe(0)
    expect(r.clients.every((c) => c.lost === 0)).toBe(true)
    // Every acknowledged room-1 send stayed in room 1; the ones due while its broker was dead failed.
    expect(room1SendsAfterFault(r).get('room2') ?? 0).toBe(0)
    expect(r.clients.find((c) => c.id === 'producer-1')!.failed).toBeGreaterThan(0)
    expect(r.clients.find((c) => c.id === 'producer-2')!.failed).toBe(0)
  }, 240_000)
})
