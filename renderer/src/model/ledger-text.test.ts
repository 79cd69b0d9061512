import { describe, expect, it } from 'vitest'
import { describeLedgerEvent } from './ledger-text'

const line = (kind: string, data: Record<string, unknown>) => ({
  kind,
  clientId: 'consumer-1',
  room: 'room1',
  data
})

describe('describeLedgerEvent, a consumer’s pulls', () => {
  const q = { brokerName: 'broker-a', brokerRoom: 'room1', queueId: 2 }

  it('names the stalled queue when a pull of it fails, and its return with the stall', () => {
    expect(describeLedgerEvent(line('pull-failed', { ...q, reason: 'reset' }))).toBe(
      'queue 2 of broker-a (room1) stalled: pull failed: reset'
    )
    expect(describeLedgerEvent(line('pull-resumed', { ...q, stalledMs: 4210.4 }))).toBe(
      'queue 2 of broker-a (room1) answers pulls again, 4210 ms'
    )
  })

  it('reads a failed pull without a queue (a gRPC consumer’s, of its proxy) as before', () => {
    expect(
      describeLedgerEvent(
        line('pull-failed', { brokerName: 'proxy-1', brokerRoom: 'room1', reason: 'timeout' })
      )
    ).toBe('pull from proxy-1 (room1) failed: timeout')
  })
})
