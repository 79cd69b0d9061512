import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { computeRto } from '../../../common/scenario/metrics'
import { openDatabase, Recorder } from './'
import { LedgerReader, OWN_ROOM_FAILING_MS } from './ledger-reader'
import { LedgerWriter } from './ledger-writer'
import type { SendRecord } from './types'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function setup(file = ':memory:') {
  const db = openDatabase(file)
  const recorder = new Recorder(db)
  const runId = recorder.startRun({
    kind: 'scenario',
    topologyName: 'two-rooms',
    scenarioName: 't'
  })
  return { db, runId, recorder }
}

const send = (key: string, over: Partial<SendRecord> = {}): SendRecord => ({
  key,
  clientId: 'producer-1',
  clientRoom: 'room1',
  namesrvId: 'ns-1',
  namesrvRoom: 'room1',
  brokerName: 'broker-a',
  brokerRoom: 'room1',
  queueId: 0,
  queueOffset: 0,
  startedAt: 1000,
  attemptStartedAt: 1000,
  endedAt: 1002,
  status: 'acked',
  attempts: 1,
  error: null,
  ...over
})

const deliver = (
  w: LedgerWriter,
  key: string,
  clientId: string,
  room: string,
  brokerRoom: string,
  at: number
) =>
  w.delivery({
    key,
    clientId,
    clientRoom: room,
    namesrvRoom: room,
    brokerName: brokerRoom === 'room1' ? 'broker-a' : 'broker-b',
    brokerRoom,
    queueId: 0,
    queueOffset: 0,
    bornAt: null,
    deliveredAt: at
  })

/** A timed-out attempt of a room-1 client at room 1's broker-a, ending at `endMs`. */
function failedAttempt(w: LedgerWriter, clientId: string, key: string, endMs: number): void {
  w.event('send-attempt-failed', clientId, 'room1', {
    key,
    brokerName: 'broker-a',
    brokerRoom: 'room1',
    reason: 'timeout',
    startMs: endMs - 400,
    endMs
  })
}

/** `brokerRoom:phase:count` of a run's selections, sorted. */
function phasesOf(db: Database.Database, runId: number, firstFaultAtMs: number): string[] {
  return new LedgerReader(db)
    .selections(runId, firstFaultAtMs)
    .map((x) => `${x.brokerRoom}:${x.phase}:${x.count}`)
    .sort()
}

describe('LedgerWriter', () => {
  it('batches rows until the interval or the batch size', async () => {
    const { db, runId } = setup()
    const w = new LedgerWriter(db, runId, { flushIntervalMs: 20, maxBatch: 3 })
    w.send(send('a'))
    w.send(send('b'))
    expect(w.stats).toMatchObject({ sends: 0, pending: 2 })
    w.send(send('c'))
    expect(w.stats).toMatchObject({ sends: 3, pending: 0, batches: 1 })
    w.event('phase', null, null, { phase: 'workload' })
    await new Promise((r) => setTimeout(r, 60))
    expect(w.stats).toMatchObject({ events: 1, batches: 2 })
    w.close()
    w.send(send('d'))
    expect(w.stats.pending).toBe(0)
  })

  it('emits events live and is readable from another connection while running (WAL)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-'))
    dirs.push(dir)
    const file = join(dir, 'db.sqlite')
    const { db, runId } = setup(file)
    const seen: string[] = []
    const w = new LedgerWriter(db, runId)
    w.on('event', (e) => seen.push(e.kind))
    w.event('fault', null, 'room1', {
      action: 'kill',
      target: ['x'],
      nodes: ['broker-1'],
      ok: true
    })
    w.flush()
    const other = new Database(file, { readonly: true })
    expect(other.pragma('journal_mode', { simple: true })).toBe('wal')
    expect(new LedgerReader(other).events(runId).map((e) => e.kind)).toEqual(['fault'])
    expect(seen).toEqual(['fault'])
    other.close()
    w.close()
    db.close()
  })

  it('deleting a run removes its ledger', () => {
    const { db, runId, recorder } = setup()
    const w = new LedgerWriter(db, runId)
    w.send(send('a'))
    w.close()
    recorder.deleteRun(runId)
    expect(new LedgerReader(db).lossSummary(runId).sent).toBe(0)
  })
})

