import { describe, expect, it } from 'vitest'
import { applyStallEvent, describeStalls } from './stall-store'

const ev = (kind: string, clientId: string, data: Record<string, unknown> = {}) => ({
  kind,
  clientId,
  data
})
const lock = (queue: string) => ({ queue, cause: 'lock' as const })
const unreachable = (queue: string) => ({ queue, cause: 'unreachable' as const })
const pull = (kind: 'pull-failed' | 'pull-resumed', c: string, q: number) =>
  ev(kind, c, { brokerName: 'broker-a', queueId: q, reason: 'reset', stalledMs: 10 })
const wait = (c: string, q: number) =>
  ev('queue-lock-wait', c, { brokerName: 'broker-a', queueId: q, reason: 'held by another client' })

describe('applyStallEvent', () => {
  it('opens a stall per refused queue and closes it when the lock comes', () => {
    let s = applyStallEvent({}, wait('consumer-2', 0))
    s = applyStallEvent(s, wait('consumer-2', 1))
    s = applyStallEvent(s, wait('consumer-2', 1))
    expect(s).toEqual({ 'consumer-2': [lock('broker-a#0'), lock('broker-a#1')] })
    s = applyStallEvent(
      s,
      ev('queue-locked', 'consumer-2', { brokerName: 'broker-a', queueId: 0, waitedMs: 60_000 })
    )
    expect(s).toEqual({ 'consumer-2': [lock('broker-a#1')] })
    s = applyStallEvent(s, ev('queue-locked', 'consumer-2', { brokerName: 'broker-a', queueId: 1 }))
    expect(s).toEqual({})
  })

  it('ends a stall when a rebalance takes the queue away, or the consumer stops', () => {
    let s = applyStallEvent(applyStallEvent({}, wait('c', 0)), wait('c', 1))
    s = applyStallEvent(
      s,
      ev('rebalance', 'c', { queues: [{ brokerName: 'broker-a', room: 'room1', queueId: 1 }] })
    )
    expect(s).toEqual({ c: [lock('broker-a#1')] })
    expect(applyStallEvent(s, ev('client-stopped', 'c', { role: 'consumer' }))).toEqual({})
  })

  it('opens a stall per queue whose pulls fail and closes it when a pull answers again', () => {
    let s = applyStallEvent({}, pull('pull-failed', 'c', 0))
    s = applyStallEvent(s, pull('pull-failed', 'c', 1))
    expect(s).toEqual({ c: [unreachable('broker-a#0'), unreachable('broker-a#1')] })
    s = applyStallEvent(s, pull('pull-resumed', 'c', 0))
    expect(s).toEqual({ c: [unreachable('broker-a#1')] })
    // A lock granted does not end a stall of pulls, nor a pull answered one of locks.
    expect(
      applyStallEvent(s, ev('queue-locked', 'c', { brokerName: 'broker-a', queueId: 1 }))
    ).toBe(s)
    expect(
      applyStallEvent(applyStallEvent({}, wait('c', 3)), pull('pull-resumed', 'c', 3))
    ).toEqual({ c: [lock('broker-a#3')] })
  })

  it('ignores a failed pull that names no queue (a gRPC consumer’s, of its proxy)', () => {
    const s = applyStallEvent({}, wait('c', 0))
    expect(applyStallEvent(s, ev('pull-failed', 'c', { brokerName: 'proxy-1', reason: 'x' }))).toBe(
      s
    )
  })

  it('describes the stalled queues by cause, for the badge', () => {
    expect(
      describeStalls([lock('broker-a#0'), unreachable('broker-b#1'), unreachable('broker-b#2')])
    ).toBe(
      'Nothing of these queues is consumed: no lock for broker-a#0 (another client holds it); pulls from broker-b#1, broker-b#2 fail (the broker does not answer)'
    )
  })

  it('leaves the state itself unchanged for other events and malformed ones', () => {
    const s = applyStallEvent({}, wait('c', 0))
    expect(applyStallEvent(s, ev('send-failed', 'c'))).toBe(s)
    expect(applyStallEvent(s, null)).toBe(s)
    expect(applyStallEvent(s, { kind: 'queue-locked' })).toBe(s)
    expect(
      applyStallEvent(s, ev('queue-locked', 'other', { brokerName: 'broker-a', queueId: 0 }))
    ).toBe(s)
  })
})
