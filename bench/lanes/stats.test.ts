import { describe, expect, it } from 'vitest'
import type { DeliveryRow, SendRow } from './stats'
import {
  backHome,
  crossRoomShare,
  lossAndDuplicates,
  medianKeepingInfinity,
  rankPercentile,
  summarizeRecoveries,
  takeoverMs,
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

  it('takeover is when the last orphaned queue was consumed again by another room', () => {
    const d = [
      delivery({ clientRoom: 'room1', queueId: 0, deliveredAt: 5 }),
      delivery({ clientRoom: 'room1', queueId: 1, deliveredAt: 6 }),
      delivery({ queueId: 0, deliveredAt: 120 }),
      delivery({ queueId: 1, deliveredAt: 150 })
    ]
    expect(takeoverMs(d, 'room1', 0, 100, 1000)).toBe(50)
    expect(takeoverMs(d.slice(0, 3), 'room1', 0, 100, 1000)).toBe(Infinity)
    expect(takeoverMs([], 'room1', 0, 100, 1000)).toBeNull()
  })

  it('duplicates are deliveries beyond the first per key; lost are acked keys never delivered', () => {
    const sends = [send({ key: 'a' }), send({ key: 'b' }), send({ key: 'c', status: 'failed' })]
    const d = [delivery({ key: 'a' }), delivery({ key: 'a' }), delivery({ key: 'c' })]
    expect(lossAndDuplicates(sends, d)).toEqual({ lost: 1, duplicates: 1 })
  })
})
