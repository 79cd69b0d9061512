import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { topologySchema } from '../../../../common/topology/schema'
import type { ControllerWatcher } from '../../controller/controller-watcher'
import type { StoredEvent } from '../../ledger/ledger-reader'
import { controllerReportOf, maxMastersOf } from './controller-report'
import { scenarioSchema } from '../../../../common/scenario/schema'
import { resolveRunPlan } from '../../../../common/scenario/run-plan'
import { mastersHit, resolveControllerTargets, watchedReplicas } from './controller-run'
import type { RunContext } from './run-context'

const ROOT = resolve(import.meta.dirname, '../../../..')
const topology = topologySchema.parse(
  JSON.parse(readFileSync(join(ROOT, 'resources/topologies/three-rooms-controller.json'), 'utf8'))
)
const plan = resolveRunPlan({
  loaded: {
    scenario: scenarioSchema.parse({ name: 't', topology: topology.name }),
    topology,
    file: null,
    topologyFile: ''
  },
  runId: 1,
  kind: 'scenario'
})

/** A run whose watcher reports broker-a's master on broker-a-1 and ns-2 as leader. */
function ctx(
  masters: Record<string, string | null> = { 'broker-a': 'broker-a-1', 'broker-b': 'broker-b-2' },
  leader: string | null = 'ns-2'
) {
  const controllers = {
    masterOf: (g: string) => masters[g] ?? null,
    leader: () => leader
  } as unknown as ControllerWatcher
  return { controllers, plan } as unknown as Pick<RunContext, 'controllers' | 'plan'>
}

describe('controller run helpers', () => {
  it('lists the controller-mode groups and the replicas the cluster serves', () => {
    const cluster = {
      status: () => ({
        nodes: [
          { nodeId: 'broker-a-1', kind: 'broker', room: 'room1', state: 'up', address: 'h:1' },
          { nodeId: 'broker-b-1', kind: 'broker', room: 'room1', state: 'killed' },
          { nodeId: 'ns-1', kind: 'nameserver', room: 'room1', state: 'up', address: 'h:2' }
        ]
      }),
      act: async () => undefined
    }
    expect(watchedReplicas(plan, cluster)).toEqual([
      { nodeId: 'broker-a-1', room: 'room1', address: 'h:1', group: 'broker-a' }
    ])
  })

  it('resolves "master of group" and "leader controller" at run time, other selectors unchanged', () => {
    expect(
      resolveControllerTargets(ctx(), [
        'master of group broker-a',
        'leader controller',
        'all brokers of room3'
      ])
    ).toEqual({ ok: true, targets: ['broker-a-1', 'ns-2', 'all brokers of room3'] })
  })

  it('says why when the controllers name no master or leader', () => {
    expect(resolveControllerTargets(ctx({}), ['master of group broker-a'])).toEqual({
      ok: false,
      error: '"master of group broker-a": the controllers report no master for broker-a now'
    })
    expect(resolveControllerTargets(ctx(undefined, null), ['controller leader']).ok).toBe(false)
  })

  it('finds the groups whose master a fault takes out, by node or by room', () => {
    expect(mastersHit(ctx(), { nodes: ['broker-a-1'], rooms: [] })).toEqual([
      { group: 'broker-a', master: 'broker-a-1' }
    ])
    expect(mastersHit(ctx(), { nodes: [], rooms: ['room2'] })).toEqual([
      { group: 'broker-b', master: 'broker-b-2' }
    ])
    expect(mastersHit(ctx(), { nodes: ['broker-a-2'], rooms: ['room3'] })).toEqual([])
  })
})

describe('controller report', () => {
  const ev = (
    id: number,
    atMs: number,
    kind: string,
    data: Record<string, unknown>
  ): StoredEvent => ({
    id,
    atMs,
    kind,
    clientId: null,
    room: null,
    data
  })

  it('reports elections after the first, leader changes, the widest split brain and the RPO', () => {
    const events = [
      ev(1, 1000, 'controller-leader-changed', { from: null, to: 'ns-1' }),
      ev(2, 1000, 'master-elected', {
        group: 'broker-a',
        from: null,
        to: 'broker-a-1',
        toRoom: 'room1',
        epoch: 1
      }),
      ev(3, 1000, 'masters-observed', { group: 'broker-a', masters: ['broker-a-1'] }),
      ev(4, 6000, 'masters-observed', { group: 'broker-a', masters: ['broker-a-1', 'broker-a-2'] }),
      ev(5, 6000, 'master-elected', {
        group: 'broker-a',
        from: 'broker-a-1',
        fromRoom: 'room1',
        to: 'broker-a-2',
        toRoom: 'room2',
        epoch: 2
      }),
      ev(6, 7000, 'controller-leader-changed', { from: 'ns-1', to: 'ns-2' })
    ]
    expect(maxMastersOf(events)).toEqual({ 'broker-a': 2 })
    const r = controllerReportOf(
      {
        sends: [
          {
            key: 'k1',
            topic: 't',
            group: 'broker-a',
            room: 'room1',
            queueId: 0,
            queueOffset: 5,
            ackedAt: 5000,
            consumed: false
          }
        ],
        changes: [
          { group: 'broker-a', at: 1000, to: 'broker-a-1', toRoom: 'room1' },
          { group: 'broker-a', at: 6000, to: 'broker-a-2', toRoom: 'room2' }
        ],
        samples: [],
        events
      },
      1000
    )
    expect(r.elections).toEqual([
      {
        atMs: 5000,
        group: 'broker-a',
        from: 'broker-a-1',
        fromRoom: 'room1',
        to: 'broker-a-2',
        toRoom: 'room2',
        epoch: 2
      }
    ])
    expect(r.leaderChanges).toBe(1)
    expect(r.groups[0]).toMatchObject({
      group: 'broker-a',
      switches: 1,
      maxMasters: 2,
      lostWithOldMaster: 1,
      neverConsumed: 1
    })
    expect(r.rpo).toMatchObject({
      lostWithOldMaster: 1,
      neverConsumed: 1,
      unreplicatedAtFault: 0,
      unknownQueues: 0
    })
  })
})
