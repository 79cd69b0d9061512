import { describe, expect, it } from 'vitest'
import type { ReplicasInfo } from '../remoting/types'
import type { ControllerView } from './controller-view'
import { EMPTY_VIEW, diffViews, groupViewOf, merge } from './controller-view'

const NODES: Record<string, { nodeId: string; room: string }> = {
  'h1:10911': { nodeId: 'a-1', room: 'room1' },
  'h2:10911': { nodeId: 'a-2', room: 'room2' },
  'h3:10911': { nodeId: 'a-3', room: 'room3' }
}
const resolve = (a: string) => NODES[a]
const ROOMS: Record<string, string> = {
  'a-1': 'room1',
  'a-2': 'room2',
  'a-3': 'room3',
  'ns-1': 'room1',
  'ns-2': 'room2'
}
const roomOf = (id: string | null) => (id ? (ROOMS[id] ?? null) : null)

function info(
  master: string | null,
  epoch: number,
  inSync: string[],
  notInSync: string[] = []
): ReplicasInfo {
  const r = (a: string) => ({ brokerName: 'broker-a', brokerId: 1, brokerAddress: a, alive: true })
  return {
    masterBrokerId: master ? 1 : null,
    masterAddress: master,
    masterEpoch: epoch,
    syncStateSetEpoch: epoch,
    inSyncReplicas: inSync.map(r),
    notInSyncReplicas: notInSync.map(r)
  }
}

function view(groups: ControllerView['groups'], leader: string | null = 'ns-1'): ControllerView {
  return {
    ...EMPTY_VIEW,
    leader,
    leaderSelfId: leader ? 'n0' : null,
    leaderAddress: leader ? 'c1:9878' : null,
    groups
  }
}

describe('groupViewOf', () => {
  it('names replicas by node id, sorted, and keeps unknown addresses as they are', () => {
    expect(groupViewOf(info('h2:10911', 2, ['h3:10911', 'h2:10911'], ['x:1']), resolve)).toEqual({
      master: 'a-2',
      masterAddress: 'h2:10911',
      epoch: 2,
      syncStateSetEpoch: 2,
      inSync: ['a-2', 'a-3'],
      notInSync: ['x:1']
    })
  })

  it('reads a set without a master as master null', () => {
    expect(groupViewOf(info(null, 3, []), resolve).master).toBeNull()
  })
})

describe('diffViews', () => {
  const a1 = groupViewOf(info('h1:10911', 1, ['h1:10911', 'h2:10911', 'h3:10911']), resolve)
  const a2 = groupViewOf(info('h2:10911', 2, ['h2:10911'], ['h1:10911', 'h3:10911']), resolve)

  it('records the initial leader, master and SyncStateSet from nothing', () => {
    const events = diffViews(EMPTY_VIEW, view({ 'broker-a': a1 }), roomOf)
    expect(events.map((e) => e.kind)).toEqual([
      'controller-leader-changed',
      'master-elected',
      'sync-state-set-changed'
    ])
    expect(events[1]).toEqual({
      kind: 'master-elected',
      room: 'room1',
      data: {
        group: 'broker-a',
        from: null,
        fromRoom: null,
        to: 'a-1',
        toRoom: 'room1',
        epoch: 1,
        toAddress: 'h1:10911'
      }
    })
  })

  it('says nothing when nothing changed', () => {
    const v = view({ 'broker-a': a1 })
    expect(diffViews(v, v, roomOf)).toEqual([])
  })

  it('records a switch to another room with the new epoch and the shrunken SyncStateSet', () => {
    const events = diffViews(view({ 'broker-a': a1 }), view({ 'broker-a': a2 }), roomOf)
    expect(events.map((e) => e.kind)).toEqual(['master-elected', 'sync-state-set-changed'])
    expect(events[0]!.data).toMatchObject({
      from: 'a-1',
      fromRoom: 'room1',
      to: 'a-2',
      toRoom: 'room2',
      epoch: 2
    })
    expect(events[1]!.data).toMatchObject({
      inSync: ['a-2'],
      notInSync: ['a-1', 'a-3'],
      master: 'a-2'
    })
  })

  it('records a new epoch of the same master, and a set left without one', () => {
    const again = { ...a1, epoch: 5 }
    expect(diffViews(view({ 'broker-a': a1 }), view({ 'broker-a': again }), roomOf)[0]!.kind).toBe(
      'master-elected'
    )
    const none = { ...a1, master: null, masterAddress: null, epoch: 6 }
    const e = diffViews(view({ 'broker-a': a1 }), view({ 'broker-a': none }), roomOf)[0]!
    expect(e.data).toMatchObject({ from: 'a-1', to: null, toRoom: null })
  })

  it('records a SyncStateSet change alone when the master stays', () => {
    const grown = { ...a2, inSync: ['a-2', 'a-3'], notInSync: ['a-1'] }
    const events = diffViews(view({ 'broker-a': a2 }), view({ 'broker-a': grown }), roomOf)
    expect(events.map((e) => e.kind)).toEqual(['sync-state-set-changed'])
  })

  it('records a leader change and the loss of every leader', () => {
    const e = diffViews(view({}, 'ns-1'), view({}, 'ns-2'), roomOf)
    expect(e).toEqual([
      {
        kind: 'controller-leader-changed',
        room: 'room2',
        data: { from: 'ns-1', to: 'ns-2', selfId: 'n0', address: 'c1:9878' }
      }
    ])
    expect(diffViews(view({}, 'ns-2'), view({}, null), roomOf)[0]!.data).toMatchObject({
      from: 'ns-2',
      to: null
    })
  })

  it('records self-declared masters when they change, two of them being a split brain', () => {
    const prev = { ...view({ 'broker-a': a2 }), selfMasters: { 'broker-a': ['a-2'] } }
    const split = { ...prev, selfMasters: { 'broker-a': ['a-1', 'a-2'] } }
    expect(diffViews(prev, split, roomOf)).toEqual([
      {
        kind: 'masters-observed',
        room: null,
        data: { group: 'broker-a', masters: ['a-1', 'a-2'], controllerMaster: 'a-2' }
      }
    ])
    expect(diffViews(split, split, roomOf)).toEqual([])
    // No master anywhere at the first look is not worth an event.
    expect(diffViews(view({}), { ...view({}), selfMasters: { 'broker-a': [] } }, roomOf)).toEqual(
      []
    )
  })
})

describe('merge', () => {
  const a1 = groupViewOf(info('h1:10911', 1, ['h1:10911']), resolve)
  const prev = { ...view({ 'broker-a': a1 }), selfMasters: { 'broker-a': ['a-1'] } }

  it('keeps what a poll could not read (no controller answered)', () => {
    expect(merge(prev, {})).toEqual(prev)
  })

  it('takes a leader of null when controllers answered without one', () => {
    const next = merge(prev, { leader: null })
    expect(next).toMatchObject({ leader: null, leaderSelfId: null, leaderAddress: null })
    expect(next.groups).toEqual(prev.groups)
  })

  it('replaces the groups and roles it read', () => {
    const a2 = { ...a1, master: 'a-2', epoch: 2 }
    const next = merge(prev, {
      leader: { nodeId: 'ns-2', selfId: 'n1', address: 'c2:9878' },
      groups: { 'broker-a': a2 },
      selfMasters: { 'broker-a': ['a-2'] }
    })
    expect(next).toMatchObject({
      leader: 'ns-2',
      leaderSelfId: 'n1',
      groups: { 'broker-a': a2 },
      selfMasters: { 'broker-a': ['a-2'] }
    })
  })
})
