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
    const r = judgeFailback(
      [
        // broker-a#0 read to 5, then again from 2 (2..5 a second time), on to 7, then 6 again.
        ...[0, 1, 2, 3, 4, 5].map((o) => d(`m${o}`, o, o)),
        ...[2, 3, 4, 5].map((o) => d(`m${o}`, o, 10 + o)),
        d('m6', 6, 20),
        d('m7', 7, 21),
        d('m6', 6, 22),
        d('x0', 0, 5, 3)
      ],
      { repairAt: 8, originMs: 0 }
    )
    expect(r.rewinds).toBe(2)
    expect(r.rewoundQueues).toEqual([
      { lane: null, brokerName: 'broker-a', queueId: 0, rewinds: 2, maxBack: 3, firstAtMs: 12 }
    ])
    expect(r.duplicatesAfterRepair).toBe(5)
  })

  it('does not call new messages below the high mark a rewind (threads finishing out of order)', () => {
    const r = judgeFailback([d('a', 5, 1), d('b', 3, 2), d('c', 4, 3), d('e', 6, 4)], {
      repairAt: null,
      originMs: 0
    })
    expect(r.rewinds).toBe(0)
  })

  it('tells apart the queues of each lane’s topic on one broker', () => {
    // Each lane's topic has its own broker-a#0: remoting's offset 5 and java's 0 are two queues.
    const deliveries = [
      { ...d('a', 5, 1), clientId: 'consumer-1-remoting' },
      { ...d('b', 0, 2), clientId: 'consumer-1-java' },
      { ...d('b', 0, 3), clientId: 'consumer-2-java' }
    ]
    const laneOf = (id: string) => id.replace(/^consumer-\d-/, '')
    // java's b read twice at its queue's high mark is a duplicate, not a rewind.
    expect(judgeFailback(deliveries, { repairAt: null, originMs: 0, laneOf }).rewinds).toBe(0)
    // Seen as one queue, the lanes' offsets interleave into rewinds that never happened.
    expect(judgeFailback(deliveries, { repairAt: null, originMs: 0 }).rewinds).toBe(1)
  })

  it('keeps one pulled batch (one timestamp) in offset order, which is no rewind', () => {
    const r = judgeFailback([d('b', 1, 5), d('a', 0, 5), d('c', 2, 5)], {
      repairAt: null,
      originMs: 0
    })
    expect(r.rewinds).toBe(0)
  })
})
