import { describe, expect, it } from 'vitest'
import { LedgerReader } from '../../ledger/ledger-reader'
import { LedgerWriter } from '../../ledger/ledger-writer'
import { openDatabase, Recorder } from '../../ledger/recorder'
import type { DeliveryRecord, SendRecord } from '../../ledger/types'
import { drain } from './drain'
import type { RunContext } from './run-context'

const now = (): number => performance.timeOrigin + performance.now()
const send = (key: string): SendRecord => ({
  key,
  clientId: 'producer-1',
  clientRoom: 'room1',
  namesrvId: null,
  namesrvRoom: null,
  brokerName: 'broker-a',
  brokerRoom: 'room1',
  queueId: 0,
  queueOffset: 0,
  startedAt: now(),
  attemptStartedAt: null,
  endedAt: now(),
  status: 'acked',
  attempts: 1,
  error: null
})
const delivery = (key: string): DeliveryRecord => ({
  key,
  clientId: 'consumer-1',
  clientRoom: 'room1',
  namesrvRoom: null,
  brokerName: 'broker-a',
  brokerRoom: 'room1',
  queueId: 0,
  queueOffset: 0,
  bornAt: null,
  deliveredAt: now()
})

function context(): { ctx: RunContext; ledger: LedgerWriter; recorder: Recorder } {
  const recorder = new Recorder(openDatabase(':memory:'))
  const runId = recorder.startRun({ kind: 'scenario', topologyName: 't' })
  const ledger = new LedgerWriter(recorder.db, runId)
  const ctx = {
    plan: { runId, clients: [{ id: 'consumer-1', role: 'consumer' }] },
    ledger,
    reader: new LedgerReader(recorder.db),
    clock: { now },
    signal: new AbortController().signal,
    fleet: { isAlive: () => true },
    cluster: { status: () => ({ nodes: [] }) },
    notes: [],
    progress: () => undefined
  } as unknown as RunContext
  return { ctx, ledger, recorder }
}

describe('drain', () => {
  it('counts redeliveries that arrive in the grace period after the last message was consumed', async () => {
    const { ctx, ledger, recorder } = context()
    ledger.send(send('k1'))
    ledger.delivery(delivery('k1'))
    // A broker that restarts hands k1 out again a moment after the drain condition held.
    const late = setTimeout(() => ledger.delivery(delivery('k1')), 300)
    const r = await drain(ctx, { timeoutMs: 2000, graceMs: 600 })
    clearTimeout(late)
    expect(r).toMatchObject({ left: 0, lateDeliveries: 1, graceMs: 600 })
    expect(r.drainedAt).not.toBeNull()
    expect(ctx.reader.lossSummary(ctx.plan.runId).duplicates).toBe(1)
    recorder.close()
  })

  it('says when it timed out, with how many messages were left', async () => {
    const { ctx, ledger, recorder } = context()
    ledger.send(send('k1'))
    const r = await drain(ctx, { timeoutMs: 300, graceMs: 600 })
    expect(r).toMatchObject({ left: 1, drainedAt: null, lateDeliveries: 0 })
    expect(ctx.notes).toEqual(['drain timed out after 300 ms with 1 messages unconsumed'])
    recorder.close()
  })
})
