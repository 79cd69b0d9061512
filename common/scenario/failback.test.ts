import { describe, expect, it } from 'vitest'
import type { DeliveryAt } from './failback'
import { judgeFailback } from './failback'

const d = (
  key: string,
  offset: number,
  at: number,
  queueId = 0,
  brokerName = 'broker-a'
): DeliveryAt => ({
  key,
  clientId: 'consumer-1',
  brokerName,
  queueId,
  queueOffset: offset,
  deliveredAt: at
})

describe('judgeFailback', () => {
  it('finds nothing in a run that read each queue forward once', () => {
    const r = judgeFailback([d('a', 0, 10), d('b', 1, 11), d('c', 0, 12, 1)], {
      repairAt: 100,
      originMs: 0
    })
    expect(r).toEqual({
      repairAtMs: 100,
      duplicatesBeforeRepair: 0,
      duplicatesAfterRepair: 0,
      rewinds: 0,
      rewoundQueues: []
    })
  })

  it('splits duplicates at the first repair: the failover’s before, the fail-back’s after', () => {
    const r = judgeFailback(
      [
        d('a', 0, 10),
        d('b', 1, 20),
        d('a', 0, 50, 0, 'broker-b'),
        d('b', 1, 150, 0, 'broker-b'),
        d('a', 0, 160, 0, 'broker-c')
      ],
      { repairAt: 100, originMs: 0 }
    )
    expect(r).toMatchObject({
      repairAtMs: 100,
      duplicatesBeforeRepair: 1,
      duplicatesAfterRepair: 2
    })
  })

  it('counts every duplicate as the failover’s when nothing was repaired', () => {
    const r = judgeFailback([d('a', 0, 10), d('a', 5, 20, 1)], { repairAt: null, originMs: 0 })
    expect(r).toMatchObject({
      repairAtMs: null,
      duplicatesBeforeRepair: 1,
      duplicatesAfterRepair: 0
    })
  })

  it('counts a queue read again from an older offset once per episode, with how far it went back', () => {
    // broker-a#0 read to 5, back to 2 (re-reading 2..5), on to 7, back to 6 once more.
    const r = judgeFailback(
      [
        d('m0', 0, 1),
        d('m1', 1, 2),
        d('m5', 5, 3),
        d('m2', 2, 10),
        d('m3', 3, 11),
        d('m4', 4, 12),
        d('m5', 5, 13),
        d('m7', 7, 14),
        d('m6', 6, 20),
        d('x0', 0, 5, 3)
      ],
      { repairAt: 8, originMs: 0 }
    )
    expect(r.rewinds).toBe(2)
    expect(r.rewoundQueues).toEqual([
      { lane: null, brokerName: 'broker-a', queueId: 0, rewinds: 2, maxBack: 3, firstAtMs: 10 }
    ])
    expect(r.duplicatesAfterRepair).toBe(1)
  })

  it('tells apart the queues of each lane’s topic on one broker', () => {
    const deliveries = [
      { ...d('a', 5, 1), clientId: 'consumer-1-remoting' },
      { ...d('b', 0, 2), clientId: 'consumer-1-java' },
      { ...d('c', 6, 3), clientId: 'consumer-2-remoting' },
      { ...d('e', 1, 4), clientId: 'consumer-2-java' }
    ]
    const laneOf = (id: string) => id.replace(/^consumer-\d-/, '')
    expect(judgeFailback(deliveries, { repairAt: null, originMs: 0, laneOf }).rewinds).toBe(0)
    // Seen as one queue, the lanes' offsets interleave into rewinds that never happened.
    expect(judgeFailback(deliveries, { repairAt: null, originMs: 0 }).rewinds).toBe(2)
  })

  it('keeps one pulled batch (one timestamp) in offset order, which is no rewind', () => {
    const r = judgeFailback([d('b', 1, 5), d('a', 0, 5), d('c', 2, 5)], {
      repairAt: null,
      originMs: 0
    })
    expect(r.rewinds).toBe(0)
  })
})
