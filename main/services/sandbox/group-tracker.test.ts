import { describe, expect, it } from 'vitest'
import type { ReplicasInfo } from '../remoting/types'
import type { ControllerEndpoint, ControllerProbe } from './controller-readiness'
import type { WriteOutcome } from './group-readiness'
import type { GroupTrackerDeps, TrackedReplica } from './group-tracker'
import { trackGroups } from './group-tracker'
import type { NodeState } from './state'

/** A replica as the tracker sees it, recording every state it is given. */
class Replica {
  readyInMs?: number
  jvmUpAt?: number
  detail?: string
  readonly history: NodeState[] = []
  readonly logFile: string
  readonly host = '127.0.0.1'
  readonly node: TrackedReplica['node']

  constructor(
    readonly id: string,
    readonly port: number,
    public state: NodeState = 'electing'
  ) {
    const group = id.replace(/-\d+$/, '')
    this.node = { kind: 'broker', id, room: 'r', spec: { brokerName: group } } as never
    this.logFile = `/runs/${id}/out.log`
  }

  setState(state: NodeState, detail?: string): void {
    this.state = state
    this.detail = detail
    this.history.push(state)
  }
}

const LEADER: ControllerEndpoint = {
  nodeId: 'ns-1',
  room: 'r',
  address: 'ctl:1',
  selfId: 'n0',
  embedded: true
}

/** A clock whose sleep only moves time. */
function fakeClock() {
  let t = 1_000
  return { now: () => t, sleep: async (ms: number) => void (t += ms) }
}

interface World {
  /** Per poll: each group's master address, set (addresses) and the write's outcome. */
  groups: Record<string, { master: string | null; inSync: string[]; write?: WriteOutcome }>
  leader: boolean
  onPoll?: (poll: number) => void
}

function setup(replicas: Replica[], world: World) {
  const clock = fakeClock()
  const progress: string[] = []
  const writes: string[] = []
  let polls = 0
  const probe: ControllerProbe = {
    metadata: async () => ({
      group: 'g',
      leaderId: 'n0',
      leaderAddress: world.leader ? LEADER.address : null,
      isLeader: true,
      peers: []
    }),
    syncStateData: async (_leader, groups) => {
      world.onPoll?.(++polls)
      const out: Record<string, ReplicasInfo> = {}
      for (const g of groups) {
        const w = world.groups[g]
        if (!w) continue
        out[g] = {
          masterBrokerId: w.master ? 1 : null,
          masterAddress: w.master,
          masterEpoch: 1,
          syncStateSetEpoch: 1,
          inSyncReplicas: w.inSync.map((a) => ({
            brokerName: g,
            brokerId: 1,
            brokerAddress: a,
            alive: true
          })),
          notInSyncReplicas: []
        }
      }
      return out
    }
  }
  const deps: GroupTrackerDeps = {
    probe: () => probe,
    writes: () => ({
      send: async (address, group) => {
        writes.push(`${group}@${address}`)
        return world.groups[group]?.write ?? { kind: 'acked' }
      }
    }),
    controllers: () => [LEADER],
    nodes: () => replicas,
    clock,
    progress: (_id, m) => progress.push(m)
  }
  return { deps, clock, progress, writes, polls: () => polls }
}

const addr = (r: Replica) => `${r.host}:${r.port}`
const ctrl = () => new AbortController().signal

