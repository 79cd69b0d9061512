import { transactionPlanOf } from '../../../common/scenario/transactions'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { NULL_LEDGER } from '../ledger/types'
import { orderOf, SendSchedule } from './send-schedule'

/** A producer whose sends stay in flight until the test ends them. */
function heldProducer() {
  const pending: (() => void)[] = []
  const started: { key: string; scheduledAt: number }[] = []
  return {
    pending,
    started,
    send: (input: { keys: string[]; scheduledAt: number }) => {
      started.push({ key: input.keys[0]!, scheduledAt: input.scheduledAt })
      return new Promise<void>((r) => pending.push(r))
    }
  }
}

const immediate = (): Promise<void> => new Promise((r) => setImmediate(r))

describe('SendSchedule', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }))
  afterEach(() => vi.useRealTimers())

  it('fires on schedule from t0 and counts what the in-flight cap skipped', () => {
    let now = 1000
    const p = heldProducer()
    const s = new SendSchedule(
      {
        t0: 1000,
        end: null,
        producers: [{ id: 'p', rate: 100, messageSize: 8, offsetMs: 0 }],
        maxInflight: 2,
        tag: 't'
      },
      { now: () => now, lookup: () => p, ledger: NULL_LEDGER, roomOf: () => 'room1' }
    )
    s.start()
    expect(p.started).toEqual([{ key: 'p-1', scheduledAt: 1000 }])
    now = 1035
    vi.advanceTimersByTime(10)
    // Due at 1010, 1020, 1030: one more fits under the cap, two are skipped.
    expect(p.started.map((x) => x.key)).toEqual(['p-1', 'p-2'])
    for (const end of p.pending) end()
    return s.stop(0).then((r) => {
      expect(r.scheduled).toEqual({ p: 4 })
      expect(r.skipped).toEqual({ p: { down: 0, inflightCap: 2 } })
    })
  })

  it('asks for each delayed message at its slot plus the delay, so a late send shows as late', () => {
    const asked: { key: string; scheduledAt: number; deliverAt?: number }[] = []
    const producer = {
      send: (input: { keys: string[]; scheduledAt: number; deliverAt?: number }) => {
        asked.push({
          key: input.keys[0]!,
          scheduledAt: input.scheduledAt,
          deliverAt: input.deliverAt
        })
        return Promise.resolve()
      }
    }
    let now = 1000
    const s = new SendSchedule(
      {
        t0: 1000,
        end: null,
        producers: [
          { id: 'd', rate: 100, messageSize: 8, offsetMs: 0, delayMs: 5000 },
          { id: 'n', rate: 100, messageSize: 8, offsetMs: 0 }
        ],
        maxInflight: 10,
        tag: 't'
      },
      { now: () => now, lookup: () => producer, ledger: NULL_LEDGER, roomOf: () => 'room1' }
    )
    s.start()
    now = 1025
    vi.advanceTimersByTime(10)
    expect(asked).toEqual([
      { key: 'd-1', scheduledAt: 1000, deliverAt: 6000 },
      { key: 'n-1', scheduledAt: 1000, deliverAt: undefined },
      { key: 'd-2', scheduledAt: 1010, deliverAt: 6010 },
      { key: 'd-3', scheduledAt: 1020, deliverAt: 6020 },
      { key: 'n-2', scheduledAt: 1010, deliverAt: undefined },
      { key: 'n-3', scheduledAt: 1020, deliverAt: undefined }
    ])
    return s.stop(0)
  })

  it('cycles an ordered producer over its keys, each with its own sequence from 0', () => {
    const asked: { key: string; order?: { key: string; seq: number } }[] = []
    const producer = {
      send: (input: { keys: string[]; order?: { key: string; seq: number } }) => {
        asked.push({ key: input.keys[0]!, order: input.order })
        return Promise.resolve()
      }
    }
    let now = 1000
    const s = new SendSchedule(
      {
        t0: 1000,
        end: null,
        producers: [{ id: 'o', rate: 100, messageSize: 8, offsetMs: 0, orderKeys: 2 }],
        maxInflight: 10,
        tag: 't'
      },
      { now: () => now, lookup: () => producer, ledger: NULL_LEDGER, roomOf: () => 'room1' }
    )
    s.start()
    now = 1035
    vi.advanceTimersByTime(10)
    expect(asked).toEqual([
      { key: 'o-1', order: { key: 'o:k0', seq: 0 } },
      { key: 'o-2', order: { key: 'o:k1', seq: 0 } },
      { key: 'o-3', order: { key: 'o:k0', seq: 1 } },
      { key: 'o-4', order: { key: 'o:k1', seq: 1 } }
    ])
    return s.stop(0)
  })

  it('gives each transactional slot the plan its key draws', () => {
    const asked: { key: string; transaction?: { decision: string; viaCheck: boolean } }[] = []
    const producer = {
      send: (input: { keys: string[]; transaction?: { decision: string; viaCheck: boolean } }) => {
        asked.push({ key: input.keys[0]!, transaction: input.transaction })
        return Promise.resolve()
      }
    }
    let now = 1000
    const s = new SendSchedule(
      {
        t0: 1000,
        end: null,
        producers: [
          {
            id: 'producer-1',
            rate: 100,
            messageSize: 8,
            offsetMs: 0,
            transaction: { commitShare: 0.8, checkShare: 0.2 }
          }
        ],
        maxInflight: 10,
        tag: 't'
      },
      { now: () => now, lookup: () => producer, ledger: NULL_LEDGER, roomOf: () => 'room1' }
    )
    s.start()
    now = 1015
    vi.advanceTimersByTime(10)
    expect(asked.map((a) => a.key)).toEqual(['producer-1-1', 'producer-1-2'])
    for (const a of asked) expect(a.transaction).toEqual(transactionPlanOf(a.key, 0.8, 0.2))
    return s.stop(0)
  })

  it('numbers each key’s messages in slot order', () => {
    expect(orderOf('p', 1, 16)).toEqual({ key: 'p:k0', seq: 0 })
    expect(orderOf('p', 17, 16)).toEqual({ key: 'p:k0', seq: 1 })
    expect(orderOf('p', 32, 16)).toEqual({ key: 'p:k15', seq: 1 })
  })

  it('a saturated producer sends again as soon as a send ends, not at the next tick', async () => {
    let now = 1000
    const p = heldProducer()
    const s = new SendSchedule(
      {
        t0: 1000,
        end: null,
        producers: [{ id: 'p', rate: 10_000, messageSize: 8, offsetMs: 0 }],
        maxInflight: 2,
        tag: 't'
      },
      { now: () => now, lookup: () => p, ledger: NULL_LEDGER, roomOf: () => 'room1' }
    )
    s.start()
    now = 1001
    vi.advanceTimersByTime(1)
    expect(p.started).toHaveLength(2)
    now = 1001.5
    p.pending.shift()!()
    await immediate()
    await immediate()
    // No timer ran (they are fake here): the end of a send fired the next due slot itself.
    expect(p.started).toHaveLength(3)
    expect(p.started[2]!.scheduledAt).toBeGreaterThan(1001)
    for (const end of p.pending) end()
    await s.stop(0)
  })
})
