import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EventChannel, EventPayload } from '../../common/contract'
import type { ScenarioReport } from '../../common/scenario/schema'
import { reportSchema } from '../../common/scenario/schema'
import { findAppPaths } from '../../main/services/app-paths'
import { createEngine } from '../../main/services/engine/create-engine'
import type { Engine } from '../../main/services/engine/engine'
import { formatScorecard } from '../../main/services/scenario/scorecard'

/**
 * The app's live run through the engine's handlers on real RocketMQ: Start runs the topology's own
 * clients, killing broker-1 moves producer-1 to broker-2, a built-in scenario runs beside them on
 * the same sandbox, and Stop drains and reports.
 */
const paths = findAppPaths()
let dataDir: string
let engine: Engine
const seen: { channel: EventChannel; payload: unknown }[] = []

function on<C extends EventChannel>(channel: C): EventPayload<C>[] {
  return seen.filter((e) => e.channel === channel).map((e) => e.payload as EventPayload<C>)
}

/** Polls `check` until it holds; events arrive asynchronously from the clients. */
async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 200))
  }
}

function jvmsLeft(): string {
  try {
    return execFileSync('pgrep', ['-f', dataDir], { encoding: 'utf8' }).trim()
  } catch {
    return '' // pgrep exits 1 when nothing matches
  }
}

function lastChoice(clientId: string): EventPayload<'client:choice'> | undefined {
  return on('client:choice')
    .filter((c) => c.clientId === clientId && c.brokerId !== null)
    .at(-1)
}

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'drstudio-it-session-'))
  engine = createEngine({ shell: 'browser', paths, dataDir })
  engine.events.onAny((channel, payload) => {
    seen.push({ channel, payload })
    if (channel === 'scenario:progress' || channel === 'engine:notice') {
      process.stderr.write(`[${channel}] ${JSON.stringify(payload)}\n`)
    }
  })
})

afterAll(async () => {
  await engine?.dispose()
  expect(jvmsLeft()).toBe('')
  if (dataDir && !process.env.KEEP_RUN_DIR) rmSync(dataDir, { recursive: true, force: true })
}, 60_000)

describe('interactive session on real RocketMQ', () => {
  it('runs the topology clients, fails producer-1 over to room 2, runs a scenario beside them, and reports no loss', async () => {
    const document = JSON.parse(
      readFileSync(join(paths.resourcesDir, 'topologies', 'two-rooms.json'), 'utf8')
    ) as unknown
    const started = await engine.handlers['sandbox:start']({ document })
    const runId = started.runId!
    const bootedAt = (await engine.handlers['sandbox:status']({})).startedAt
    expect(runId).toBeGreaterThan(0)

    await until(
      'producer-1 on broker-1',
      () => lastChoice('producer-1')?.brokerId === 'broker-1',
      90_000
    )
    const before = lastChoice('producer-1')!
    expect(before).toMatchObject({ runId, role: 'producer', room: 'room1', brokerRoom: 'room1' })
    expect(before.namesrvId).toBe('ns-1')
    // Let some traffic flow through room 1 before the fault.
    await until(
      'acked sends',
      () => on('ledger:event').some((e) => e.kind === 'counters' && Number(e.data.acked) > 20),
      30_000
    )

    await engine.handlers['node:action']({ nodeId: 'broker-1', action: 'kill' })
    await until(
      'producer-1 on broker-2',
      () => lastChoice('producer-1')?.brokerId === 'broker-2',
      30_000
    )
    expect(lastChoice('producer-1')).toMatchObject({ brokerName: 'broker-b', brokerRoom: 'room2' })
    expect(on('ledger:event').some((e) => e.kind === 'fault' && e.data.action === 'kill')).toBe(
      true
    )

    // A built-in scenario from the Scenarios panel on the running sandbox of the same topology:
    // it reuses it (no second boot), restores broker-1 first, and reports through the engine while
    // the live run goes on; its run is its own.
    const states: EventPayload<'scenario:state'>[] = []
    engine.events.on('scenario:state', (s) => states.push(s))
    const res = await engine.handlers['scenario:run']({ id: 'healthy' })
    expect(res).toEqual({ started: true, scenario: 'healthy' })
    await expect(engine.handlers['scenario:run']({ id: 'healthy' })).rejects.toThrow(
      /already running/
    )
    await until('scenario end', () => states.some((s) => !s.running), 220_000)
    const healthy = on('scenario:report').at(-1)?.report as ScenarioReport
    process.stderr.write(formatScorecard(healthy))
    expect(healthy.scenario).toBe('healthy')
    expect(healthy.runId).not.toBe(runId)
    expect(healthy.totals.lost).toBe(0)
    expect(healthy.passed).toBe(true)
    expect(states.find((s) => !s.running)).toEqual({
      running: false,
      scenario: 'healthy',
      runId: healthy.runId
    })
    expect(on('client:choice').some((c) => c.runId === healthy.runId && c.brokerId)).toBe(true)
    expect((await engine.handlers['sandbox:status']({})).startedAt).toBe(bootedAt)

    const stopped = await engine.handlers['sandbox:stop']({})
    expect(stopped.running).toBe(false)
    const reported = on('scenario:report').at(-1)?.report as ScenarioReport
    expect(reportSchema.safeParse(reported).success).toBe(true)
    expect(on('runs:changed').some((e) => e.runId === runId)).toBe(true)

    const got = await engine.handlers['runs:get']({ id: runId })
    expect(got.run.kind).toBe('sandbox')
    expect(got.run.endedAt).not.toBeNull()
    const report = reportSchema.parse(got.report)
    process.stderr.write(`${JSON.stringify({ totals: report.totals, notes: report.notes })}\n`)
    expect(report.runId).toBe(runId)
    expect(report.totals.acked).toBeGreaterThan(0)
    expect(report.totals.lost).toBe(0)
    expect(report.faults).toContainEqual(
      expect.objectContaining({ action: 'kill', nodes: ['broker-1'], ok: true })
    )
    expect(
      report.failovers.some(
        (f) => f.kind === 'broker' && f.fromRoom === 'room1' && f.toRoom === 'room2'
      )
    ).toBe(true)
    expect(report.clients.map((c) => c.id).sort()).toEqual([
      'consumer-1',
      'consumer-2',
      'producer-1',
      'producer-2'
    ])
    expect(got.run.verdict).toBe(report.passed ? 'passed' : 'failed')
    expect(report.passed).toBe(true)
    expect(got.events.some((e) => e.kind === 'fault')).toBe(true)
    expect(jvmsLeft()).toBe('')
  }, 420_000)
})
