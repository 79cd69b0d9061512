import { describe, expect, it } from 'vitest'
import type { DelayedMessage } from './delayed'
import { judgeDelayed } from './delayed'
import { delayOf, workloadSchema } from './schema'

const due = 100_000
const msg = (
  key: string,
  lateMs: number | null,
  deliveries = 1,
  room = 'room1',
  positions = Math.min(1, deliveries)
): DelayedMessage => ({
  key,
  brokerRoom: room,
  dueAt: due,
  firstDeliveredAt: lateMs === null ? null : due + lateMs,
  deliveries: lateMs === null ? 0 : deliveries,
  positions: lateMs === null ? 0 : positions
})
const judge = (ms: DelayedMessage[]) =>
  judgeDelayed(ms, { mechanism: 'timer', delayMs: 5000, precisionMs: 1000, worst: 2 })

describe('judgeDelayed', () => {
  it('reports nothing delivered as nulls, not zeros', () => {
    expect(judge([])).toEqual({
      mechanism: 'timer',
      delayMs: 5000,
      precisionMs: 1000,
      acked: 0,
      delivered: 0,
      neverDelivered: 0,
      early: 0,
      duplicates: 0,
      storedAgain: 0,
      latenessMs: { p50: null, p99: null, max: null },
      latest: []
    })
  })

  it('measures lateness from the due time, signed: a delivery inside the timer slot is on time', () => {
    const r = judge([msg('a', -400), msg('b', 100), msg('c', 300)])
    expect(r.latenessMs).toEqual({ p50: 100, p99: 296, max: 300 })
    expect(r.early).toBe(0)
  })

  it('counts a delivery more than the precision before its due time as early', () => {
    const r = judge([msg('a', -1001), msg('b', -1000), msg('c', 0)])
    expect(r.early).toBe(1)
  })

  it('counts acknowledged messages never delivered apart from the lateness figures', () => {
    const r = judge([msg('a', 200), msg('b', null), msg('c', null)])
    expect(r).toMatchObject({ acked: 3, delivered: 1, neverDelivered: 2 })
    expect(r.latenessMs.max).toBe(200)
  })

  it('counts deliveries beyond the first as duplicates, lateness from the first', () => {
    const r = judge([msg('a', 50, 3), msg('b', 80, 1)])
    expect(r.duplicates).toBe(2)
    expect(r.latenessMs.max).toBe(80)
  })

  it('tells the broker storing a message twice from consumers reading one offset twice', () => {
    // a: read twice at one offset (a consumer's rewind); b: put into the topic twice by the timer.
    const r = judge([msg('a', 50, 2, 'room1', 1), msg('b', 60, 2, 'room1', 2), msg('c', 70)])
    expect(r).toMatchObject({ duplicates: 2, storedAgain: 1 })
  })

  it('names the latest deliveries first, with the room whose timer held them', () => {
    const r = judge([msg('a', 100), msg('b', 9000, 1, 'room2'), msg('c', 4000)])
    expect(r.latest).toEqual([
      { key: 'b', brokerRoom: 'room2', latenessMs: 9000 },
      { key: 'c', brokerRoom: 'room1', latenessMs: 4000 }
    ])
  })

  it('handles a large run without spreading it into arguments', () => {
    const many = Array.from({ length: 200_000 }, (_, i) => msg(`k${i}`, i % 1000))
    expect(judge(many).latenessMs.max).toBe(999)
  })
})

describe('delayed workload schema', () => {
  it('defaults to plain messages, and a delayed workload to a 5 s delay', () => {
    expect(delayOf(workloadSchema.parse({}))).toBe(0)
    expect(delayOf(workloadSchema.parse({ messages: 'delayed' }))).toBe(5000)
    expect(delayOf(workloadSchema.parse({ messages: 'delayed', delay: '12s' }))).toBe(12_000)
  })

  it('refuses a delay below the timer precision or above an hour, and unknown kinds', () => {
    expect(() => workloadSchema.parse({ messages: 'delayed', delay: '500ms' })).toThrow(/1s/)
    expect(() => workloadSchema.parse({ messages: 'delayed', delay: '2h' })).toThrow()
    expect(() => workloadSchema.parse({ messages: 'delayed', delay: '61m' })).toThrow(/1h/)
    expect(() => workloadSchema.parse({ messages: 'timed' })).toThrow()
  })
})
