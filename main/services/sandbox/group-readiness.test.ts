import { describe, expect, it } from 'vitest'
import type { GroupSample, WriteOutcome } from './group-readiness'
import { expectedInSync, groupPhase, readyDetail } from './group-readiness'

const ALL = ['a-1', 'a-2', 'a-3']
const sample = (over: Partial<GroupSample> = {}): GroupSample => ({
  group: 'broker-a',
  master: 'a-1',
  inSync: ALL,
  write: { kind: 'acked' },
  ...over
})

describe('expectedInSync', () => {
  it('is the awaited replicas and the master, once each, sorted', () => {
    expect(expectedInSync(['a-3', 'a-1'], 'a-2')).toEqual(['a-1', 'a-2', 'a-3'])
    expect(expectedInSync(['a-1', 'a-2'], 'a-1')).toEqual(['a-1', 'a-2'])
    expect(expectedInSync(['a-2'], null)).toEqual(['a-2'])
    expect(expectedInSync([], null)).toEqual([])
  })

  it('after a restart expects the restarted replica and the master, not the rest of the group', () => {
    expect(expectedInSync(['a-1'], 'a-3')).toEqual(['a-1', 'a-3'])
  })
})

describe('groupPhase', () => {
  it('is ready once the master acknowledged a write with every expected replica in sync', () => {
    expect(groupPhase(sample(), ALL)).toEqual({
      phase: 'ready',
      waitingFor: 'nothing: master a-1 acknowledged a write with a-1, a-2, a-3 in sync'
    })
  })

  it('electing while the controllers cannot be read', () => {
    const v = groupPhase(sample({ unread: 'no controller names a leader' }), ALL)
    expect(v).toEqual({
      phase: 'electing',
      waitingFor: 'the controllers: no controller names a leader'
    })
  })

  it('electing while the controllers name no master', () => {
    expect(groupPhase(sample({ master: null, inSync: [], write: null }), ALL)).toEqual({
      phase: 'electing',
      waitingFor: 'the controllers to elect a master of broker-a'
    })
  })

  it('electing while the named master refuses writes (not acting as one yet)', () => {
    const write: WriteOutcome = { kind: 'refused', reason: 'code 14: broker is not master' }
    expect(groupPhase(sample({ write, inSync: ['a-1'] }), ALL)).toEqual({
      phase: 'electing',
      waitingFor:
        'a-1, which the controllers named master of broker-a, to accept a write (code 14: broker is not master)'
    })
  })

  it('a refused write is electing even when the SyncStateSet is full: nothing acts yet', () => {
    const write: WriteOutcome = { kind: 'refused', reason: 'connect ECONNREFUSED' }
    expect(groupPhase(sample({ write }), ALL).phase).toBe('electing')
  })

  it('syncing while the master acknowledges but the SyncStateSet is short', () => {
    expect(groupPhase(sample({ inSync: ['a-1'] }), ALL)).toEqual({
      phase: 'syncing',
      waitingFor:
        'a-2, a-3 to join the SyncStateSet of broker-a (now a-1); master a-1 acknowledges writes'
    })
  })

  it('syncing while the master stores writes its replicas do not confirm in time', () => {
    const write: WriteOutcome = { kind: 'unconfirmed', status: 'FLUSH_SLAVE_TIMEOUT' }
    expect(groupPhase(sample({ write }), ALL)).toEqual({
      phase: 'syncing',
      waitingFor:
        'a-1 to have a write confirmed by its replicas (it stored one: FLUSH_SLAVE_TIMEOUT)'
    })
    expect(groupPhase(sample({ write, inSync: ['a-1', 'a-2'] }), ALL).waitingFor).toBe(
      'a-1 to have a write confirmed by its replicas (it stored one: FLUSH_SLAVE_TIMEOUT), ' +
        'and a-3 to join the SyncStateSet of broker-a (now a-1, a-2)'
    )
  })

  it('expects the master in the set too (a set the leader reports without its master)', () => {
    expect(
      groupPhase(sample({ master: 'a-2', inSync: ['a-1'] }), expectedInSync(['a-1'], 'a-2'))
    ).toEqual({
      phase: 'syncing',
      waitingFor:
        'a-2 to join the SyncStateSet of broker-a (now a-1); master a-2 acknowledges writes'
    })
  })

  it('says "nobody" for an empty set', () => {
    expect(groupPhase(sample({ inSync: [] }), ['a-1']).waitingFor).toBe(
      'a-1 to join the SyncStateSet of broker-a (now nobody); master a-1 acknowledges writes'
    )
  })

  it('ignores replicas in the set that nobody waits for', () => {
    expect(groupPhase(sample({ master: 'a-3', inSync: ALL }), ['a-1', 'a-3']).phase).toBe('ready')
  })

  it('asynchronous acknowledgement: an acked write with a short set is still syncing', () => {
    // With allAckInSyncStateSet false the master acknowledges alone: the write says nothing of
    // the replicas, so the SyncStateSet decides.
    expect(groupPhase(sample({ inSync: ['a-1', 'a-3'] }), ALL).phase).toBe('syncing')
  })
})

describe('readyDetail', () => {
  it('names the group, the time, the master and the set', () => {
    expect(readyDetail(sample(), 14_230)).toBe(
      'broker-a ready in 14.2 s: master a-1 acknowledged a write with a-1, a-2, a-3 in its SyncStateSet'
    )
  })
})
