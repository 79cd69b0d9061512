import { describe, expect, it } from 'vitest'
import type { Topology } from '../topology/schema'
import { topologySettingsSchema } from '../topology/schema'
import type { ReplayEvent } from './replay-state'
import {
  ReplayCursor,
  applyReplayEvents,
  emptyReplayState,
  replayStateAt,
  replayTopology,
  rowsUpTo
} from './replay-state'
import { replayChoices, replayMarkers, replayNodeStates } from './replay-view'

/** The default two-room topology, reduced to what the reducer reads. */
const topology: Topology = {
  kind: 'drstudio/topology',
  version: 1,
  name: 'two-rooms',
  settings: topologySettingsSchema.parse({}),
  topics: [{ name: 'orders', queues: 4 }],
  rooms: [1, 2].map((r) => ({
    id: `room${r}`,
    name: `Room ${r}`,
    managementNodes: [{ id: `mgmt-${r}` }],
    nameServers: [{ id: `ns-${r}` }],
    brokers: [
      {
        id: `broker-${r}`,
        cluster: 'DrCluster',
        brokerName: r === 1 ? 'broker-a' : 'broker-b',
        role: 'master' as const,
        brokerId: 0
      }
    ],
    proxies: [],
    producers: [
      {
        id: `producer-${r}`,
        topic: 'orders',
        group: 'orders-producer',
        rate: 20,
        messageSize: 256,
        lane: 'remoting' as const
      }
    ],
    consumers: [
      { id: `consumer-${r}`, topic: 'orders', group: 'orders-consumer', lane: 'remoting' as const }
    ]
  }))
}
const topo = replayTopology(topology)

let nextId = 1
function ev(
  atMs: number,
  kind: string,
  clientId: string | null,
  data: Record<string, unknown>,
  room: string | null = null
): ReplayEvent {
  return { id: nextId++, atMs, kind, clientId, room, data }
}

const T0 = 1_700_000_000_000
const at = (s: number) => T0 + s * 1000

/** A recorded broker-kill run: room1's broker is killed at 10 s and restarted at 20 s. */
function brokerKillRun(): ReplayEvent[] {
  return [
    ev(at(0), 'phase', null, { phase: 'workload' }),
    ev(at(0.1), 'client-started', 'producer-1', { role: 'producer', clientKey: 'k1' }, 'room1'),
    ev(at(0.2), 'namesrv-choice', 'producer-1', {
      namesrvId: 'ns-1',
      namesrvRoom: 'room1',
      address: '127.0.0.1:9876',
      reason: 'same room'
    }),
    ev(at(0.3), 'broker-choice', 'producer-1', {
      brokerName: 'broker-a',
      brokerRoom: 'room1',
      reason: 'same room'
    }),
    ev(at(0.1), 'client-started', 'consumer-1', { role: 'consumer', clientKey: 'k2' }, 'room1'),
    ev(at(0.4), 'namesrv-choice', 'consumer-1', {
      namesrvId: 'ns-1',
      namesrvRoom: 'room1',
      address: '127.0.0.1:9876',
      reason: 'same room'
    }),
    ev(at(0.5), 'rebalance', 'consumer-1', {
      trigger: 'start',
      queues: [
        { brokerName: 'broker-a', room: 'room1', queueId: 1 },
        { brokerName: 'broker-a', room: 'room1', queueId: 0 }
      ],
      added: 2,
      removed: 0,
      consumerRooms: { room1: 1, room2: 1 },
      orphanRooms: []
    }),
    ev(at(10), 'fault', null, {
      action: 'kill',
      target: ['broker-1'],
      nodes: ['broker-1'],
      ok: true
    }),
    ev(at(10), 'node-state', null, {
      nodeId: 'broker-1',
      kind: 'broker',
      room: 'room1',
      state: 'killed'
    }),
    ev(at(10.8), 'broker-failover', 'producer-1', {
      from: 'broker-a',
      fromRoom: 'room1',
      to: 'broker-b',
      toRoom: 'room2',
      reason: 'connection refused',
      durationMs: 812,
      key: 'm-1'
    }),
    ev(at(11), 'rebalance', 'consumer-1', {
      trigger: 'route-changed',
      queues: [
        { brokerName: 'broker-b', room: 'room2', queueId: 0 },
        { brokerName: 'broker-b', room: 'room2', queueId: 1 }
      ],
      added: 2,
      removed: 2,
      consumerRooms: { room1: 1, room2: 1 },
      orphanRooms: []
    }),
    ev(at(11), 'consumer-takeover', 'consumer-1', {
      fromRoom: 'room2',
      toRoom: 'room1',
      queues: 2,
      trigger: 'route-changed',
      reason: 'room room1 has no broker serving orders'
    }),
    ev(at(19), 'node-state', null, {
      nodeId: 'broker-1',
      kind: 'broker',
      room: 'room1',
      state: 'starting',
      detail: 'waiting for port 10911'
    }),
    ev(at(20), 'node-state', null, {
      nodeId: 'broker-1',
      kind: 'broker',
      room: 'room1',
      state: 'up'
    }),
    ev(at(20), 'fault', null, {
      action: 'restart',
      target: ['broker-1'],
      nodes: ['broker-1'],
      ok: true
    }),
    ev(at(22), 'broker-choice', 'producer-1', {
      brokerName: 'broker-a',
      brokerRoom: 'room1',
      reason: 'same room again'
    }),
    ev(at(30), 'client-stopped', 'producer-1', { role: 'producer', mode: 'graceful' })
  ]
}

