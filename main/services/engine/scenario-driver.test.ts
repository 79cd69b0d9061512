import { existsSync, readFileSync } from 'node:fs'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { reportSchema } from '../../../common/scenario/schema'
import type { LoadedScenario } from '../../../common/scenario/run-plan'
import { fakeWorld, twoRooms } from './run/test-world'
import { LedgerReader } from '../ledger/ledger-reader'
import { LedgerWriteError } from '../ledger/ledger-writer'
import { openDatabase, Recorder } from '../ledger/recorder'
import { parseScenario } from '../scenario/load-scenario'
import type { RunDeps } from './run/run'
import { runScenario } from './scenario-driver'

const recorders: Recorder[] = []
const dirs: string[] = []
afterEach(() => {
  recorders.splice(0).forEach((r) => r.close())
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }))
})

function setup(yamlBody: string): {
  deps: RunDeps
  recorder: Recorder
  world: ReturnType<typeof fakeWorld>
  loaded: LoadedScenario
} {
  const dir = mkdtempSync(join(tmpdir(), 'drstudio-runner-'))
  dirs.push(dir)
  const recorder = new Recorder(openDatabase(join(dir, 'drstudio.db')))
  recorders.push(recorder)
  const world = fakeWorld()
  const deps = world.deps(recorder)
  const loaded = parseScenario(`name: t\ntopology: two-rooms\n${yamlBody}`)
  expect(loaded.topology).toEqual(twoRooms())
  return { deps, recorder, world, loaded }
}

const FAST = `
client: { heartbeatInterval: 50ms, rebalanceInterval: 50ms, routeRefresh: 100ms, managementRefresh: 100ms, pollTimeout: 50ms }
`

describe('the scenario driver on the run phases (fake brokers, real client code in local workers)', () => {
  it('keeps a producer sending after the timeline restarts it, and counts what it skipped while down', async () => {
    const { deps, recorder, loaded } = setup(`
workload: { duration: 1500ms, rate: 50, drainTimeout: 3s, duplicateGrace: 100ms, warmupTimeout: 2s, settleTimeout: 3s }
${FAST}
timeline:
  - { at: 400ms, action: restart, target: producer-1 }
  - { at: 300ms, action: kill, target: producer-2 }
  - { at: 900ms, action: start, target: producer-2 }
`)
    const report = await runScenario(deps, loaded)
    expect(reportSchema.safeParse(report).success).toBe(true)
    const reader = new LedgerReader(recorder.db)
    const restartAt = report.originMs + report.faults.find((f) => f.action === 'restart')!.atMs
    const late = reader
      .sendOps(report.runId, 'producer-1')
      .filter((o) => o.ok && o.startMs > restartAt + 100)
    // Without the fix, the schedule held the old producer object and sent nothing after a restart.
    expect(late.length).toBeGreaterThan(20)
    const p2 = report.clients.find((c) => c.id === 'producer-2')!
    // Down from 300 ms to ~900 ms at 50/s: about 30 scheduled sends were not made, and say why.
    expect(p2.notSent!.down).toBeGreaterThanOrEqual(20)
    expect(p2.notSent!.down).toBeLessThanOrEqual(45)
    expect(p2.scheduled).toBe(
      p2.sent + p2.notSent!.down + p2.notSent!.inflightCap + p2.notSent!.workerLost
    )
    expect(report.totals.notSent).toBeGreaterThanOrEqual(p2.notSent!.down)
    expect(report.totals.lost).toBe(0)
    expect(report.measurement).toMatchObject({ duplicateGraceMs: 100, lateDeliveries: 0 })
    expect(report.passed).toBe(true)
  })

  it('fails loudly when the ledger cannot be written, keeps every row, and books no send as failed', async () => {
    const { deps, recorder, loaded } = setup(`
workload: { duration: 800ms, rate: 50, drainTimeout: 2s, duplicateGrace: 0ms, warmupTimeout: 2s, settleTimeout: 3s }
${FAST}
`)
    // A store that refuses the first batch holding a send, as a full disk would.
    recorder.db.exec(`CREATE TRIGGER refuse_sends BEFORE INSERT ON ledger_sends
      BEGIN SELECT RAISE(ABORT, 'database or disk is full (test)'); END`)
    const err = await runScenario(deps, loaded).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(LedgerWriteError)
    const rescue = (err as LedgerWriteError).rescueFile!
    expect((err as Error).message).toContain(rescue)
    expect((err as Error).message).toMatch(/database or disk is full \(test\)/)
    expect(existsSync(rescue)).toBe(true)
    const rows = readFileSync(rescue, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    const sends = rows.filter((r) => r.t === 's').map((r) => r.s)
    expect(sends.length).toBeGreaterThan(0)
    expect(sends.every((s) => s.status === 'acked')).toBe(true)
    expect(recorder.listRuns()[0]!.verdict).toBe('error')
  })
})