describe('trackGroups', () => {
  it('moves a group electing → syncing → up, and up only with a write acked by the whole set', async () => {
    const rs = [
      new Replica('broker-a-1', 1),
      new Replica('broker-a-2', 2),
      new Replica('broker-a-3', 3)
    ]
    const world: World = { leader: true, groups: {} }
    world.onPoll = (n) => {
      if (n === 1) world.groups['broker-a'] = { master: null, inSync: [] }
      if (n === 2)
        world.groups['broker-a'] = {
          master: addr(rs[0]!),
          inSync: [addr(rs[0]!)],
          write: { kind: 'refused', reason: 'code 14' }
        }
      if (n === 3) world.groups['broker-a'] = { master: addr(rs[0]!), inSync: [addr(rs[0]!)] }
      if (n === 5) world.groups['broker-a']!.inSync = rs.map(addr)
    }
    const { deps, progress, writes } = setup(rs, world)
    await trackGroups(deps, rs, { timeoutMs: 60_000, signal: ctrl(), strict: true })
    for (const r of rs) {
      // Every change of what it waits for is a state change (the ledger records each).
      expect(r.history).toEqual(['electing', 'electing', 'syncing', 'up'])
      expect(r.state).toBe('up')
      // Polls 1-4 slept 250 ms each before the fifth found the group ready.
      expect(r.readyInMs).toBe(1000)
      expect(r.detail).toBe(
        'broker-a ready in 1.0 s: master broker-a-1 acknowledged a write with broker-a-1, broker-a-2, broker-a-3 in its SyncStateSet'
      )
    }
    expect(writes).toEqual(Array(4).fill('broker-a@127.0.0.1:1'))
    // One line per change, not per poll.
    expect(progress).toEqual([
      'broker-a electing: waiting for the controllers to elect a master of broker-a',
      'broker-a electing: waiting for broker-a-1, which the controllers named master of broker-a, to accept a write (code 14)',
      'broker-a syncing: waiting for broker-a-2, broker-a-3 to join the SyncStateSet of broker-a (now broker-a-1); master broker-a-1 acknowledges writes',
      'broker-a ready in 1.0 s: master broker-a-1 acknowledged a write with broker-a-1, broker-a-2, broker-a-3 in its SyncStateSet'
    ])
  })

  it('tracks two groups at once; each goes up when it is ready', async () => {
    const a = [new Replica('broker-a-1', 1), new Replica('broker-a-2', 2)]
    const b = [new Replica('broker-b-1', 3), new Replica('broker-b-2', 4)]
    const world: World = {
      leader: true,
      groups: {
        'broker-a': { master: addr(a[0]!), inSync: a.map(addr) },
        'broker-b': { master: addr(b[1]!), inSync: [addr(b[1]!)] }
      }
    }
    world.onPoll = (n) => {
      if (n === 3) world.groups['broker-b']!.inSync = b.map(addr)
    }
    const { deps, writes } = setup([...a, ...b], world)
    await trackGroups(deps, [...a, ...b], { timeoutMs: 60_000, signal: ctrl(), strict: true })
    expect(a.map((r) => r.readyInMs)).toEqual([0, 0])
    expect(b.map((r) => r.readyInMs)).toEqual([500, 500])
    expect(b[0]!.history).toEqual(['syncing', 'up'])
    // A ready group is not written to again.
    expect(writes.filter((w) => w.startsWith('broker-a'))).toHaveLength(1)
  })

  it('counts each replica from its own JVM up: an early boot wave waited longer', async () => {
    const rs = [new Replica('broker-a-1', 1), new Replica('broker-a-2', 2)]
    const world: World = {
      leader: true,
      groups: { 'broker-a': { master: addr(rs[0]!), inSync: rs.map(addr) } }
    }
    const { deps, clock } = setup(rs, world)
    rs[0]!.jvmUpAt = clock.now() - 20_000
    await trackGroups(deps, rs, { timeoutMs: 60_000, signal: ctrl(), strict: true })
    expect(rs.map((r) => r.readyInMs)).toEqual([20_000, 0])
    expect(rs[0]!.detail).toMatch(/^broker-a ready in 20\.0 s/)
  })

  it('says so when no controller names a leader', async () => {
    const rs = [new Replica('broker-a-1', 1)]
    const world: World = { leader: false, groups: {} }
    world.onPoll = () => undefined
    const { deps, progress, clock } = setup(rs, world)
    const t0 = clock.now()
    await expect(
      trackGroups(deps, rs, { timeoutMs: 1000, signal: ctrl(), strict: true })
    ).rejects.toThrow(
      'Controller-mode groups not ready after 1 s: broker-a electing, waiting for the controllers: no controller names a leader.'
    )
    expect(clock.now() - t0).toBe(1000)
    expect(progress).toEqual([
      'broker-a electing: waiting for the controllers: no controller names a leader'
    ])
  })

  it('at Start, a group not ready in time fails the boot naming what it waited for and where to look', async () => {
    const rs = [new Replica('broker-a-1', 1), new Replica('broker-a-2', 2)]
    const world: World = {
      leader: true,
      groups: { 'broker-a': { master: addr(rs[0]!), inSync: [addr(rs[0]!)] } }
    }
    const { deps } = setup(rs, world)
    const err = await trackGroups(deps, rs, {
      timeoutMs: 2000,
      signal: ctrl(),
      strict: true
    }).catch((e: Error & { code?: string }) => e)
    expect(err).toMatchObject({ code: 'boot-timeout' })
    expect((err as Error).message).toContain(
      'broker-a syncing, waiting for broker-a-2 to join the SyncStateSet of broker-a (now broker-a-1)'
    )
    expect((err as Error).message).toContain('/runs/broker-a-2/out.log')
    expect(rs.map((r) => r.state)).toEqual(['syncing', 'syncing'])
  })

  it('at Start, a replica that dies while its group gets ready fails the boot naming it', async () => {
    const rs = [new Replica('broker-a-1', 1), new Replica('broker-a-2', 2)]
    const world: World = {
      leader: true,
      groups: { 'broker-a': { master: addr(rs[0]!), inSync: [addr(rs[0]!)] } }
    }
    world.onPoll = (n) => {
      if (n === 2) rs[1]!.setState('down', 'exited unexpectedly (exit code 1)')
    }
    const { deps } = setup(rs, world)
    await expect(
      trackGroups(deps, rs, { timeoutMs: 60_000, signal: ctrl(), strict: true })
    ).rejects.toThrow(
      'Broker broker-a-2 went down while broker-a was getting ready (exited unexpectedly (exit code 1)). Check its log: /runs/broker-a-2/out.log'
    )
  })

  it('after a restart, gives up quietly: the replica keeps its state and says the wait ended', async () => {
    const rs = [new Replica('broker-a-1', 1)]
    const world: World = {
      leader: true,
      groups: { 'broker-a': { master: 'other:9', inSync: ['other:9'] } }
    }
    const { deps, progress } = setup(rs, world)
    await trackGroups(deps, rs, { timeoutMs: 500, signal: ctrl(), strict: false })
    expect(rs[0]!.state).toBe('syncing')
    expect(rs[0]!.detail).toBe(
      'waiting for broker-a-1 to join the SyncStateSet of broker-a (now other:9); master other:9 acknowledges writes (DR Studio stopped waiting after 0.5 s)'
    )
    expect(progress.at(-1)).toMatch(/^stopped waiting after 0.5 s: broker-a syncing/)
  })

  it('after a restart, a replica killed while a poll is in flight stays killed', async () => {
    const rs = [new Replica('broker-a-1', 1)]
    const world: World = {
      leader: true,
      groups: { 'broker-a': { master: addr(rs[0]!), inSync: [addr(rs[0]!)] } }
    }
    world.onPoll = () => rs[0]!.setState('killed')
    const { deps } = setup(rs, world)
    await trackGroups(deps, rs, { timeoutMs: 60_000, signal: ctrl(), strict: false })
    expect(rs[0]!.history).toEqual(['killed'])
    expect(rs[0]!.readyInMs).toBeUndefined()
  })

  it('stops at once when aborted (the sandbox stopped)', async () => {
    const rs = [new Replica('broker-a-1', 1)]
    const abort = new AbortController()
    const world: World = { leader: true, groups: {} }
    world.onPoll = () => abort.abort(new Error('stopped'))
    const { deps, polls } = setup(rs, world)
    await expect(
      trackGroups(deps, rs, { timeoutMs: 60_000, signal: abort.signal, strict: false })
    ).rejects.toThrow('stopped')
    expect(polls()).toBe(1)
    expect(rs[0]!.history).toEqual([])
  })

  it('returns at once for replicas already up (another tracker got there first)', async () => {
    const rs = [new Replica('broker-a-1', 1, 'up')]
    const { deps, polls } = setup(rs, { leader: true, groups: {} })
    await trackGroups(deps, rs, { timeoutMs: 60_000, signal: ctrl(), strict: true })
    expect(polls()).toBe(0)
  })
})