describe('replayStateAt, stalled queues', () => {
  it('shows a consumer’s queue stalled from its lock wait until it is locked, as the live badge does', () => {
    const q = { brokerName: 'broker-a', brokerRoom: 'room1', queueId: 2 }
    const run = [
      ev(at(1), 'queue-lock-wait', 'consumer-2', { ...q, reason: 'held by another client' }),
      ev(at(4), 'queue-locked', 'consumer-2', { ...q, waitedMs: 3000 })
    ]
    expect(replayStateAt(run, at(0.5), topo).stalls).toEqual({})
    expect(replayStateAt(run, at(2), topo).stalls).toEqual({
      'consumer-2': [{ queue: 'broker-a#2', cause: 'lock' }]
    })
    expect(replayStateAt(run, at(5), topo).stalls).toEqual({})
  })

  it('shows a queue whose pulls fail stalled until it answers again', () => {
    const q = { brokerName: 'broker-a', brokerRoom: 'room1', queueId: 1 }
    const run = [
      ev(at(1), 'pull-failed', 'consumer-1', { ...q, reason: 'reset' }),
      ev(at(6), 'pull-resumed', 'consumer-1', { ...q, stalledMs: 5000 })
    ]
    expect(replayStateAt(run, at(3), topo).stalls).toEqual({
      'consumer-1': [{ queue: 'broker-a#1', cause: 'unreachable' }]
    })
    expect(replayStateAt(run, at(7), topo).stalls).toEqual({})
  })
})

