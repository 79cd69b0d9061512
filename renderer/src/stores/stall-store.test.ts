import { describe, expect, it } from 'vitest'
import { applyStallEvent } from './stall-store'

const ev = (kind: string, clientId: string, data: Record<string, unknown> = {}) => ({
  kind,
  clientId,
  data
})
const wait = (c: string, q: number) =>
  ev('queue-lock-wait', c, { brokerName: 'broker-a', queueId: q, reason: 'held by another client' })

describe('applyStallEvent', () => {
  it('opens a stall per refused queue and closes it when the lock comes', () => {
    let s = applyStallEvent({}, wait('consumer-2', 0))
    s = applyStallEvent(s, wait('consumer-2', 1))
    s = applyStallEvent(s, wait('consumer-2', 1))
    expect(s).toEqual({ 'consumer-2': ['broker-a#0', 'broker-a#1'] })
    s = applyStallEvent(
      s,
      ev('queue-locked', 'consumer-2', { brokerName: 'broker-a', queueId: 0, waitedMs: 60_000 })
    )
    expect(s).toEqual({ 'consumer-2': ['broker-a#1'] })
    s = applyStallEvent(s, ev('queue-locked', 'consumer-2', { brokerName: 'broker-a', queueId: 1 }))
    expect(s).toEqual({})
  })

  it('ends a stall when a rebalance takes the queue away, or the consumer stops', () => {
    let s = applyStallEvent(applyStallEvent({}, wait('c', 0)), wait('c', 1))
    s = applyStallEvent(
      s,
      ev('rebalance', 'c', { queues: [{ brokerName: 'broker-a', room: 'room1', queueId: 1 }] })
    )
    expect(s).toEqual({ c: ['broker-a#1'] })
    expect(applyStallEvent(s, ev('client-stopped', 'c', { role: 'consumer' }))).toEqual({})
  })

  it('leaves the state itself unchanged for other events and malformed ones', () => {
    const s = applyStallEvent({}, wait('c', 0))
    expect(applyStallEvent(s, ev('pull-failed', 'c'))).toBe(s)
    expect(applyStallEvent(s, null)).toBe(s)
    expect(applyStallEvent(s, { kind: 'queue-locked' })).toBe(s)
    expect(
      applyStallEvent(s, ev('queue-locked', 'other', { brokerName: 'broker-a', queueId: 0 }))
    ).toBe(s)
  })
})
