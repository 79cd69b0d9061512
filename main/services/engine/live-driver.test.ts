import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { reportSchema } from '../../../common/scenario/schema'
import { topologySchema } from '../../../common/topology/schema'
import { LedgerReader } from '../ledger/ledger-reader'
import { openDatabase, Recorder } from '../ledger/recorder'
import { planClients } from '../../../common/scenario/client-plan'
import { LiveDriver, liveScenario } from './live-driver'
import { fakeWorld } from './run/test-world'

const topology = topologySchema.parse(
  JSON.parse(
    readFileSync(
      join(resolve(import.meta.dirname, '../../..'), 'resources/topologies/two-rooms.json'),
      'utf8'
    )
  )
)

const dirs: string[] = []
function recorder(): Recorder {
  const dir = mkdtempSync(join(tmpdir(), 'drstudio-session-'))
  dirs.push(dir)
  return new Recorder(openDatabase(join(dir, 'drstudio.db')))
}
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))

describe('live driver', () => {
  it('plans the topology’s own clients on its topics and groups, judged on loss', () => {
    const loaded = liveScenario(topology)
    expect(loaded.scenario.gates.maxLost).toBe(0)
    expect(planClients(loaded.scenario, topology)).toEqual([
      expect.objectContaining({ id: 'producer-1', room: 'room1', topic: 'orders', rate: 20 }),
      expect.objectContaining({ id: 'consumer-1', room: 'room1', group: 'orders-consumer' }),
      expect.objectContaining({ id: 'producer-2', room: 'room2', topic: 'orders' }),
      expect.objectContaining({ id: 'consumer-2', room: 'room2', topic: 'orders' })
    ])
  })

  it('sends what the topology’s Messages setting says, with its order policy', () => {
    expect(liveScenario(topology).scenario.workload.messages).toBe('normal')
    const ordered = topologySchema.parse({
      ...topology,
      settings: { ...topology.settings, messages: 'ordered', orderPolicy: 'reroute' }
    })
    const { scenario } = liveScenario(ordered)
    expect(scenario.workload.messages).toBe('ordered')
    expect(scenario.client.orderPolicy).toBe('reroute')
  })

  it('records operator actions as faults and reports on stop into its own sandbox run', async () => {
    const rec = recorder()
    const world = fakeWorld()
    const live = new LiveDriver(world.deps(rec), topology)
    const runId = live.run.id
    expect(rec.listRuns().find((r) => r.id === runId)).toMatchObject({ kind: 'sandbox' })
    const events: string[] = []
    live.run.on('ledger-event', (e) => events.push(e.kind))
    expect(live.run.clientIds).toEqual(['producer-1', 'consumer-1', 'producer-2', 'consumer-2'])
    expect(
      (await live.run.applyFault({ action: 'kill', target: 'broker-1' }, 'operator')).report.ok
    ).toBe(true)
    expect(world.cluster.states.get('broker-1')).toBe('killed')
    const unknown = await live.run.applyFault({ action: 'pause', target: 'ns-9' }, 'operator')
    expect(unknown.report.error).toMatch(/ns-9/)
    // A client that has not started yet cannot be acted on, and the run says so.
    const early = await live.run.applyFault({ action: 'kill', target: 'producer-1' }, 'operator')
    expect(early.report.error).toBe(
      'producer-1: it has not started yet; wait until routes are ready'
    )
    const report = await live.stop()
    expect(await live.stop()).toBe(report)
    expect(reportSchema.safeParse(report).success).toBe(true)
    expect(report).toMatchObject({
      runId,
      scenario: 'interactive session',
      passed: true,
      totals: { sent: 0, lost: 0 }
    })
    expect(report.faults).toEqual([
      expect.objectContaining({
        action: 'kill',
        nodes: ['broker-1'],
        ok: true,
        source: 'operator'
      }),
      expect.objectContaining({ action: 'pause', nodes: [], ok: false, source: 'operator' }),
      expect.objectContaining({ action: 'kill', nodes: ['producer-1'], ok: false })
    ])
    expect(report.gates.map((g) => g.name)).toEqual(['lost messages'])
    expect(events).toContain('fault')
    const stored = new LedgerReader(rec.db).events(runId, { kinds: ['fault'] })
    expect(stored.map((e) => [e.data.action, e.data.source])).toEqual([
      ['kill', 'operator'],
      ['pause', 'operator'],
      ['kill', 'operator']
    ])
    const row = rec.listRuns().find((r) => r.id === runId)!
    expect(row.verdict).toBe('passed')
    expect(rec.getRunReport(runId)).toMatchObject({ runId })
    rec.close()
  })
})

describe('live driver on fake brokers', () => {
  it('runs the topology’s clients until Stop, follows a client restart, and drains to 0 lost', async () => {
    const rec = recorder()
    const world = fakeWorld()
    const fast = liveScenario(topology)
    fast.scenario.workload.drainTimeout = 3000
    const live = new LiveDriver(world.deps(rec), topology, { scenario: fast })
    const runId = live.run.id
    const phases: string[] = []
    live.run.on('progress', (p) => phases.push(p.phase))
    const failures: Error[] = []
    live.begin((e) => failures.push(e))
    const reader = new LedgerReader(rec.db)
    const acked = (): number => reader.producerStats(runId).reduce((n, s) => n + s.acked, 0)
    const deadline = Date.now() + 10_000
    while (acked() < 20 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    expect(phases).toContain('workload')
    const restart = await live.run.applyFault(
      { action: 'restart', target: 'producer-1' },
      'operator'
    )
    expect(restart.report.ok).toBe(true)
    const before = reader.producerStats(runId).find((s) => s.clientId === 'producer-1')!.acked
    while (
      reader.producerStats(runId).find((s) => s.clientId === 'producer-1')!.acked < before + 10 &&
      Date.now() < deadline
    ) {
      await new Promise((r) => setTimeout(r, 50))
    }
    const report = await live.stop()
    expect(failures).toEqual([])
    expect(report.clients.find((c) => c.id === 'producer-1')!.acked).toBeGreaterThanOrEqual(
      before + 10
    )
    expect(report.totals.lost).toBe(0)
    expect(report.faults).toEqual([expect.objectContaining({ action: 'restart', ok: true })])
    expect(world.spawned.every((w) => !w.alive)).toBe(true)
    rec.close()
  }, 30_000)

  it('cancels without a report when the engine shuts down, and says so on the row', async () => {
    const rec = recorder()
    const world = fakeWorld()
    const live = new LiveDriver(world.deps(rec), topology)
    live.begin(() => undefined)
    await live.abort()
    const row = rec.listRuns().find((r) => r.id === live.run.id)!
    expect(row.verdict).toBe('cancelled')
    expect(world.spawned.every((w) => !w.alive)).toBe(true)
    await expect(live.stop()).rejects.toThrow(/shut down/)
    rec.close()
  })
})
