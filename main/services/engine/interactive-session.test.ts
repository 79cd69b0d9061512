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
    const session = new InteractiveSession({ recorder: rec, runId, topology, cluster })
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
