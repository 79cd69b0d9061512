import { describe, expect, it } from 'vitest'
import type { SendRecord } from '../ledger/types'
import { encodeFrame } from '../worker-wire/protocol'
import { WireLedger } from './wire-ledger'

/** The encoder before the single-allocation one: JSON bytes, then a 4-byte length in front. */
function legacyFrame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message), 'utf8')
  const head = Buffer.allocUnsafe(4)
  head.writeUInt32BE(body.length, 0)
  return Buffer.concat([head, body])
}

const send: SendRecord = {
  key: 'p-1',
  clientId: 'p',
  clientRoom: 'room1',
  namesrvId: 'ns-1',
  namesrvRoom: 'room1',
  brokerName: 'broker-a',
  brokerRoom: 'room1',
  scheduledAt: 1000.5,
  startedAt: 1001,
  attemptStartedAt: 1001.25,
  endedAt: 1003,
  attempts: 1,
  status: 'acked',
  queueId: 2,
  queueOffset: 17,
  error: null
}

describe('wire ledger rows', () => {
  it('frames ledger rows exactly as the spread rows did', () => {
    const batches: unknown[] = []
    const ledger = new WireLedger(
      (rows) => batches.push({ t: 'rows', rows }),
      () => 5
    )
    const delivery = {
      key: 'p-1',
      clientId: 'c',
      clientRoom: 'room2',
      namesrvRoom: null,
      brokerName: 'broker-a',
      brokerRoom: 'room1',
      queueId: 2,
      queueOffset: 17,
      bornAt: 1000,
      deliveredAt: 1004
    }
    ledger.send(send)
    ledger.delivery(delivery)
    ledger.flush()
    const legacy = {
      t: 'rows',
      rows: [
        { k: 's', ...send },
        { k: 'd', ...delivery }
      ]
    }
    expect(encodeFrame(batches[0]).equals(legacyFrame(legacy))).toBe(true)
  })

  it('carries a delayed message due time to the engine', () => {
    const batches: { rows: Record<string, unknown>[] }[] = []
    const ledger = new WireLedger(
      (rows) => batches.push({ rows: rows as Record<string, unknown>[] }),
      () => 5
    )
    ledger.send({ ...send, dueAt: 6000.5 })
    ledger.flush()
    expect(batches[0]!.rows[0]).toMatchObject({ k: 's', key: 'p-1', dueAt: 6000.5 })
  })
})