describe('replayStateAt', () => {
  const run = brokerKillRun()

  it('before the first row nothing is known: clients stopped, servers up', () => {
    const s = replayStateAt(run, at(-1), topo)
    expect(s.applied).toBe(0)
    expect(replayChoices(s)).toEqual({})
    const states = replayNodeStates(s, topo)
    expect(states['broker-1']).toBe('up')
    expect(states['producer-1']).toBe('stopped')
  })

  it('a healthy start: producer-1 uses its own room name server and broker', () => {
    const s = replayStateAt(run, at(5), topo)
    expect(s.phase).toBe('workload')
    expect(replayChoices(s)['producer-1']).toEqual({
      clientId: 'producer-1',
      namesrvId: 'ns-1',
      brokerId: 'broker-1',
      room: 'room1'
    })
    expect(replayNodeStates(s, topo)['producer-1']).toBe('up')
  })

  it('a consumer edge ends at the broker of its own room among its queues', () => {
    const s = replayStateAt(run, at(5), topo)
    expect(s.clients['consumer-1']!.brokerId).toBe('broker-1')
    expect(s.clients['consumer-1']!.queues).toHaveLength(2)
  })

  it('at the kill the broker is killed and a fault is active, but the edge has not moved yet', () => {
    const s = replayStateAt(run, at(10), topo)
    expect(s.nodes['broker-1']!.state).toBe('killed')
    expect(s.faults).toEqual([{ at: at(10), action: 'kill', nodeId: 'broker-1' }])
    expect(s.clients['producer-1']!.brokerId).toBe('broker-1')
    expect(s.failovers).toEqual([])
  })

  it("producer-1's edge moves at its failover row, which is listed", () => {
    const before = replayStateAt(run, at(10.8) - 1, topo)
    const after = replayStateAt(run, at(10.8), topo)
    expect(before.clients['producer-1']!.brokerId).toBe('broker-1')
    expect(after.clients['producer-1']!.brokerId).toBe('broker-2')
    expect(after.clients['producer-1']!.brokerRoom).toBe('room2')
    expect(after.clients['producer-1']!.lastFailoverAt).toBe(at(10.8))
    expect(after.failovers).toEqual([
      {
        at: at(10.8),
        clientId: 'producer-1',
        kind: 'broker',
        from: 'broker-a',
        fromRoom: 'room1',
        to: 'broker-b',
        toRoom: 'room2',
        durationMs: 812
      }
    ])
  })

  it('a consumer takeover is a failover and the consumer edge follows its new queues', () => {
    const s = replayStateAt(run, at(12), topo)
    expect(s.clients['consumer-1']!.brokerId).toBe('broker-2')
    expect(s.failovers.map((f) => [f.clientId, f.kind, f.fromRoom, f.toRoom])).toEqual([
      ['producer-1', 'broker', 'room1', 'room2'],
      ['consumer-1', 'consumer-takeover', 'room2', 'room1']
    ])
  })

  it('node-state rows carry the detail of a restart in progress', () => {
    const s = replayStateAt(run, at(19.5), topo)
    expect(s.nodes['broker-1']).toEqual({
      state: 'starting',
      since: at(19),
      detail: 'waiting for port 10911'
    })
    expect(s.faults).toHaveLength(1)
  })

  it('the restart ends the fault; the producer returns to its room', () => {
    const s = replayStateAt(run, at(25), topo)
    expect(s.nodes['broker-1']!.state).toBe('up')
    expect(s.faults).toEqual([])
    expect(s.clients['producer-1']!.brokerId).toBe('broker-1')
  })

  it('a stopped client has no edges and reads stopped', () => {
    const s = replayStateAt(run, at(31), topo)
    expect(replayChoices(s)['producer-1']).toBeUndefined()
    expect(replayNodeStates(s, topo)['producer-1']).toBe('stopped')
  })

  it('does not depend on the order rows arrive in', () => {
    const shuffled = [...run].reverse()
    for (const s of [0, 5, 10, 10.8, 11, 19.5, 25, 31]) {
      expect(replayStateAt(shuffled, at(s), topo)).toEqual(replayStateAt(run, at(s), topo))
    }
  })

  it('rows of the same millisecond apply in id order', () => {
    const a = ev(at(1), 'broker-choice', 'producer-1', {
      brokerName: 'broker-a',
      brokerRoom: 'room1'
    })
    const b = ev(at(1), 'broker-choice', 'producer-1', {
      brokerName: 'broker-b',
      brokerRoom: 'room2'
    })
    expect(replayStateAt([b, a], at(1), topo).clients['producer-1']!.brokerId).toBe('broker-2')
  })

  it('does not change the rows or a state it is given', () => {
    const copy = JSON.parse(JSON.stringify(run)) as ReplayEvent[]
    const s = replayStateAt(run, at(5), topo)
    const frozen = JSON.stringify(s)
    applyReplayEvents(s, run, topo)
    expect(JSON.stringify(s)).toBe(frozen)
    expect(run).toEqual(copy)
  })
})

