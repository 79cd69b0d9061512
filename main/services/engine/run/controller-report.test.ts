import { describe, expect, it } from 'vitest'
import type { StoredEvent } from '../../ledger/ledger-reader'
import { controllerReportOf, takeoversOf } from './controller-report'

// Hand-made ledgers of controller-mode runs: what the watcher records (leader, masters,
// SyncStateSets) and the faults the run applied, as the report snapshot holds them.

const T0 = 100_000
const ROOMS = {
  'broker-a-1': 'room1',
  'broker-a-2': 'room2',
  'broker-a-3': 'room3',
  'broker-a-4': 'room1',
  'broker-b-1': 'room1',
  'broker-b-2': 'room2',
  'ns-1': 'room1',
  'ns-2': 'room2',
  'ns-3': 'room3'
}

/** A small ledger builder: ids in call order, times in ms after T0. */
function ledger() {
  const events: StoredEvent[] = []
  const add = (at: number, kind: string, data: Record<string, unknown>): StoredEvent => {
    const e = { id: events.length + 1, atMs: T0 + at, kind, clientId: null, room: null, data }
    events.push(e)
    return e
  }
  const b = {
    events,
    leader: (at: number, to: string | null, from: string | null = null) =>
      add(at, 'controller-leader-changed', { from, to, selfId: null, address: null }) && b,
    master: (at: number, group: string, from: string | null, to: string | null) =>
      add(at, 'master-elected', {
        group,
        from,
        fromRoom: from ? ROOMS[from as keyof typeof ROOMS] : null,
        to,
        toRoom: to ? ROOMS[to as keyof typeof ROOMS] : null,
        epoch: 1,
        toAddress: null
      }) && b,
    inSync: (at: number, group: string, master: string | null, inSync: string[]) =>
      add(at, 'sync-state-set-changed', {
        group,
        epoch: 1,
        syncStateSetEpoch: 1,
        master,
        inSync,
        notInSync: []
      }) && b,
    fault: (at: number, action: string, nodes: string[], ok = true) =>
      add(at, 'fault', { action, target: nodes, nodes, ok }) && b
  }
  return b
}

/** Start of a healthy three-replica group: ns-1 leads, broker-a-1 master, all in sync. */
const healthy = () =>
  ledger()
    .leader(-5000, 'ns-1')
    .master(-5000, 'broker-a', null, 'broker-a-1')
    .inSync(-5000, 'broker-a', 'broker-a-1', ['broker-a-1', 'broker-a-2', 'broker-a-3'])