describe('LedgerReader', () => {
  it('splits duplicates into copies stored again (a retried send) and a stored copy delivered again', () => {
    const { db, runId } = setup()
    const w = new LedgerWriter(db, runId)
    w.send(send('k1'))
    w.send(send('k2'))
    // k1: stored by broker-a, and again by broker-b (a retry after a lost answer), each read once.
    deliver(w, 'k1', 'consumer-1', 'room1', 'room1', 2000)
    deliver(w, 'k1', 'consumer-2', 'room2', 'room2', 2100)
    // k2: stored once, delivered three times (a rebalance, then a rewind).
    for (const at of [2000, 2200, 2400]) deliver(w, 'k2', 'consumer-1', 'room1', 'room1', at)
    w.flush()
    expect(new LedgerReader(db).lossSummary(runId)).toMatchObject({
      duplicates: 3,
      storedAgain: 1,
      redelivered: 2
    })
  })

  it('counts loss, duplicates and per-client figures by key', () => {
    const { db, runId } = setup()
    const w = new LedgerWriter(db, runId)
    w.send(send('k1'))
    w.send(send('k2'))
    w.send(send('k3'))
    w.send(
      send('k4', {
        status: 'failed',
        brokerName: null,
        brokerRoom: null,
        endedAt: 4000,
        attempts: 3
      })
    )
    w.send(
      send('k5', {
        clientId: 'producer-2',
        clientRoom: 'room2',
        brokerRoom: 'room2',
        endedAt: 1500
      })
    )
    deliver(w, 'k1', 'consumer-1', 'room1', 'room1', 2000)
    deliver(w, 'k1', 'consumer-2', 'room2', 'room1', 2100)
    deliver(w, 'k2', 'consumer-1', 'room1', 'room1', 2000)
    deliver(w, 'k4', 'consumer-1', 'room1', 'room1', 2000)
    deliver(w, 'k5', 'consumer-2', 'room2', 'room2', 2000)
    w.flush()
    const r = new LedgerReader(db)
    expect(r.lossSummary(runId)).toEqual({
      sent: 5,
      acked: 4,
      failed: 1,
      deliveries: 5,
      consumedDistinct: 4,
      lost: 1,
      duplicates: 1,
      storedAgain: 0,
      redelivered: 1,
      unexpected: 1,
      lostKeys: ['k3']
    })
    expect(r.producerStats(runId)).toEqual([
      {
        clientId: 'producer-1',
        room: 'room1',
        sent: 4,
        acked: 3,
        failed: 1,
        lost: 1,
        duplicates: 1,
        maxLatencyMs: 2
      },
      {
        clientId: 'producer-2',
        room: 'room2',
        sent: 1,
        acked: 1,
        failed: 0,
        lost: 0,
        duplicates: 0,
        maxLatencyMs: 500
      }
    ])
    expect(r.consumerStats(runId)).toEqual([
      { clientId: 'consumer-1', room: 'room1', consumed: 3, duplicates: 0 },
      { clientId: 'consumer-2', room: 'room2', consumed: 2, duplicates: 1 }
    ])
    expect(r.consumedAcross(runId, 'room1', 'room2')).toBe(1)
    expect(r.firstDeliveryAcross(runId, 'room1', 'room2', 0)).toBe(2100)
    expect(r.sendsVia(runId, 'room2', 'room2')).toBe(1)
    w.close()
  })

  it('keeps each delayed message due time, and reads its first delivery (or none) back', () => {
    const { db, runId } = setup()
    const w = new LedgerWriter(db, runId)
    w.send(send('d1', { dueAt: 6000 }))
    w.send(send('d2', { dueAt: 7000, brokerRoom: 'room2', brokerName: 'broker-b' }))
    w.send(send('d3', { dueAt: 8000, status: 'failed' }))
    w.send(send('plain'))
    deliver(w, 'd1', 'consumer-1', 'room1', 'room1', 6400)
    deliver(w, 'd1', 'consumer-2', 'room2', 'room1', 6100)
    deliver(w, 'plain', 'consumer-1', 'room1', 'room1', 1100)
    // The broker's timer put d1 into the topic again: a third delivery from another offset.
    w.delivery({
      key: 'd1',
      clientId: 'consumer-1',
      clientRoom: 'room1',
      namesrvRoom: 'room1',
      brokerName: 'broker-a',
      brokerRoom: 'room1',
      queueId: 0,
      queueOffset: 9,
      bornAt: null,
      deliveredAt: 9000
    })
    w.flush()
    // Failed sends and plain messages are not the delayed checker's.
    expect(new LedgerReader(db).delayedMessages(runId)).toEqual([
      {
        key: 'd1',
        brokerRoom: 'room1',
        dueAt: 6000,
        firstDeliveredAt: 6100,
        deliveries: 3,
        positions: 2,
        producerId: 'producer-1'
      },
      {
        key: 'd2',
        brokerRoom: 'room2',
        dueAt: 7000,
        firstDeliveredAt: null,
        deliveries: 0,
        positions: 0,
        producerId: 'producer-1'
      }
    ])
  })

  it('reads transactional sends with their decision, end, warning, answered check-backs (their broker’s and others’) and deliveries', () => {
    const { db, runId } = setup()
    const w = new LedgerWriter(db, runId)
    w.send(send('t1', { txDecision: 'commit', txEnd: 'end', endedAt: 1001 }))
    w.send(send('t2', { txDecision: 'rollback', txEnd: 'end', endedAt: 1002 }))
    w.send(send('t3', { txDecision: 'commit', txEnd: 'check', endedAt: 1003 }))
    w.send(
      send('t4', {
        txDecision: 'commit',
        txEnd: 'client-rollback',
        error: 'FLUSH_SLAVE_TIMEOUT',
        endedAt: 1004
      })
    )
    w.send(send('t5', { txDecision: 'commit', txEnd: null, status: 'failed', endedAt: 1005 }))
    w.send(send('plain', { endedAt: 1006 }))
    for (const answer of ['unknown', 'commit', 'commit'] as const)
      w.event('transaction-checked', 'producer-2', 'room2', {
        key: 't3',
        brokerName: 'broker-a',
        answer
      })
    // A timed-out attempt left a second half message of t1 on broker-b; its check-back is apart.
    w.event('transaction-checked', 'producer-1', 'room1', {
      key: 't1',
      brokerName: 'broker-b',
      answer: 'rollback'
    })
    deliver(w, 't1', 'consumer-1', 'room1', 'room1', 1500)
    deliver(w, 't3', 'consumer-1', 'room1', 'room1', 1600)
    deliver(w, 't3', 'consumer-2', 'room2', 'room1', 1700)
    deliver(w, 'plain', 'consumer-1', 'room1', 'room1', 1800)
    w.flush()
    const reader = new LedgerReader(db)
    expect(reader.transactionalMessages(runId)).toEqual([
      {
        key: 't1',
        producerId: 'producer-1',
        status: 'acked',
        warning: null,
        decision: 'commit',
        end: 'end',
        checksAnswered: 0,
        checksElsewhere: 1,
        deliveries: 1
      },
      {
        key: 't2',
        producerId: 'producer-1',
        status: 'acked',
        warning: null,
        decision: 'rollback',
        end: 'end',
        checksAnswered: 0,
        checksElsewhere: 0,
        deliveries: 0
      },
      {
        key: 't3',
        producerId: 'producer-1',
        status: 'acked',
        warning: null,
        decision: 'commit',
        end: 'check',
        checksAnswered: 2,
        checksElsewhere: 0,
        deliveries: 2
      },
      {
        key: 't4',
        producerId: 'producer-1',
        status: 'acked',
        warning: 'FLUSH_SLAVE_TIMEOUT',
        decision: 'commit',
        end: 'client-rollback',
        checksAnswered: 0,
        checksElsewhere: 0,
        deliveries: 0
      },
      {
        key: 't5',
        producerId: 'producer-1',
        status: 'failed',
        warning: null,
        decision: 'commit',
        end: null,
        checksAnswered: 0,
        checksElsewhere: 0,
        deliveries: 0
      }
    ])
    // A transaction rolled back (by its local transaction or its client) is not lost undelivered.
    expect(reader.lossSummary(runId)).toMatchObject({ acked: 5, lost: 0, lostKeys: [] })
    expect(reader.unconsumedCount(runId)).toBe(0)
    // Delivered although rolled back: the loss summary counts it as unexpected.
    deliver(w, 't2', 'consumer-1', 'room1', 'room1', 1900)
    w.flush()
    expect(reader.lossSummary(runId).unexpected).toBe(1)
    // RPO places acknowledged sends by queue offset: a half message's is the half topic's.
    expect(reader.ackedSendsTo(runId, ['broker-a']).map((r) => r.key)).toEqual(['plain'])
  })

  it('reads a window’s load: sends scheduled by client room, acknowledgements by broker room', () => {
    const { db, runId } = setup()
    const w = new LedgerWriter(db, runId)
    // Scheduled in the window, acknowledged by room 2 in it; one acknowledged after it; one failed.
    w.send(send('a', { scheduledAt: 6100, startedAt: 6100, endedAt: 6300, brokerRoom: 'room2' }))
    w.send(send('b', { scheduledAt: 9900, startedAt: 9900, endedAt: 10_400, brokerRoom: 'room2' }))
    w.send(send('c', { scheduledAt: 7000, startedAt: 7000, endedAt: 7400, status: 'failed' }))
    w.send(send('d', { clientRoom: 'room2', scheduledAt: 5000, startedAt: 5000, endedAt: 6200 }))
    w.flush()
    expect(new LedgerReader(db).windowLoad(runId, 6000, 10_000)).toEqual({
      offered: [{ room: 'room1', sends: 3 }],
      carried: [
        { room: 'room1', acked: 1 },
        { room: 'room2', acked: 1 }
      ]
    })
  })

  it('sums what each client moved between rooms, produce and consume, failed sends left out', () => {
    const { db, runId } = setup()
    const w = new LedgerWriter(db, runId)
    w.send(send('a'))
    w.send(send('b', { brokerName: 'broker-b', brokerRoom: 'room2' }))
    w.send(send('c', { brokerName: 'broker-b', brokerRoom: 'room2' }))
    w.send(send('d', { status: 'failed', brokerName: 'broker-b', brokerRoom: 'room2' }))
    deliver(w, 'a', 'consumer-2', 'room2', 'room1', 1500)
    deliver(w, 'b', 'consumer-2', 'room2', 'room2', 1500)
    w.flush()
    expect(new LedgerReader(db).roomFlows(runId)).toEqual([
      {
        kind: 'consume',
        clientId: 'consumer-2',
        producerId: 'producer-1',
        fromRoom: 'room1',
        toRoom: 'room2',
        messages: 1
      },
      {
        kind: 'consume',
        clientId: 'consumer-2',
        producerId: 'producer-1',
        fromRoom: 'room2',
        toRoom: 'room2',
        messages: 1
      },
      {
        kind: 'produce',
        clientId: 'producer-1',
        producerId: 'producer-1',
        fromRoom: 'room1',
        toRoom: 'room1',
        messages: 1
      },
      {
        kind: 'produce',
        clientId: 'producer-1',
        producerId: 'producer-1',
        fromRoom: 'room1',
        toRoom: 'room2',
        messages: 2
      }
    ])
  })

  it('keeps each ordered message’s key and sequence, and reads where it was stored and first delivered', () => {
    const { db, runId } = setup()
    const w = new LedgerWriter(db, runId)
    w.send(send('o1', { orderKey: 'producer-1:k0', orderSeq: 0, queueId: 2, queueOffset: 7 }))
    w.send(send('o2', { orderKey: 'producer-1:k0', orderSeq: 1, endedAt: 1010, queueId: 2 }))
    w.send(send('o3', { orderKey: 'producer-1:k0', orderSeq: 2, status: 'failed' }))
    // Reported failed (a timeout), stored anyway: consumers saw it, from broker-b#1 at offset 4.
    w.send(send('o4', { orderKey: 'producer-1:k0', orderSeq: 3, status: 'failed', endedAt: 1020 }))
    w.delivery({
      key: 'o4',
      clientId: 'consumer-2',
      clientRoom: 'room2',
      namesrvRoom: 'room2',
      brokerName: 'broker-b',
      brokerRoom: 'room2',
      queueId: 1,
      queueOffset: 4,
      bornAt: null,
      deliveredAt: 1600
    })
    w.send(send('plain'))
    deliver(w, 'o1', 'consumer-1', 'room1', 'room1', 1500)
    deliver(w, 'o1', 'consumer-2', 'room2', 'room1', 1400)
    w.flush()
    // Failed sends nobody saw and unordered messages are not the order checker's.
    expect(new LedgerReader(db).orderedMessages(runId)).toEqual([
      {
        key: 'o1',
        producerId: 'producer-1',
        orderKey: 'producer-1:k0',
        orderSeq: 0,
        // Where consumers read it from (deliver() says broker-a#0 at 0), over the acknowledgement.
        brokerName: 'broker-a',
        queueId: 0,
        queueOffset: 0,
        ackedAt: 1002,
        firstDeliveredAt: 1400
      },
      {
        key: 'o2',
        producerId: 'producer-1',
        orderKey: 'producer-1:k0',
        orderSeq: 1,
        brokerName: 'broker-a',
        queueId: 2,
        queueOffset: 0,
        ackedAt: 1010,
        firstDeliveredAt: null
      },
      {
        key: 'o4',
        producerId: 'producer-1',
        orderKey: 'producer-1:k0',
        orderSeq: 3,
        brokerName: 'broker-b',
        queueId: 1,
        queueOffset: 4,
        ackedAt: null,
        firstDeliveredAt: 1600
      }
    ])
  })

  it('reads every delivery’s queue position in time order, for the fail-back checker', () => {
    const { db, runId } = setup()
    const w = new LedgerWriter(db, runId)
    deliver(w, 'b', 'consumer-1', 'room1', 'room1', 2000)
    deliver(w, 'a', 'consumer-2', 'room2', 'room1', 1000)
    w.flush()
    expect(new LedgerReader(db).deliveryPositions(runId)).toEqual([
      {
        key: 'a',
        clientId: 'consumer-2',
        brokerName: 'broker-a',
        queueId: 0,
        queueOffset: 0,
        deliveredAt: 1000
      },
      {
        key: 'b',
        clientId: 'consumer-1',
        brokerName: 'broker-a',
        queueId: 0,
        queueOffset: 0,
        deliveredAt: 2000
      }
    ])
  })

  it('feeds RTO from acknowledged sends and failed attempts', () => {
    const { db, runId } = setup()
    const w = new LedgerWriter(db, runId)
    w.send(send('a', { startedAt: 900, attemptStartedAt: 900, endedAt: 901 }))
    w.event('send-attempt-failed', 'producer-1', 'room1', {
      key: 'b',
      brokerName: 'broker-a',
      brokerRoom: 'room1',
      reason: 'reset',
      startMs: 1000,
      endMs: 1001
    })
    w.send(
      send('b', {
        startedAt: 1000,
        attemptStartedAt: 1001,
        endedAt: 1004,
        brokerRoom: 'room2',
        attempts: 2
      })
    )
    w.flush()
    const r = new LedgerReader(db)
    const ops = r.sendOps(runId, 'producer-1')
    expect(ops).toHaveLength(3)
    expect(computeRto(ops, [950])).toEqual([
      { boundaryMs: 950, failedAtMs: 1000, recoveredAtMs: 1004, rtoMs: 4 }
    ])
    expect(r.selections(runId, 950)).toEqual([
      {
        clientId: 'producer-1',
        clientRoom: 'room1',
        namesrvRoom: 'room1',
        brokerRoom: 'room1',
        phase: 'before-fault',
        count: 1
      },
      {
        clientId: 'producer-1',
        clientRoom: 'room1',
        namesrvRoom: 'room1',
        brokerRoom: 'room2',
        phase: 'after-fault',
        count: 1
      }
    ])
    expect(r.sendLatencies(runId, 950)).toEqual([4])
    // A send in flight at the fault and acknowledged by another room afterwards is not "healthy".
    expect(r.selections(runId, 1002).map((x) => `${x.brokerRoom}:${x.phase}`)).toEqual([
      'room1:before-fault',
      'room2:after-fault'
    ])
    w.close()
  })

  it('files a send another room acknowledged while the own room was failing it as a failover, not a healthy choice', () => {
    const { db, runId } = setup()
    const w = new LedgerWriter(db, runId)
    const failed = (key: string, endMs: number): void => failedAttempt(w, 'producer-1', key, endMs)
    w.send(send('a', { startedAt: 100, attemptStartedAt: 100, endedAt: 101 }))
    // A chosen cross-room send before any failure stays a healthy choice.
    w.send(send('b', { startedAt: 150, attemptStartedAt: 150, endedAt: 151, brokerRoom: 'room2' }))
    failed('c', 600)
    w.send(
      send('c', {
        startedAt: 200,
        attemptStartedAt: 600,
        endedAt: 603,
        brokerRoom: 'room2',
        attempts: 2
      })
    )
    // Still failing (no own-room answer since 600): a failover.
    w.send(send('d', { startedAt: 610, attemptStartedAt: 610, endedAt: 612, brokerRoom: 'room2' }))
    // The own room answers again: from here on, cross-room sends are choices again.
    w.send(send('e', { startedAt: 700, attemptStartedAt: 700, endedAt: 702 }))
    w.send(send('f', { startedAt: 710, attemptStartedAt: 710, endedAt: 712, brokerRoom: 'room2' }))
    // Another client's failure says nothing about producer-1's room.
    failedAttempt(w, 'producer-2', 'x', 801)
    w.send(send('g', { startedAt: 810, attemptStartedAt: 810, endedAt: 812, brokerRoom: 'room2' }))
    // After the fault every send is after-fault, failing or not.
    failed('h', 1001)
    w.send(
      send('h', { startedAt: 1000, attemptStartedAt: 1001, endedAt: 1003, brokerRoom: 'room2' })
    )
    w.flush()
    expect(phasesOf(db, runId, 1000)).toEqual([
      'room1:before-fault:2',
      'room2:after-fault:1',
      'room2:before-fault:3',
      'room2:own-room-failing:2'
    ])
    w.close()
  })

  it('files cross-room sends as failovers while the client keeps an own-room broker isolated, even after a late answer from it, until a sibling answers or it recovers', () => {
    const { db, runId } = setup()
    const w = new LedgerWriter(db, runId)
    const away = (key: string, endedAt: number): void =>
      w.send(
        send(key, {
          startedAt: endedAt - 2,
          attemptStartedAt: endedAt - 2,
          endedAt,
          brokerRoom: 'room2',
          brokerName: 'broker-b'
        })
      )
    const own = (key: string, endedAt: number, brokerName = 'broker-a'): void =>
      w.send(
        send(key, {
          startedAt: endedAt - 500,
          attemptStartedAt: endedAt - 500,
          endedAt,
          brokerName
        })
      )
    const iso = (
      kind: 'broker-isolated' | 'broker-recovered',
      atMs: number,
      brokerName = 'broker-a',
      brokerRoom = 'room1',
      isolatedForMs?: number
    ) =>
      w.event(
        kind,
        'producer-1',
        'room1',
        kind === 'broker-isolated'
          ? {
              brokerName,
              brokerRoom,
              reason: 'timeout',
              ...(isolatedForMs ? { isolatedForMs } : {})
            }
          : { brokerName, brokerRoom, isolatedMs: 1 },
        atMs
      )
    // Healthy choice before anything happened.
    away('a', 100)
    // A timeout isolates broker-a; the request it gave up on is answered late, by broker-a.
    failedAttempt(w, 'producer-1', 'b', 400)
    iso('broker-isolated', 400)
    away('b', 403)
    own('late', 650)
    // Still isolated: a failover although broker-a acknowledged a send since the failure.
    away('c', 700)
    // Another own-room broker recovering says nothing about broker-a.
    iso('broker-isolated', 710, 'broker-c')
    iso('broker-recovered', 720, 'broker-c')
    away('c2', 730)
    // The probe let broker-a back in: cross-room sends are choices again.
    iso('broker-recovered', 900)
    away('d', 950)
    // Another room's broker isolated says nothing about the own room.
    iso('broker-isolated', 1000, 'broker-b', 'room2')
    away('e', 1050)
    // broker-a isolated again, but a sibling in the room answers: going away is a choice.
    iso('broker-isolated', 1100)
    away('f', 1150)
    own('sibling', 1160, 'broker-c')
    away('f2', 1170)
    // Isolated and never recovered: counted against the room again after OWN_ROOM_FAILING_MS.
    iso('broker-isolated', 1200)
    away('g', 1300)
    away('h', 1201 + OWN_ROOM_FAILING_MS)
    // The Java extension isolates for a time it names: failing within it, not after it.
    iso('broker-isolated', 8000, 'broker-a', 'room1', 300)
    away('i', 8200)
    away('j', 8400)
    w.flush()
    expect(phasesOf(db, runId, 100_000)).toEqual([
      'room1:before-fault:2',
      'room2:before-fault:6',
      'room2:own-room-failing:6'
    ])
    w.close()
  })

  it('counts cross-room sends against the own room again once a failure is OWN_ROOM_FAILING_MS old, and never files a send of unknown room as a failover', () => {
    const { db, runId } = setup()
    const w = new LedgerWriter(db, runId)
    failedAttempt(w, 'producer-1', 'a', 1000)
    const away = (key: string, endedAt: number, brokerRoom: string | null = 'room2'): void =>
      w.send(
        send(key, { startedAt: endedAt - 2, attemptStartedAt: endedAt - 2, endedAt, brokerRoom })
      )
    away('a', 1003)
    away('b', 1000 + OWN_ROOM_FAILING_MS)
    // The client never came back although nothing failed since: a choice, counted against it.
    away('c', 1001 + OWN_ROOM_FAILING_MS)
    away('d', 1500, null)
    w.flush()
    expect(phasesOf(db, runId, 100_000)).toEqual([
      'null:before-fault:1',
      'room2:before-fault:1',
      'room2:own-room-failing:2'
    ])
    w.close()
  })

  it('tails events after an id and filters kinds; counters become samples', () => {
    const { db, runId } = setup()
    const w = new LedgerWriter(db, runId)
    w.event(
      'counters',
      'p1',
      'room1',
      { sent: 1, acked: 1, failed: 0, consumed: 0, inflight: 0 },
      10
    )
    w.event('phase', null, null, { phase: 'drain' }, 20)
    w.flush()
    const r = new LedgerReader(db)
    const all = r.events(runId)
    expect(all.map((e) => e.kind)).toEqual(['counters', 'phase'])
    expect(r.events(runId, { afterId: all[0]!.id }).map((e) => e.kind)).toEqual(['phase'])
    expect(r.counters(runId)).toEqual([
      {
        atMs: 10,
        clientId: 'p1',
        values: { sent: 1, acked: 1, failed: 0, consumed: 0, inflight: 0 }
      }
    ])
    w.close()
  })
})
