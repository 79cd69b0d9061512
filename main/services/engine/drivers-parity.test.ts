import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openDatabase, Recorder } from '../ledger/recorder'
import { parseScenario } from '../scenario/load-scenario'
import { fakeWorld } from './run/test-world'
import { runScenario } from './scenario-driver'
import { expectParity, ledgerFaults } from './test-parity'

// One run, two drivers, on fake brokers behind the real client code: the same faults through the
// scenario's timeline and through the operator's path give the same ledger faults, phases and
// report. (The same check runs on real RocketMQ in test/integration for a broker kill, a room
// isolation and a controller master kill.)

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))

describe('the headless and the live driver', () => {
  it('record a broker kill and a client restart the same way', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'drstudio-parity-'))
    dirs.push(dir)
    const recorder = new Recorder(openDatabase(join(dir, 'drstudio.db')))
    const world = fakeWorld()
    const deps = world.deps(recorder)
    const loaded = parseScenario(`name: parity
topology: two-rooms
workload: { duration: 1500ms, rate: 40, drainTimeout: 3s, duplicateGrace: 100ms, warmupTimeout: 2s, settleTimeout: 3s }
client: { heartbeatInterval: 50ms, rebalanceInterval: 50ms, routeRefresh: 100ms, managementRefresh: 100ms, pollTimeout: 50ms }
timeline:
  - { at: 300ms, action: kill, target: broker-1 }
  - { at: 600ms, action: restart, target: producer-2 }
`)
    const { timeline, live } = await expectParity(deps, (l) => runScenario(deps, l), loaded)
    expect(ledgerFaults(deps, timeline.runId)).toEqual([
      { action: 'kill', target: ['broker-1'], nodes: ['broker-1'], ok: true },
      { action: 'restart', target: ['producer-2'], nodes: ['producer-2'], ok: true }
    ])
    // Both restored broker-1 before draining: nothing stayed lost on it.
    expect([timeline.totals.lost, live.totals.lost]).toEqual([0, 0])
    expect(world.cluster.states.get('broker-1')).toBe('up')
    recorder.close()
  }, 30_000)
})
