import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { reportSchema } from '../../../common/scenario/schema'
import { topologySchema } from '../../../common/topology/schema'
import { LedgerReader } from '../ledger/ledger-reader'
import { openDatabase, Recorder } from '../ledger/recorder'
import { planClients } from '../scenario/plan'
import { hasClients, InteractiveSession, sessionScenario } from './interactive-session'
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

describe('interactive session', () => {
  it('plans the topology’s own clients on its topics and groups, judged on loss', () => {
    const loaded = sessionScenario(topology)
    expect(loaded.scenario.gates.maxLost).toBe(0)
    expect(planClients(loaded.scenario, topology)).toEqual([
      expect.objectContaining({ id: 'producer-1', room: 'room1', topic: 'orders', rate: 20 }),
      expect.objectContaining({ id: 'consumer-1', room: 'room1', group: 'orders-consumer' }),
      expect.objectContaining({ id: 'producer-2', room: 'room2', topic: 'orders' }),
      expect.objectContaining({ id: 'consumer-2', room: 'room2', topic: 'orders' })
    ])
    expect(hasClients(topology)).toBe(true)
    expect(
      hasClients({
        ...topology,
        rooms: topology.rooms.map((r) => ({ ...r, producers: [], consumers: [] }))
      })
    ).toBe(false)
  })

  it('records operator actions as faults and reports on stop into the sandbox run', async () => {
    const rec = recorder()
    const runId = rec.startRun({ kind: 'sandbox', topologyName: topology.name })
    const cluster = {
      status: () => ({
        nodes: [{ nodeId: 'broker-1', kind: 'broker', room: 'room1', state: 'up' }]
      }),
      act: async () => undefined
    }
    const session = new InteractiveSession({
      recorder: rec,
      runId,
      topology,
      cluster,
      workers: fakeWorld().workers
    })
    const events: string[] = []
    session.on('ledger-event', (e) => events.push(e.kind))
    expect(session.clientIds).toEqual(['producer-1', 'consumer-1', 'producer-2', 'consumer-2'])
    session.recordFault('kill', ['broker-1'])
    session.recordFault('pause', ['ns-9'], 'no such node')
    await expect(session.actOnClient('broker-1', 'kill')).rejects.toThrow(/not a client/)
    const report = await session.stop()
    expect(await session.stop()).toBe(report)
    expect(reportSchema.safeParse(report).success).toBe(true)
    expect(report).toMatchObject({
      runId,
      scenario: 'interactive session',
      passed: true,
      totals: { sent: 0, lost: 0 }
    })
    expect(report.faults).toEqual([
      expect.objectContaining({ action: 'kill', nodes: ['broker-1'], ok: true }),
      expect.objectContaining({
        action: 'pause',
        nodes: ['ns-9'],
        ok: false,
        error: 'no such node'
      })
    ])
    expect(report.gates.map((g) => g.name)).toEqual(['lost messages'])
    expect(events).toContain('fault')
    const stored = new LedgerReader(rec.db).events(runId, { kinds: ['fault'] })
    expect(stored.map((e) => e.data.action)).toEqual(['kill', 'pause'])
    const row = rec.listRuns().find((r) => r.id === runId)!
    expect(row.verdict).toBe('passed')
    expect(rec.getRunReport(runId)).toMatchObject({ runId })
    rec.close()
  })
})

describe('interactive session on fake brokers', () => {
  it('runs the topology’s clients until Stop, follows a client restart, and drains to 0 lost', async () => {
    const rec = recorder()
    const runId = rec.startRun({ kind: 'sandbox', topologyName: topology.name })
    const world = fakeWorld()
    const fast = sessionScenario(topology)
    const session = new InteractiveSession({
      recorder: rec,
      runId,
      topology,
      cluster: world.cluster,
      workers: world.workers,
      management: world.management,
      admin: world.admin,
      readyTimeoutMs: 5000,
      drainTimeoutMs: 3000
    })
    expect(fast.scenario.workload.duplicateGrace).toBe(3000)
    const phases: string[] = []
    session.on('progress', (p) => phases.push(p.phase))
    session.begin()
    const reader = new LedgerReader(rec.db)
    const acked = (): number => reader.producerStats(runId).reduce((n, s) => n + s.acked, 0)
    const deadline = Date.now() + 10_000
    while (acked() < 20 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    expect(phases).toContain('workload')
    await session.actOnClient('producer-1', 'restart')
    const before = reader.producerStats(runId).find((s) => s.clientId === 'producer-1')!.acked
    while (
      reader.producerStats(runId).find((s) => s.clientId === 'producer-1')!.acked < before + 10 &&
      Date.now() < deadline
    ) {
      await new Promise((r) => setTimeout(r, 50))
    }
    const report = await session.stop()
    expect(report.clients.find((c) => c.id === 'producer-1')!.acked).toBeGreaterThanOrEqual(
      before + 10
    )
    expect(report.totals.lost).toBe(0)
    expect(report.faults).toEqual([expect.objectContaining({ action: 'restart', ok: true })])
    expect(world.spawned.every((w) => !w.alive)).toBe(true)
    rec.close()
  }, 30_000)
})
