import { describe, expect, it } from 'vitest'
import { RecordingLedger } from '../clients/room-aware/test-fakes'
import { RemoteError } from '../remoting/errors'
import type { ControllerMetadata } from '../remoting/remoting-rpc'
import type { ReplicasInfo } from '../remoting/types'
import type { WatcherRpc } from './controller-watcher'
import { ControllerWatcher } from './controller-watcher'

const CONTROLLERS = [
  { nodeId: 'ns-1', room: 'room1', address: 'c1:9878', selfId: 'n0' },
  { nodeId: 'ns-2', room: 'room2', address: 'c2:9878', selfId: 'n1' },
  { nodeId: 'ns-3', room: 'room3', address: 'c3:9878', selfId: 'n2' }
]
const REPLICAS = [
  { nodeId: 'a-1', room: 'room1', address: 'b1:10911', group: 'broker-a' },
  { nodeId: 'a-2', room: 'room2', address: 'b2:10911', group: 'broker-a' },
  { nodeId: 'a-3', room: 'room3', address: 'b3:10911', group: 'broker-a' }
]

/** A quorum in memory: who leads, broker-a's master, which controllers and brokers answer. */
class FakeQuorum {
  leader: string | null = 'c1:9878'
  master: string | null = 'b1:10911'
  epoch = 1
  down = new Set<string>()
  active = new Set<string>(['b1:10911'])
  offsets = new Map<string, number>([
    ['b2:10911', 40],
    ['b3:10911', 38]
  ])

  rpc(): WatcherRpc {
    const refuse = (a: string): void => {
      if (this.down.has(a)) throw new Error(`ECONNREFUSED ${a}`)
    }
    return {
      getControllerMetadata: async (a: string): Promise<ControllerMetadata> => {
        refuse(a)
        return {
          group: 'drstudio',
          leaderId: this.leader ? 'n0' : null,
          leaderAddress: this.leader,
          isLeader: a === this.leader,
          peers: []
        }
      },
      getSyncStateData: async (a: string): Promise<Record<string, ReplicasInfo>> => {
        refuse(a)
        if (a !== this.leader) throw new RemoteError(a, 1006, 2007, 'not leader')
        const id = (x: string) => ({
          brokerName: 'broker-a',
          brokerId: 1,
          brokerAddress: x,
          alive: true
        })
        return {
          'broker-a': {
            masterBrokerId: this.master ? 1 : null,
            masterAddress: this.master,
            masterEpoch: this.epoch,
            syncStateSetEpoch: this.epoch,
            inSyncReplicas: this.master ? [id(this.master)] : [],
            notInSyncReplicas: []
          }
        }
      },
      getBrokerRuntimeInfo: async (a: string) => {
        refuse(a)
        return { brokerActive: String(this.active.has(a)) }
      },
      getMaxOffset: async (a: string, input: { queueId: number }) => {
        refuse(a)
        return (this.offsets.get(a) ?? 0) + input.queueId
      }
    } as unknown as WatcherRpc
  }
}

function watcher(
  q: FakeQuorum,
  ledger: RecordingLedger,
  topics = [{ topic: 'orders', queues: 2 }]
) {
  let now = 0
  const w = new ControllerWatcher(
    {
      controllers: () => CONTROLLERS,
      replicas: () => REPLICAS,
      groups: ['broker-a'],
      topics: () => topics,
      intervalMs: 60_000,
      rolesEveryMs: 0
    },
    { rpc: q.rpc(), ledger, now: () => (now += 10) }
  )
  return w
}