describe('faults without node-state rows (older runs)', () => {
  const cases: [string, string][] = [
    ['kill', 'killed'],
    ['pause', 'paused'],
    ['stop', 'stopped'],
    ['resume', 'up'],
    ['restart', 'up'],
    ['start', 'up']
  ]
  it.each(cases)('%s leaves a server %s', (action, state) => {
    const s = replayStateAt(
      [ev(at(1), 'fault', null, { action, target: ['ns-1'], nodes: ['ns-1'], ok: true })],
      at(2),
      topo
    )
    expect(replayNodeStates(s, topo)['ns-1']).toBe(state)
  })

  it('pause then resume clears the fault; a failed fault changes nothing', () => {
    const rows = [
      ev(at(1), 'fault', null, { action: 'pause', nodes: ['broker-2'], target: [], ok: true }),
      ev(at(2), 'fault', null, { action: 'kill', nodes: ['ns-2'], ok: false, error: 'no pid' }),
      ev(at(3), 'fault', null, { action: 'resume', nodes: ['broker-2'], ok: true })
    ]
    expect(replayStateAt(rows, at(2), topo).faults.map((f) => f.nodeId)).toEqual(['broker-2'])
    expect(replayStateAt(rows, at(2), topo).nodes['ns-2']).toBeUndefined()
    expect(replayStateAt(rows, at(3), topo).faults).toEqual([])
  })

  it('a kill of a client stops it (killed), a start brings it back', () => {
    const rows = [
      ev(at(0), 'client-started', 'consumer-2', { role: 'consumer' }, 'room2'),
      ev(at(0), 'namesrv-choice', 'consumer-2', { namesrvId: 'ns-2', namesrvRoom: 'room2' }),
      ev(at(1), 'fault', null, { action: 'kill', nodes: ['consumer-2'], ok: true }),
      ev(at(2), 'fault', null, { action: 'start', nodes: ['consumer-2'], ok: true })
    ]
    const killed = replayStateAt(rows, at(1), topo)
    expect(replayNodeStates(killed, topo)['consumer-2']).toBe('killed')
    expect(replayChoices(killed)['consumer-2']).toBeUndefined()
    const back = replayStateAt(rows, at(2), topo)
    expect(replayNodeStates(back, topo)['consumer-2']).toBe('up')
    expect(replayChoices(back)['consumer-2']?.namesrvId).toBe('ns-2')
  })

  it('a crash stop reads killed; observed-down shows as down', () => {
    const rows = [
      ev(at(0), 'client-started', 'producer-2', { role: 'producer' }, 'room2'),
      ev(at(1), 'client-stopped', 'producer-2', { role: 'producer', mode: 'crash' }),
      ev(at(1), 'node-state', null, {
        nodeId: 'ns-2',
        kind: 'nameserver',
        room: 'room2',
        state: 'observed-down'
      })
    ]
    const states = replayNodeStates(replayStateAt(rows, at(1), topo), topo)
    expect(states['producer-2']).toBe('killed')
    expect(states['ns-2']).toBe('down')
  })
})

describe('network faults', () => {
  it('are active from their row until healed by id', () => {
    const rows = [
      ev(at(1), 'network-fault', null, {
        faultId: 'f1',
        action: 'partition',
        target: ['room1'],
        peer: ['room2']
      }),
      ev(at(2), 'network-fault', null, {
        faultId: 'f2',
        action: 'delay',
        target: ['room1'],
        peer: ['room2'],
        delayMs: 200,
        jitterMs: 20
      }),
      ev(at(3), 'network-heal', null, { faultId: 'f1' })
    ]
    expect(replayStateAt(rows, at(0), topo).networkFaults).toEqual([])
    expect(replayStateAt(rows, at(2), topo).networkFaults.map((f) => f.key)).toEqual(['f1', 'f2'])
    const healed = replayStateAt(rows, at(3), topo).networkFaults
    expect(healed).toEqual([
      {
        at: at(2),
        key: 'f2',
        action: 'delay',
        target: ['room1'],
        peer: ['room2'],
        params: { delayMs: 200, jitterMs: 20 }
      }
    ])
  })

  it('a heal by ends undoes the faults on those ends; a bare heal undoes all', () => {
    const rows = [
      ev(at(1), 'network-fault', null, { action: 'isolate', target: ['broker-1'] }),
      ev(at(1), 'network-fault', null, { action: 'loss', target: ['room2'], lossPercent: 30 }),
      ev(at(2), 'network-heal', null, { target: ['broker-1'] }),
      ev(at(3), 'network-heal', null, {})
    ]
    expect(replayStateAt(rows, at(2), topo).networkFaults.map((f) => f.action)).toEqual(['loss'])
    expect(replayStateAt(rows, at(3), topo).networkFaults).toEqual([])
  })

  it('a failed network fault is not active', () => {
    const rows = [
      ev(at(1), 'network-fault', null, { action: 'isolate', target: ['ns-1'], ok: false })
    ]
    expect(replayStateAt(rows, at(2), topo).networkFaults).toEqual([])
  })
})

