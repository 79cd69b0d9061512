import { describe, expect, it } from 'vitest'
import type { OrderedMessage } from './order'
import { judgeOrder } from './order'

let n = 0
/** Message `seq` of key `k`, stored at broker-a#0 unless told, acked at `ack`, delivered at `at`. */
function m(
  k: string,
  seq: number,
  ack: number | null,
  at: number | null,
  where: Partial<OrderedMessage> = {}
): OrderedMessage {
  return {
    key: `M${++n}`,
    producerId: 'p1',
    orderKey: k,
    orderSeq: seq,
    brokerName: 'broker-a',
    queueId: 0,
    queueOffset: n,
    ackedAt: ack,
    firstDeliveredAt: at,
    ...where
  }
}

const judge = (ms: OrderedMessage[]) =>
  judgeOrder(ms, { lane: 'remoting', orderPolicy: 'wait', originMs: 0 })

describe('judgeOrder', () => {
  it('finds nothing wrong in keys delivered in sequence from their own queues', () => {
    const r = judge([
      m('k1', 0, 10, 12),
      m('k1', 1, 20, 22),
      m('k2', 0, 15, 17),
      m('k2', 1, 25, 27)
    ])
    expect(r).toMatchObject({
      lane: 'remoting',
      orderPolicy: 'wait',
      keys: 2,
      acked: 4,
      delivered: 4,
      violations: 0,
      violatedKeys: [],
      reroutes: 0,
      reroutedKeyCount: 0
    })
  })

  it('counts each first delivery of a key’s message after a later one of the key', () => {
    // k1: 0, 2, 1, 3 → 1 is late; k2: 3, 0, 1, 2 → three late ones.
    const r = judge([
      m('k1', 0, 1, 10),
      m('k1', 1, 2, 30),
      m('k1', 2, 3, 20),
      m('k1', 3, 4, 40),
      m('k2', 0, 1, 20),
      m('k2', 1, 2, 30),
      m('k2', 2, 3, 40),
      m('k2', 3, 4, 10)
    ])
    expect(r.violations).toBe(4)
    expect(r.violatedKeys).toEqual(['k2', 'k1'])
    expect(r.violatedKeyCount).toBe(2)
    // k2's seq 3 came first (at 10), so its seq 0 at 20 is the run's first violation.
    expect(r.firstViolationAtMs).toBe(20)
  })

  it('keeps a pulled batch (one timestamp) in its stored order', () => {
    const r = judge([m('k1', 1, 2, 50, { queueOffset: 8 }), m('k1', 0, 1, 50, { queueOffset: 7 })])
    expect(r.violations).toBe(0)
  })

  it('does not count gaps (failed sends) or undelivered messages as violations', () => {
    const r = judge([m('k1', 0, 1, 10), m('k1', 2, 3, 20), m('k1', 3, 4, null), m('k1', 5, 6, 30)])
    expect(r).toMatchObject({ violations: 0, acked: 4, delivered: 3 })
  })

  it('judges what consumers saw: a send reported failed but stored counts, apart from the acknowledged', () => {
    // seq 1 timed out at the producer, was stored anyway and delivered after seq 2.
    const r = judge([m('k1', 0, 1, 10), m('k1', 1, null, 40), m('k1', 2, 30, 35)])
    expect(r).toMatchObject({ acked: 2, delivered: 3, storedUnacked: 1, violations: 1 })
  })

  it('counts reroutes from the key’s first queue, however long an outage kept it elsewhere', () => {
    const b = { brokerName: 'broker-b', queueId: 2 }
    // Home (seq 0) on broker-a#0, then most of the run on broker-b: those are the reroutes.
    const r = judge([
      m('k1', 0, 1, 2),
      ...[1, 2, 3].map((seq) => m('k1', seq, seq * 2, seq * 2 + 1, b))
    ])
    expect(r.reroutes).toBe(3)
  })

  it('counts messages stored outside the key’s queue as reroutes', () => {
    const b = { brokerName: 'broker-b', queueId: 2 }
    const r = judge([
      m('k1', 0, 1, 2),
      m('k1', 1, 3, 4, b),
      m('k1', 2, 5, 6, b),
      m('k1', 3, 7, 8),
      m('k1', 4, 9, 10),
      m('k2', 0, 1, 2, { queueId: 1 })
    ])
    expect(r).toMatchObject({ reroutes: 2, reroutedKeyCount: 1, violations: 0 })
  })

  it('measures the longest time a queue held acknowledged messages and delivered none', () => {
    const q1 = { queueId: 1 }
    const r = judgeOrder(
      [
        // queue 0: steady, 2 ms each.
        m('k1', 0, 100, 102),
        m('k1', 1, 200, 202),
        // queue 1: acked at 300 and 310, nothing delivered until 5300 (a lock handoff), then both.
        m('k2', 0, 300, 5300, q1),
        m('k2', 1, 310, 5300, q1),
        m('k2', 2, 6000, 6001, q1)
      ],
      { lane: 'remoting', orderPolicy: 'wait', originMs: 100 }
    )
    expect(r.maxStallMs).toBe(5000)
    expect(r.stall).toEqual({ brokerName: 'broker-a', queueId: 1, fromMs: 200 })
  })

  it('starts a stall at the last delivery when messages were already waiting', () => {
    // Acked 0..3 at 10, 11, 12, 13; delivered at 20, 21, then nothing until 1021.
    const r = judge([
      m('k1', 0, 10, 20),
      m('k1', 1, 11, 21),
      m('k1', 2, 12, 1021),
      m('k1', 3, 13, 1022)
    ])
    expect(r.maxStallMs).toBe(1000)
    expect(r.stall?.fromMs).toBe(21)
  })

  it('does not call an idle queue stalled, nor a delivery seen before its acknowledgement', () => {
    const r = judge([m('k1', 0, 10, 12), m('k1', 1, 5000, 4999)])
    expect(r.maxStallMs).toBe(2)
  })

  it('counts a queue that never delivered an acknowledged message as stalled until the end', () => {
    const q1 = { queueId: 1 }
    const r = judgeOrder(
      [m('k1', 0, 10, 12), m('k2', 0, 100, null, q1), m('k2', 1, 200, null, q1)],
      {
        lane: 'remoting',
        orderPolicy: 'wait',
        originMs: 0,
        endMs: 30_100
      }
    )
    expect(r.maxStallMs).toBe(30_000)
    expect(r.stall).toEqual({ brokerName: 'broker-a', queueId: 1, fromMs: 100 })
  })

  it('reports no stall and no figures for a lane that delivered nothing', () => {
    const r = judge([m('k1', 0, 1, null)])
    expect(r).toMatchObject({ maxStallMs: null, stall: null, delivered: 0, violations: 0 })
    expect(judge([])).toMatchObject({ keys: 0, acked: 0, maxStallMs: null })
  })
})