describe('ControllerWatcher', () => {
  it('records the initial leader, master, SyncStateSet and acting masters on start', async () => {
    const q = new FakeQuorum()
    const ledger = new RecordingLedger()
    const w = watcher(q, ledger)
    await w.start()
    await w.stop()
    expect(ledger.events.map((e) => e.kind)).toEqual([
      'controller-leader-changed',
      'master-elected',
      'sync-state-set-changed',
      'masters-observed'
    ])
    expect(ledger.kinds('controller-leader-changed')[0]).toMatchObject({ to: 'ns-1', selfId: 'n0' })
    expect(ledger.kinds('master-elected')[0]).toMatchObject({
      to: 'a-1',
      toRoom: 'room1',
      from: null
    })
    expect(w.masterOf('broker-a')).toBe('a-1')
    expect(w.leader()).toBe('ns-1')
    // The first master is not an election worth an offset sample.
    expect(ledger.kinds('replica-offsets')).toEqual([])
  })

  it('follows a switch and samples the new master’s queue offsets at once', async () => {
    const q = new FakeQuorum()
    const ledger = new RecordingLedger()
    const w = watcher(q, ledger)
    await w.start()
    q.master = 'b2:10911'
    q.epoch = 2
    q.active = new Set(['b2:10911'])
    await w.poll()
    await w.stop()
    expect(ledger.kinds('master-elected')[1]).toMatchObject({
      from: 'a-1',
      to: 'a-2',
      toRoom: 'room2',
      epoch: 2
    })
    expect(ledger.kinds('replica-offsets')).toEqual([
      {
        group: 'broker-a',
        trigger: 'elected',
        master: 'a-2',
        replicas: [{ nodeId: 'a-2', room: 'room2', offsets: { 'orders|0': 40, 'orders|1': 41 } }]
      }
    ])
  })

  it('finds the new leader when the old one dies, and keeps the last view while none answers', async () => {
    const q = new FakeQuorum()
    const ledger = new RecordingLedger()
    const w = watcher(q, ledger)
    await w.start()
    q.down = new Set(['c1:9878', 'c2:9878', 'c3:9878', 'b1:10911', 'b2:10911', 'b3:10911'])
    await w.poll()
    expect(w.leader()).toBe('ns-1')
    expect(w.masterOf('broker-a')).toBe('a-1')
    q.down = new Set(['c1:9878'])
    q.leader = 'c2:9878'
    await w.poll()
    await w.stop()
    expect(w.leader()).toBe('ns-2')
    expect(ledger.kinds('controller-leader-changed').map((d) => d.to)).toEqual(['ns-1', 'ns-2'])
  })

  it('records a quorum without leader, and two replicas acting as master', async () => {
    const q = new FakeQuorum()
    const ledger = new RecordingLedger()
    const w = watcher(q, ledger)
    await w.start()
    q.leader = null
    q.active = new Set(['b1:10911', 'b2:10911'])
    await w.poll()
    await w.stop()
    expect(ledger.kinds('controller-leader-changed')[1]).toMatchObject({ from: 'ns-1', to: null })
    expect(ledger.kinds('masters-observed')[1]).toMatchObject({
      masters: ['a-1', 'a-2'],
      controllerMaster: 'a-1'
    })
  })

  it('samples the surviving replicas for a fault, with null for one that does not answer', async () => {
    const q = new FakeQuorum()
    const ledger = new RecordingLedger()
    const w = watcher(q, ledger, [{ topic: 'orders', queues: 1 }])
    await w.start()
    q.down.add('b3:10911')
    await w.sample('broker-a', 'fault', 'a-1')
    await w.stop()
    expect(ledger.kinds('replica-offsets')[0]).toEqual({
      group: 'broker-a',
      trigger: 'fault',
      master: 'a-1',
      replicas: [
        { nodeId: 'a-2', room: 'room2', offsets: { 'orders|0': 40 } },
        { nodeId: 'a-3', room: 'room3', offsets: null }
      ]
    })
  })

  it('samples nothing when the run has no topics', async () => {
    const ledger = new RecordingLedger()
    const w = watcher(new FakeQuorum(), ledger, [])
    await w.sample('broker-a', 'fault', 'a-1')
    expect(ledger.kinds('replica-offsets')).toEqual([])
  })
})