describe('robustness', () => {
  it('ignores unknown kinds and malformed data', () => {
    const rows = [
      ev(at(1), 'counters', 'producer-1', { sent: 1 }),
      ev(at(1), 'something-new', null, { x: 1 }),
      ev(at(1), 'node-state', null, { state: 'up' }),
      ev(at(1), 'namesrv-view', null, { brokers: [] }),
      ev(at(1), 'broker-choice', null, { brokerName: 'broker-a' }),
      ev(at(1), 'rebalance', 'consumer-1', { queues: 'nope' })
    ]
    const s = replayStateAt(rows, at(2), topo)
    expect(s.applied).toBe(6)
    expect(s.nodes).toEqual({})
    expect(s.views).toEqual({})
    expect(s.clients['consumer-1']!.queues).toEqual([])
  })

  it('a broker name the topology does not know keeps its name but has no node', () => {
    const s = replayStateAt(
      [ev(at(1), 'broker-choice', 'producer-1', { brokerName: 'broker-z', brokerRoom: null })],
      at(1),
      topo
    )
    expect(s.clients['producer-1']).toMatchObject({ brokerName: 'broker-z', brokerId: null })
  })

  it('keeps the latest sample of each name server', () => {
    const rows = [
      ev(at(1), 'namesrv-view', null, {
        namesrvId: 'ns-1',
        room: 'room1',
        brokers: [{ brokerName: 'broker-a', address: 'a', room: 'room1' }]
      }),
      ev(at(2), 'namesrv-view', null, {
        namesrvId: 'ns-1',
        room: 'room1',
        brokers: [],
        error: 'timeout'
      })
    ]
    expect(replayStateAt(rows, at(1), topo).views['ns-1']!.brokers).toEqual([
      { brokerName: 'broker-a', room: 'room1' }
    ])
    expect(replayStateAt(rows, at(2), topo).views['ns-1']).toEqual({
      at: at(2),
      brokers: [],
      error: 'timeout'
    })
  })

  it('works without a topology (names only)', () => {
    const s = replayStateAt(brokerKillRun(), at(12), replayTopology(null))
    expect(s.clients['producer-1']).toMatchObject({ brokerName: 'broker-b', brokerId: null })
  })
})

describe('ReplayCursor', () => {
  const run = brokerKillRun()
  const times = [
    ...new Set([at(-1), ...run.flatMap((e) => [e.atMs - 1, e.atMs, e.atMs + 1]), at(40)])
  ].sort((a, b) => a - b)

  it('agrees with replayStateAt at every row time, forwards', () => {
    const cursor = new ReplayCursor(run, topo, 3)
    for (const t of times) expect(cursor.seek(t)).toEqual(replayStateAt(run, t, topo))
  })

  it('agrees backwards and on random jumps (checkpoints every 2 rows)', () => {
    const cursor = new ReplayCursor([...run].reverse(), topo, 2)
    for (const t of [...times].reverse())
      expect(cursor.seek(t)).toEqual(replayStateAt(run, t, topo))
    let seed = 7
    const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647
    for (let i = 0; i < 200; i++) {
      const t = times[Math.floor(rand() * times.length)]!
      expect(cursor.seek(t)).toEqual(replayStateAt(run, t, topo))
    }
  })

  it('reports the span of the run and an empty run has none', () => {
    expect(new ReplayCursor(run, topo).span).toEqual({ startMs: at(0), endMs: at(30) })
    const empty = new ReplayCursor([], topo)
    expect(empty.span).toBeNull()
    expect(empty.seek(at(1))).toEqual({ ...emptyReplayState(), t: at(1) })
  })
})

describe('rowsUpTo', () => {
  it('counts rows at or before t', () => {
    const rows = [1, 2, 2, 3].map((s) => ev(s, 'phase', null, {}))
    expect([0, 1, 2, 3, 4].map((t) => rowsUpTo(rows, t))).toEqual([0, 1, 3, 4, 4])
  })
})

describe('replayMarkers', () => {
  it('marks faults, failovers and network changes in time order', () => {
    const rows = [
      ...brokerKillRun(),
      ev(at(15), 'network-fault', null, {
        action: 'partition',
        target: ['room1'],
        peer: ['room2']
      }),
      ev(at(16), 'network-heal', null, { target: ['room1'], peer: ['room2'] })
    ]
    expect(replayMarkers(rows).map((m) => [m.atMs - T0, m.kind, m.label])).toEqual([
      [10_000, 'fault', 'kill broker-1'],
      [10_800, 'failover', 'producer-1 broker → broker-b'],
      [11_000, 'failover', "consumer-1 takes over room2's queues"],
      [15_000, 'network', 'partition room1 ↔ room2'],
      [16_000, 'network', 'heal room1 ↔ room2'],
      [20_000, 'fault', 'restart broker-1']
    ])
  })
})
