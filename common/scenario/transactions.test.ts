import { describe, expect, it } from 'vitest'
import type { TransactionalMessage } from './transactions'
import { judgeTransactions, transactionPlanOf, unitHash } from './transactions'

const msg = (key: string, over: Partial<TransactionalMessage> = {}): TransactionalMessage => ({
  key,
  producerId: 'producer-1',
  status: 'acked',
  decision: 'commit',
  end: 'end',
  checksAnswered: 0,
  deliveries: 1,
  ...over
})

describe('judgeTransactions', () => {
  it('finds nothing wrong when every commit arrived once and no rollback did', () => {
    const r = judgeTransactions(
      [
        msg('c1'),
        // Stored without its slave (a synchronous master): our lane ran it, and it arrived.
        msg('c4', { warning: 'SLAVE_NOT_AVAILABLE' }),
        msg('r1', { decision: 'rollback', deliveries: 0 }),
        msg('c2', { end: 'check', checksAnswered: 1 }),
        // Ended, and checked back all the same (the broker lost the end in a crash): delivered twice.
        msg('c3', { checksAnswered: 1, deliveries: 2 }),
        // A timed-out attempt left a second half message on another broker; its check-back is apart.
        msg('c5', { checksElsewhere: 1 }),
        msg('f1', { status: 'failed', end: null, deliveries: 0 })
      ],
      'remoting'
    )
    expect(r).toEqual({
      lane: 'remoting',
      sent: 7,
      acked: 6,
      committed: 5,
      rolledBack: 1,
      clientRollbacks: 0,
      storedWithWarning: 1,
      viaCheck: 1,
      endLost: 0,
      checkedBack: 2,
      checkedAfterEnd: 1,
      checkedElsewhere: 1,
      mismatches: 0,
      committedUndelivered: 0,
      rolledBackDelivered: 0,
      unresolved: 0,
      duplicates: 1,
      mismatchedKeys: []
    })
  })

  it('counts a committed message never delivered, and calls it unresolved when no end reached the broker', () => {
    const r = judgeTransactions(
      [
        // END_TRANSACTION written, message never came: the broker lost the commit.
        msg('c1', { deliveries: 0 }),
        // END lost and no check-back answered: still a half message as far as anyone knows.
        msg('c2', { end: 'lost', deliveries: 0 }),
        // Planned for the check-back, answered, never delivered.
        msg('c3', { end: 'check', checksAnswered: 1, deliveries: 0 })
      ],
      'java'
    )
    expect(r).toMatchObject({
      mismatches: 3,
      committedUndelivered: 3,
      unresolved: 1,
      endLost: 1,
      mismatchedKeys: ['c1', 'c2', 'c3']
    })
  })

  it('counts a rolled-back, client-rolled-back or failed transaction that was delivered', () => {
    const r = judgeTransactions(
      [
        msg('r1', { decision: 'rollback' }),
        msg('r2', { end: 'client-rollback' }),
        msg('f1', { status: 'failed', end: null }),
        msg('r3', { end: 'client-rollback', deliveries: 0 })
      ],
      'java'
    )
    expect(r).toMatchObject({
      committed: 0,
      rolledBack: 1,
      clientRollbacks: 2,
      mismatches: 3,
      rolledBackDelivered: 3,
      committedUndelivered: 0,
      mismatchedKeys: ['r1', 'r2', 'f1']
    })
  })

  it('counts extra deliveries of committed messages as duplicates, not mismatches', () => {
    expect(judgeTransactions([msg('c1', { deliveries: 3 })], 'remoting')).toMatchObject({
      mismatches: 0,
      duplicates: 2
    })
  })

  it('names at most ten mismatched keys', () => {
    const many = Array.from({ length: 12 }, (_, i) => msg(`c${i}`, { deliveries: 0 }))
    const r = judgeTransactions(many, 'remoting')
    expect(r.mismatches).toBe(12)
    expect(r.mismatchedKeys).toHaveLength(10)
  })
})

describe('transactionPlanOf', () => {
  it('hashes like the Java worker (FNV-1a over UTF-16 units)', () => {
    expect(unitHash('producer-1-1#commit')).toBeCloseTo(0.673274400876835, 12)
    expect(unitHash('producer-1-1#check')).toBeCloseTo(0.2659092117100954, 12)
    expect(unitHash('ü-€#check')).toBeCloseTo(0.10019676317460835, 12)
    expect(unitHash('')).toBeCloseTo(0.5043428998906165, 12)
  })

  it('decides by the key alone, at the shares asked for', () => {
    expect(transactionPlanOf('producer-1-1', 0.8, 0.2)).toEqual(
      transactionPlanOf('producer-1-1', 0.8, 0.2)
    )
    const plans = Array.from({ length: 4000 }, (_, i) =>
      transactionPlanOf(`producer-1-${i + 1}`, 0.8, 0.2)
    )
    const commits = plans.filter((p) => p.decision === 'commit').length / plans.length
    const checks = plans.filter((p) => p.viaCheck).length / plans.length
    expect(commits).toBeGreaterThan(0.77)
    expect(commits).toBeLessThan(0.83)
    expect(checks).toBeGreaterThan(0.17)
    expect(checks).toBeLessThan(0.23)
    // Both decisions are left to the check-back, not only commits.
    expect(plans.some((p) => p.viaCheck && p.decision === 'rollback')).toBe(true)
    expect(transactionPlanOf('k', 0, 0)).toEqual({ decision: 'rollback', viaCheck: false })
    expect(transactionPlanOf('k', 1, 1)).toEqual({ decision: 'commit', viaCheck: true })
  })
})