describe('takeoversOf', () => {
  it('a killed master replaced in another room: who, where and how fast', () => {
    const l = healthy()
      .fault(5000, 'kill', ['broker-a-1'])
      .master(5400, 'broker-a', 'broker-a-1', 'broker-a-3')
      .inSync(5400, 'broker-a', 'broker-a-3', ['broker-a-2', 'broker-a-3'])
    expect(takeoversOf(l.events, T0, ROOMS)).toEqual([
      {
        group: 'broker-a',
        atMs: 5000,
        fault: 'kill',
        master: 'broker-a-1',
        masterRoom: 'room1',
        inSync: ['broker-a-1', 'broker-a-2', 'broker-a-3'],
        to: 'broker-a-3',
        toRoom: 'room3',
        afterMs: 400,
        reason: null
      }
    ])
  })

  it('the run seen on a quiet machine: no master from the kill until the restart, the old one back', () => {
    // The SyncStateSet had shrunk to the master alone before the kill: nobody could be elected.
    const l = healthy()
      .inSync(2000, 'broker-a', 'broker-a-1', ['broker-a-1'])
      .fault(5000, 'kill', ['broker-a-1'])
      .master(5200, 'broker-a', 'broker-a-1', null)
      .fault(12_000, 'restart', ['broker-a-1'])
      .master(19_100, 'broker-a', null, 'broker-a-1')
    const [t] = takeoversOf(l.events, T0, ROOMS)
    expect(t).toMatchObject({ to: null, toRoom: null, afterMs: null, inSync: ['broker-a-1'] })
    expect(t!.reason).toBe(
      'no replica in the SyncStateSet of broker-a when its master broker-a-1 was killed; ' +
        'SyncStateSet was [broker-a-1]; no master from 0.2 s after the fault; ' +
        'broker-a-1 was master again 14.1 s after the fault'
    )
    // The report's elections list shows only the loss (from null is "first seen"), not a switch.
    const r = controllerReportOf(
      { sends: [], changes: [], samples: [], events: l.events },
      T0,
      ROOMS
    )
    expect(r.elections.map((e) => [e.from, e.to])).toEqual([['broker-a-1', null]])
    expect(r.takeovers).toHaveLength(1)
  })

  it('reads the ledger in time order: a fault row is written after what the controllers did during it', () => {
    // Insertion order (as the ledger's ids say): the election row lands before the fault row,
    // which carries the time its action started. Taken in id order, the new master would already
    // be master at the fault, and the fault would hit nobody.
    const l = healthy()
    l.master(5300, 'broker-a', 'broker-a-1', 'broker-a-2')
    l.fault(5000, 'kill', ['broker-a-1'])
    // At the very millisecond of the fault, too: the fault comes first.
    const m = healthy()
    m.master(5000, 'broker-a', 'broker-a-1', 'broker-a-2')
    m.fault(5000, 'kill', ['broker-a-1'])
    for (const events of [l.events, m.events]) {
      const [t] = takeoversOf(events, T0, ROOMS)
      expect(t).toMatchObject({ master: 'broker-a-1', to: 'broker-a-2', toRoom: 'room2' })
    }
  })

  it('a re-election of the old master is not a new master', () => {
    const l = healthy()
      .fault(5000, 'kill', ['broker-a-1'])
      .master(5100, 'broker-a', 'broker-a-1', null)
      .master(9000, 'broker-a', null, 'broker-a-1')
    const [t] = takeoversOf(l.events, T0, ROOMS)
    expect(t!.to).toBeNull()
    expect(t!.reason).toBe(
      'the controllers named no other master although broker-a-2, broker-a-3 were in its ' +
        'SyncStateSet [broker-a-1, broker-a-2, broker-a-3]; no master from 0.1 s after the fault; ' +
        'broker-a-1 was master again 4.0 s after the fault'
    )
  })

  it('a new master in the same room is reported as such (the gate judges the room)', () => {
    const l = healthy()
      .inSync(0, 'broker-a', 'broker-a-1', ['broker-a-1', 'broker-a-4'])
      .fault(5000, 'kill', ['broker-a-1'])
      .master(5500, 'broker-a', 'broker-a-1', 'broker-a-4')
    expect(takeoversOf(l.events, T0, ROOMS)[0]).toMatchObject({
      masterRoom: 'room1',
      to: 'broker-a-4',
      toRoom: 'room1',
      reason: null
    })
  })

  it('names every other in-sync replica that was out too, and how', () => {
    const l = healthy()
      .fault(1000, 'kill', ['broker-a-3'])
      .fault(2000, 'pause', ['broker-a-2'])
      .fault(5000, 'kill', ['broker-a-1'])
      .master(5100, 'broker-a', 'broker-a-1', null)
    expect(takeoversOf(l.events, T0, ROOMS)[0]!.reason).toBe(
      'every other replica in the SyncStateSet of broker-a was out when its master broker-a-1 ' +
        'was killed: broker-a-2 paused, broker-a-3 killed; no master from 0.1 s after the fault'
    )
  })

  it('a replica brought back before the fault is not out', () => {
    const l = healthy()
      .fault(1000, 'kill', ['broker-a-3'])
      .fault(2000, 'pause', ['broker-a-2'])
      .fault(3000, 'resume', ['broker-a-2'])
      .fault(5000, 'kill', ['broker-a-1'])
      .master(5100, 'broker-a', 'broker-a-1', null)
    expect(takeoversOf(l.events, T0, ROOMS)[0]!.reason).toMatch(
      /^the controllers named no other master although broker-a-2 was in its SyncStateSet/
    )
  })

  it('replicas killed with the master by the same fault are out too', () => {
    const l = healthy()
      .fault(5000, 'kill', ['broker-a-1', 'broker-a-2', 'broker-a-3'])
      .master(5100, 'broker-a', 'broker-a-1', null)
    expect(takeoversOf(l.events, T0, ROOMS)[0]!.reason).toMatch(
      /was out when its master broker-a-1 was killed: broker-a-2 killed, broker-a-3 killed;/
    )
  })

  it('the leader controller killed with the master and no leader after it', () => {
    const l = healthy().fault(5000, 'kill', ['ns-1', 'broker-a-1']).leader(5100, null, 'ns-1')
    expect(takeoversOf(l.events, T0, ROOMS)[0]!.reason).toBe(
      'the controllers had no leader: ns-1 was killed with the master and no other controller took over'
    )
    // With a new leader the reason is the controllers' silence, not the leader.
    l.leader(6000, 'ns-2', null)
    expect(takeoversOf(l.events, T0, ROOMS)[0]!.reason).toBe(
      'the controllers kept naming broker-a-1 master of broker-a after it was killed'
    )
  })

  it('a paused master the controllers never noticed', () => {
    const l = healthy().fault(5000, 'pause', ['broker-a-1']).fault(8000, 'resume', ['broker-a-1'])
    expect(takeoversOf(l.events, T0, ROOMS)[0]).toMatchObject({
      fault: 'pause',
      to: null,
      reason: 'the controllers kept naming broker-a-1 master of broker-a after it was paused'
    })
  })

  it('a SyncStateSet the watcher never read', () => {
    const l = ledger()
      .leader(-5000, 'ns-1')
      .master(-5000, 'broker-a', null, 'broker-a-1')
      .fault(5000, 'kill', ['broker-a-1'])
    expect(takeoversOf(l.events, T0, ROOMS)[0]).toMatchObject({
      inSync: null,
      reason:
        'the controllers never reported the SyncStateSet of broker-a before its master broker-a-1 was killed'
    })
  })

  it('a cut of the master’s room is a takeover; a heal undoes a cut of the other replicas', () => {
    const l = healthy()
      .fault(5000, 'isolate', ['room1'])
      .master(16_000, 'broker-a', 'broker-a-1', 'broker-a-2')
    expect(takeoversOf(l.events, T0, ROOMS)[0]).toMatchObject({
      fault: 'isolate',
      masterRoom: 'room1',
      to: 'broker-a-2',
      afterMs: 11_000
    })
    const m = healthy()
      .fault(1000, 'isolate', ['room2'])
      .fault(2000, 'partition', ['room3', 'room1'])
      .master(2100, 'broker-a', 'broker-a-1', null)
    // The partition names room1: it takes the master out; room2 and room3 are cut off too.
    expect(takeoversOf(m.events, T0, ROOMS)[0]!.reason).toMatch(
      /was cut off \(partition\): broker-a-2 cut off \(isolate\), broker-a-3 cut off \(partition\);/
    )
    const n = healthy()
      .fault(1000, 'isolate', ['room2'])
      .fault(1500, 'heal', [])
      .fault(2000, 'kill', ['broker-a-1'])
      .master(2100, 'broker-a', 'broker-a-1', null)
    expect(takeoversOf(n.events, T0, ROOMS)[0]!.reason).toMatch(/^the controllers named no other/)
  })

  it('ignores faults that miss the master, failed ones, and links that are only slow or lossy', () => {
    const l = healthy()
      .fault(1000, 'isolate', ['room2'])
      .fault(2000, 'kill', ['broker-a-2'])
      .fault(3000, 'kill', ['broker-a-1'], false)
      .fault(4000, 'loss', ['room1', 'room2'])
      .fault(4500, 'delay', ['room1', 'room2'])
      .fault(5000, 'restart', ['broker-a-1'])
    expect(takeoversOf(l.events, T0, ROOMS)).toEqual([])
  })

  it('a fault before the controllers named any master hits nobody', () => {
    const l = ledger().leader(0, 'ns-1').fault(1000, 'kill', ['broker-a-1'])
    expect(takeoversOf(l.events, T0, ROOMS)).toEqual([])
  })

  it('each takeover looks for its election before the next one of the group only', () => {
    const l = healthy()
      .fault(5000, 'kill', ['broker-a-1'])
      .master(5300, 'broker-a', 'broker-a-1', 'broker-a-2')
      .inSync(5300, 'broker-a', 'broker-a-2', ['broker-a-2'])
      .fault(9000, 'kill', ['broker-a-2'])
      .master(9100, 'broker-a', 'broker-a-2', null)
      .fault(12_000, 'restart', ['broker-a-1'])
      .master(15_000, 'broker-a', null, 'broker-a-1')
    const [first, second] = takeoversOf(l.events, T0, ROOMS)
    expect(first).toMatchObject({ master: 'broker-a-1', to: 'broker-a-2', afterMs: 300 })
    // broker-a-1 coming back is a new master for the second takeover (not its own old master).
    expect(second).toMatchObject({ master: 'broker-a-2', inSync: ['broker-a-2'], to: 'broker-a-1' })
    expect(second!.afterMs).toBe(6000)
  })

  it('keeps groups apart: a fault on one group’s master is not another’s', () => {
    const l = healthy()
      .master(-5000, 'broker-b', null, 'broker-b-2')
      .inSync(-5000, 'broker-b', 'broker-b-2', ['broker-b-1', 'broker-b-2'])
      .fault(5000, 'isolate', ['room1'])
      .master(16_000, 'broker-a', 'broker-a-1', 'broker-a-3')
    expect(takeoversOf(l.events, T0, ROOMS).map((t) => [t.group, t.to])).toEqual([
      ['broker-a', 'broker-a-3']
    ])
    const m = healthy()
      .master(-5000, 'broker-b', null, 'broker-b-1')
      .fault(5000, 'kill', ['broker-b-1'])
      .master(5200, 'broker-b', 'broker-b-1', 'broker-b-2')
      .master(5300, 'broker-a', 'broker-a-1', 'broker-a-2')
    expect(takeoversOf(m.events, T0, ROOMS).map((t) => [t.group, t.to])).toEqual([
      ['broker-b', 'broker-b-2']
    ])
  })

  it('learns rooms from the elections when the topology gives none', () => {
    const l = healthy()
      .fault(5000, 'kill', ['broker-a-1'])
      .master(5300, 'broker-a', 'broker-a-1', 'broker-a-2')
    expect(takeoversOf(l.events, T0)[0]).toMatchObject({ masterRoom: 'room1', toRoom: 'room2' })
  })
})

