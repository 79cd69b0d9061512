import { describe, expect, it } from 'vitest'
import { GroupViews, membersOnViewOf } from './group-view'

const base = {
  self: 'me@room2',
  everyone: new Set(['a@room1', 'me@room2', 'c@room3']),
  closedAt: undefined,
  now: 10_000,
  settleMs: 2000
}

describe('membersOnViewOf: acting on the notifying broker’s list alone', () => {
  it('drops a member the broker listed at the last full round and no longer lists', () => {
    const previous = new Set(['a@room1', 'me@room2', 'c@room3'])
    expect(membersOnViewOf({ ...base, previous, listed: ['me@room2', 'c@room3'] })?.sort()).toEqual(
      ['c@room3', 'me@room2']
    )
  })

  it('keeps a member the broker never listed (it may not have reached that broker yet)', () => {
    const previous = new Set(['a@room1', 'me@room2'])
    expect(membersOnViewOf({ ...base, previous, listed: ['me@room2'] })?.sort()).toEqual([
      'c@room3',
      'me@room2'
    ])
  })

  it('adds a member the broker lists anew', () => {
    const previous = new Set(['a@room1', 'me@room2', 'c@room3'])
    const listed = ['a@room1', 'me@room2', 'c@room3', 'd@room1']
    expect(membersOnViewOf({ ...base, previous, listed })?.sort()).toEqual([
      'a@room1',
      'c@room3',
      'd@room1',
      'me@room2'
    ])
  })

  it('is not trusted when it does not list this consumer', () => {
    const previous = new Set(['a@room1', 'me@room2'])
    expect(membersOnViewOf({ ...base, previous, listed: ['a@room1'] })).toBeNull()
  })

  it('is not trusted when the broker did not answer the last full round', () => {
    expect(membersOnViewOf({ ...base, previous: undefined, listed: ['me@room2'] })).toBeNull()
  })

  it('is not trusted while the broker’s channel closed recently (a restart lists consumers one by one)', () => {
    const previous = new Set(['a@room1', 'me@room2', 'c@room3'])
    const input = { ...base, previous, listed: ['me@room2'] }
    expect(membersOnViewOf({ ...input, closedAt: 9000 })).toBeNull()
    expect(membersOnViewOf({ ...input, closedAt: 7000 })?.sort()).toEqual(['me@room2'])
  })
})

describe('GroupViews', () => {
  it('forgets the lists of brokers that did not answer the latest round', () => {
    const v = new GroupViews()
    v.recordRound(
      new Map([
        ['a:1', ['x@room1', 'me@room2']],
        ['b:1', ['x@room1', 'me@room2']]
      ])
    )
    v.recordRound(new Map([['b:1', ['x@room1', 'me@room2']]]))
    expect(v.membersOnViewOf('a:1', ['me@room2'], 'me@room2', 0, 2000)).toBeNull()
    expect(v.membersOnViewOf('b:1', ['me@room2'], 'me@room2', 0, 2000)).toEqual(['me@room2'])
  })

  it('forgets a broker’s list when its channel closes, and waits out the close', () => {
    const v = new GroupViews()
    v.recordRound(new Map([['a:1', ['x@room1', 'me@room2']]]))
    v.connectionClosed('a:1', 1000)
    expect(v.membersOnViewOf('a:1', ['me@room2'], 'me@room2', 5000, 2000)).toBeNull()
    v.recordRound(new Map([['a:1', ['x@room1', 'me@room2']]]))
    expect(v.membersOnViewOf('a:1', ['me@room2'], 'me@room2', 2000, 2000)).toBeNull()
    expect(v.membersOnViewOf('a:1', ['me@room2'], 'me@room2', 3000, 2000)).toEqual(['me@room2'])
  })
})
