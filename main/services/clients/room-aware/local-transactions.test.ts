import { describe, expect, it } from 'vitest'
import { LocalTransactions } from './local-transactions'

describe('LocalTransactions', () => {
  it('answers the broker that stored the half message with the decision, and nobody else commits', () => {
    let now = 0
    const tx = new LocalTransactions(() => now, 1000)
    tx.ran('k1', 'commit', 'broker-a')
    tx.ran('k2', 'rollback', 'broker-b')
    expect(tx.answer('k1', 'broker-a')).toBe('commit')
    // Check-backs that do not name their broker get the decision.
    expect(tx.answer('k1', undefined)).toBe('commit')
    expect(tx.answer('k1', '')).toBe('commit')
    // A timed-out attempt left a second half message on broker-b: it must not commit again.
    expect(tx.answer('k1', 'broker-b')).toBe('rollback')
    expect(tx.answer('k2', 'broker-b')).toBe('rollback')
    // Never ran here: unknown, the broker asks again.
    expect(tx.answer('k3', 'broker-a')).toBeUndefined()
    // A failed send ran no local transaction: any half message of it rolls back.
    tx.ran('k4', 'rollback', null)
    expect(tx.answer('k4', 'broker-a')).toBe('rollback')
    now = 5
    expect(tx.size).toBe(3)
  })

  it('forgets transactions once past the check-back window, oldest first', () => {
    let now = 0
    const tx = new LocalTransactions(() => now, 1000)
    tx.ran('old', 'commit', 'broker-a')
    now = 600
    tx.ran('mid', 'commit', 'broker-a')
    now = 1000
    tx.ran('new', 'commit', 'broker-a')
    expect([tx.answer('old', 'broker-a'), tx.size]).toEqual([undefined, 2])
    now = 1700
    // Recorded again: it moves to the young end and survives the next prune.
    tx.ran('mid', 'rollback', 'broker-a')
    now = 2100
    tx.ran('newest', 'commit', 'broker-a')
    expect([tx.answer('new', 'broker-a'), tx.answer('mid', 'broker-a'), tx.size]).toEqual([
      undefined,
      'rollback',
      2
    ])
  })

  it('tells onRan what it ran, to share it, and not what it learned from another process', () => {
    const shared: string[] = []
    const tx = new LocalTransactions(
      () => 0,
      1000,
      (key, decision, storedAs) => shared.push(`${key} ${decision} ${storedAs}`)
    )
    tx.ran('p1-1', 'commit', 'M1')
    tx.learn('p2-1', 'rollback', null)
    expect(shared).toEqual(['p1-1 commit M1'])
    // Both answer check-backs alike: a proxy may ask either producer.
    expect(tx.answer('p2-1', 'M9')).toBe('rollback')
    expect(tx.answer('p1-1', 'M1')).toBe('commit')
    expect(tx.answer('p1-1', 'M2')).toBe('rollback')
  })
})