describe('controllerReportOf, split-brain attribution', () => {
  it('names the replica, room and epoch that acknowledged each lost message, times from the workload start', () => {
    const send = (key: string, room: string, queueOffset: number, at: number) => ({
      key,
      topic: 'orders',
      group: 'broker-a',
      room,
      queueId: 0,
      queueOffset,
      ackedAt: T0 + at,
      consumed: false
    })
    const r = controllerReportOf(
      {
        sends: [
          send('k0', 'room1', 0, 100),
          send('k1', 'room1', 1, 200),
          // After broker-a-2 became master at 1000: the deposed master still acknowledged it.
          send('k2', 'room1', 2, 1500),
          send('k3', 'room2', 1, 1200)
        ],
        changes: [
          { group: 'broker-a', at: T0, to: 'broker-a-1', toRoom: 'room1', epoch: 1 },
          { group: 'broker-a', at: T0 + 1000, to: 'broker-a-2', toRoom: 'room2', epoch: 2 }
        ],
        samples: [],
        events: []
      },
      T0,
      ROOMS
    )
    expect(r.groups[0]!.lostBy).toEqual([
      {
        master: 'broker-a-1',
        room: 'room1',
        epoch: 1,
        messages: 2,
        afterSuccessor: 1,
        firstAtMs: 200,
        lastAtMs: 1500,
        keys: ['k1', 'k2']
      }
    ])
  })
})
