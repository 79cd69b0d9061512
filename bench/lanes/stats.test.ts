import { describe, expect, it } from 'vitest'
import type { DeliveryRow, SendRow } from './stats'
import {
  backHome,
  crossRoomShare,
  lossAndDuplicates,
  medianKeepingInfinity,
  rankPercentile,
  summarizeRecoveries,
  medianInterval,
  takeover,
  windowLatency
} from './stats'

const send = (over: Partial<SendRow>): SendRow => ({
  key: 'k',
  clientId: 'p',
  clientRoom: 'room1',
  brokerRoom: 'room1',
  scheduledAt: 0,
  startedAt: 0,
  endedAt: 1,
  status: 'acked',
  ...over
})
const delivery = (over: Partial<DeliveryRow>): DeliveryRow => ({
  key: 'k',
  clientId: 'c',
  clientRoom: 'room2',
  brokerName: 'broker-a',
  brokerRoom: 'room1',
  queueId: 0,
  deliveredAt: 0,
  ...over
})

describe('lane benchmark figures', () => {
  it('an unrecovered producer is ∞ in every rank, and a producer without failure is not an RTO of 0', () => {
    expect(rankPercentile([10, 20, Infinity], 50)).toBe(20)
    expect(rankPercentile([10, 20, Infinity], 99)).toBe(Infinity)
    expect(medianKeepingInfinity([10, Infinity, Infinity])).toBe(Infinity)
    expect(medianKeepingInfinity([10, 30, Infinity, null])).toBe(30)
    expect(medianKeepingInfinity([10, 20, 30, Infinity])).toBe(25)
    expect(medianKeepingInfinity([10, Infinity])).toBe(Infinity)
    const s = summarizeRecoveries([
      { kind: 'no-failure' },
      { kind: 'rto', ms: 300 },
      { kind: 'unrecovered' },
      { kind: 'no-failure' }
    ])
    expect(s).toEqual({ producers: 4, noFailure: 2, unrecovered: 1, p50Ms: 300, p99Ms: Infinity })
    expect(summarizeRecoveries([{ kind: 'no-failure' }])).toMatchObject({
      p50Ms: null,
      noFailure: 1
    })
  })

  it('waits are taken from the scheduled time, so a stalled sender cannot hide its stall', () => {
    const sends = [
      send({ scheduledAt: 100, startedAt: 400, endedAt: 401 }),
      send({ scheduledAt: 110, startedAt: 110, endedAt: 112 }),
      send({ scheduledAt: 500, startedAt: 500, endedAt: 501 })
    ]
    expect(windowLatency(sends, 100, 200)).toEqual({ sends: 2, p99Ms: 301, maxMs: 301 })
  })

  it('cross-room share counts acknowledged sends another room stored', () => {
    expect(
      crossRoomShare([
        send({}),
        send({ brokerRoom: 'room2' }),
        send({ status: 'failed', brokerRoom: 'room2' })
      ])
    ).toBe(0.5)
    expect(crossRoomShare([])).toBeNull()
  })

  it('back home: first own-room ack after the repair; stayed if it never left; ∞ if it never came back', () => {
    const away = [
      send({ scheduledAt: 50, endedAt: 52, brokerRoom: 'room2' }),
      send({ scheduledAt: 120, endedAt: 121, brokerRoom: 'room2' }),
      send({ scheduledAt: 130, endedAt: 135 })
    ]
    expect(backHome(away, 0, 100, 1000)).toBe(35)
    expect(backHome(away.slice(0, 2), 0, 100, 1000)).toBe(Infinity)
    expect(backHome([send({ scheduledAt: 50 })], 0, 100, 1000)).toBe('stayed')
  })

  it('takeover: a queue room 1 read, delivered to another room’s consumer that was not reading it', () => {
    const d = [
      delivery({ clientRoom: 'room1', clientId: 'c1', queueId: 0, deliveredAt: 5 }),
      delivery({ clientRoom: 'room1', clientId: 'c1', queueId: 1, deliveredAt: 6 }),
      delivery({ clientId: 'c2', queueId: 0, deliveredAt: 120 }),
      delivery({ clientId: 'c2', queueId: 1, deliveredAt: 150 })
    ]
    expect(takeover(d, 'room1', 0, 100, 1000)).toEqual({
      kind: 'takeover',
      firstMs: 20,
      allMs: 50,
      queues: 2
    })
    // One queue never taken: the first is still a time, the whole takeover never finished.
    expect(takeover(d.slice(0, 3), 'room1', 0, 100, 1000)).toMatchObject({
      firstMs: 20,
      allMs: Infinity
    })
    // Nothing taken over before `until`: ∞ both.
    expect(takeover(d.slice(0, 2), 'room1', 0, 100, 1000)).toMatchObject({ firstMs: Infinity })
    expect(takeover([], 'room1', 0, 100, 1000)).toBeNull()
  })

  it('takeover: a queue the survivor already read is not a takeover, only the ones it was not', () => {
    const d = [
      delivery({ clientRoom: 'room1', clientId: 'c1', queueId: 0, deliveredAt: 5 }),
      delivery({ clientRoom: 'room1', clientId: 'c1', queueId: 1, deliveredAt: 6 }),
      // c2 already shared queue 0 with c1 (an averaging allocation): its next delivery is no takeover.
      delivery({ clientId: 'c2', queueId: 0, deliveredAt: 7 }),
      delivery({ clientId: 'c2', queueId: 0, deliveredAt: 101 }),
      delivery({ clientId: 'c2', queueId: 1, deliveredAt: 300 })
    ]
    expect(takeover(d, 'room1', 0, 100, 1000)).toEqual({
      kind: 'takeover',
      firstMs: 200,
      allMs: 200,
      queues: 1
    })
  })

  it('takeover: consumers that read every queue anyway are always shared, with their cross-room share', () => {
    const both = (clientRoom: string, clientId: string, deliveredAt: number): DeliveryRow[] => [
      delivery({ clientRoom, clientId, brokerRoom: 'room1', queueId: 0, deliveredAt }),
      delivery({
        clientRoom,
        clientId,
        brokerRoom: 'room2',
        brokerName: 'broker-2',
        queueId: 0,
        deliveredAt
      })
    ]
    const d = [...both('room1', 'c1', 5), ...both('room2', 'c2', 6), ...both('room2', 'c2', 150)]
    expect(takeover(d, 'room1', 0, 100, 1000)).toEqual({
      kind: 'always-shared',
      crossRoomShare: 0.5
    })
  })

  it('medianInterval: the median, a bootstrap interval around it, reproducible, ∞ kept', () => {
    const xs = Array.from({ length: 31 }, (_, i) => 100 + i)
    const a = medianInterval(xs)!
    expect(a.median).toBe(115)
    expect(a.lo).toBeLessThan(115)
    expect(a.hi).toBeGreaterThan(115)
    expect(a.lo).toBeGreaterThanOrEqual(100)
    expect(a.hi).toBeLessThanOrEqual(130)
    expect(medianInterval(xs)).toEqual(a)
    // Most unrecovered: the median and its upper bound are ∞.
    const worst = medianInterval([1, 2, Infinity, Infinity, Infinity])!
    expect(worst.median).toBe(Infinity)
    expect(worst.hi).toBe(Infinity)
    expect(medianInterval([])).toBeNull()
  })

  it('duplicates are deliveries beyond the first per key; lost are acked keys never delivered', () => {
    const sends = [send({ key: 'a' }), send({ key: 'b' }), send({ key: 'c', status: 'failed' })]
    const d = [delivery({ key: 'a' }), delivery({ key: 'a' }), delivery({ key: 'c' })]
    expect(lossAndDuplicates(sends, d)).toEqual({ lost: 1, duplicates: 1 })
  })
})
