import { describe, expect, it } from 'vitest'
import type { ScenarioReport } from '../../../common/scenario/schema'
import type { StoredEvent } from './plot-data'
import {
  delayedFacts,
  failbackFacts,
  trafficFacts,
  headroomFacts,
  orderRows,
  orderMarkers,
  transactionRows,
  checkBackText,
  controllerFacts,
  failoverBars,
  failoverLine,
  failoverShort,
  layoutMarkerLabels,
  faultMarkers,
  formatGateValue,
  formatRto,
  parseReport,
  plotOrigin,
  rateSeries
} from './plot-data'
import { describeLedgerEvent, ledgerSeverity } from './ledger-text'

const T0 = 1_700_000_000_000

function report(over: Partial<ScenarioReport> = {}): ScenarioReport {
  return {
    kind: 'drstudio/scenario-report',
    version: 1,
    scenario: 'kill-broker',
    topology: 'two-rooms',
    runId: 7,
    passed: true,
    topic: 't',
    consumerGroup: 'g',
    startedAt: new Date(T0).toISOString(),
    endedAt: new Date(T0 + 30_000).toISOString(),
    originMs: T0,
    timings: { setupMs: 0, settleMs: 0, workloadMs: 0, drainMs: 0, totalMs: 0 },
    totals: { sent: 10, acked: 10, failed: 0, consumed: 10, lost: 0, duplicates: 0 },
    gates: [],
    clients: [],
    failovers: [
      {
        atMs: 5000,
        clientId: 'producer-1',
        kind: 'broker',
        fromRoom: 'room1',
        toRoom: 'room2',
        reason: 'refused',
        durationMs: 23.4
      },
      {
        atMs: 4000,
        clientId: 'consumer-1',
        kind: 'namesrv',
        fromRoom: 'room1',
        toRoom: null,
        reason: 'timeout',
        durationMs: null
      }
    ],
    selections: [],
    faults: [{ atMs: 3000, action: 'kill', target: ['broker-1'], nodes: ['broker-1'], ok: true }],
    notes: [],
    ...over
  }
}

const sample = (atS: number, clientId: string, sent: number, failed = 0) => ({
  atMs: T0 + atS * 1000,
  clientId,
  values: { sent, failed, acked: sent - failed }
})

describe('rateSeries', () => {
  it('turns cumulative counters into per-client rates on a shared x axis', () => {
    const counters = [
      sample(0, 'producer-1', 0),
      sample(1, 'producer-1', 100),
      sample(2, 'producer-1', 150, 5),
      sample(0.5, 'producer-2', 0),
      sample(1.5, 'producer-2', 40),
      sample(1, 'consumer-1', 0)
    ]
    const sends = rateSeries(counters, T0, 'sent')
    expect(sends.xs).toEqual([1, 1.5, 2])
    expect(sends.series.map((s) => s.clientId)).toEqual(['producer-1', 'producer-2'])
    expect(sends.series[0]!.values).toEqual([100, null, 50])
    expect(sends.series[1]!.values).toEqual([null, 40, null])
  })

  it('keeps included clients at zero so failures line up with sends', () => {
    const counters = [sample(0, 'producer-1', 0), sample(1, 'producer-1', 10)]
    const failures = rateSeries(counters, T0, 'failed', ['producer-1'])
    expect(failures.series).toEqual([{ clientId: 'producer-1', values: [0] }])
    expect(rateSeries(counters, T0, 'failed').series).toEqual([])
  })

  it('is empty without counters', () => {
    expect(rateSeries([], T0, 'sent')).toEqual({ xs: [], series: [] })
  })
})

describe('faultMarkers', () => {
  const ev = (atMs: number, kind: string, data: Record<string, unknown>): StoredEvent => ({
    atMs,
    kind,
    clientId: null,
    room: null,
    data
  })

  it('places fault events relative to the origin, sorted', () => {
    const events = [
      ev(T0 + 9000, 'fault', { action: 'restart', target: ['all brokers of room1'], nodes: [] }),
      ev(T0 + 3000, 'fault', { action: 'kill', target: ['broker-1'], nodes: ['broker-1'] }),
      ev(T0 + 4000, 'broker-failover', {})
    ]
    expect(faultMarkers(events, T0)).toEqual([
      { x: 3, label: 'kill broker-1' },
      { x: 9, label: 'restart all brokers of room1' }
    ])
  })

  it("falls back to the report's faults (already relative)", () => {
    expect(faultMarkers([], T0, report())).toEqual([{ x: 3, label: 'kill broker-1' }])
    expect(faultMarkers([], T0)).toEqual([])
  })
})

describe('failovers', () => {
  it('formats one line per failover', () => {
    const [broker, ns] = report().failovers
    expect(failoverLine(broker!)).toBe(
      'producer-1: sends moved from room1 to room2, recovered in 23 ms'
    )
    expect(failoverLine(ns!)).toBe('consumer-1: lost its name server room1, not recovered')
    expect(failoverLine({ ...broker!, from: 'broker-a', to: 'broker-b' })).toBe(
      'producer-1: sends moved from room1 (broker-a) to room2 (broker-b), recovered in 23 ms'
    )
  })

  it('words a takeover from the consumer’s side: whose queues it took over', () => {
    // After room1's broker restarts, room1's consumer takes room2's queues (fromRoom = room2).
    const takeover = {
      atMs: 9000,
      clientId: 'consumer-1',
      kind: 'consumer-takeover' as const,
      fromRoom: 'room2',
      toRoom: 'room1',
      from: null,
      to: 'consumer-1',
      reason: 'room room1 has no broker serving orders',
      durationMs: 812.2
    }
    expect(failoverLine(takeover)).toBe(
      "consumer-1 (room1) took over room2's queues, first message after 812 ms"
    )
    expect(failoverLine({ ...takeover, durationMs: null })).toBe(
      "consumer-1 (room1) took over room2's queues, nothing consumed yet"
    )
    expect(failoverShort(takeover)).toBe("consumer-1 takes room2's queues")
  })

  it('makes one bar per failover in time order, null when never recovered', () => {
    expect(failoverBars(report())).toEqual({
      labels: ['consumer-1 name server room1 → none', 'producer-1 broker room1 → room2'],
      values: [null, 23]
    })
    expect(failoverBars(null)).toEqual({ labels: [], values: [] })
  })
})

describe('report helpers', () => {
  it('parses valid reports only', () => {
    expect(parseReport(report())?.runId).toBe(7)
    expect(parseReport({ kind: 'other' })).toBeNull()
    expect(parseReport(null)).toBeNull()
  })

  it('uses the workload start as origin, else the run start', () => {
    expect(plotOrigin(report(), 5)).toBe(T0)
    expect(plotOrigin(report({ originMs: 0 }), 5)).toBe(5)
    expect(plotOrigin(null, 5)).toBe(5)
  })

  it('formats RTOs and gate values', () => {
    expect(formatRto([])).toBe('–')
    expect(formatRto([null])).toBe('never')
    expect(formatRto([23.2, 41.7])).toBe('23 / 42 ms')
    expect(formatGateValue(null)).toBe('–')
    expect(formatGateValue(3)).toBe('3')
    expect(formatGateValue(0.98765)).toBe('0.988')
    expect(formatGateValue('room2')).toBe('room2')
  })
})

describe('ledger text', () => {
  it('describes failovers and faults in one line', () => {
    expect(
      describeLedgerEvent({
        kind: 'broker-failover',
        clientId: 'producer-1',
        room: 'room1',
        data: {
          from: 'broker-a',
          fromRoom: 'room1',
          to: 'broker-b',
          toRoom: 'room2',
          durationMs: 23
        }
      })
    ).toBe('broker broker-a (room1) → broker-b (room2), 23 ms')
    expect(
      describeLedgerEvent({
        kind: 'fault',
        clientId: null,
        room: null,
        data: { action: 'kill', nodes: ['broker-1'], ok: true }
      })
    ).toBe('kill broker-1')
    const timeout = (p99Ms: number | null, timeoutMs: number) =>
      describeLedgerEvent({
        kind: 'request-timeout',
        clientId: 'producer-1',
        room: 'room1',
        data: { timeoutMs, previousMs: 400, p99Ms, samples: 112 }
      })
    expect(timeout(498.5, 748)).toBe(
      'request timeout 400 → 748 ms (healthy p99 499 ms over 112 answers)'
    )
    expect(timeout(null, 400)).toBe('request timeout 400 → 400 ms (too few answers: the floor)')
    expect(
      describeLedgerEvent({ kind: 'new-kind', clientId: null, room: null, data: { a: 1 } })
    ).toBe('a=1')
  })

  it('classifies kinds for highlighting', () => {
    expect(ledgerSeverity('fault')).toBe('fault')
    expect(ledgerSeverity('namesrv-failover')).toBe('failover')
    expect(ledgerSeverity('send-failed')).toBe('error')
    expect(ledgerSeverity('rebalance')).toBe('info')
  })
})

describe('layoutMarkerLabels', () => {
  it('keeps captions on the top row while they do not overlap', () => {
    expect(layoutMarkerLabels([0, 100, 200], [80, 80, 80])).toEqual([
      { row: 0, shown: true },
      { row: 0, shown: true },
      { row: 0, shown: true }
    ])
  })

  it('stacks captions of markers close together, in x order whatever the input order', () => {
    expect(layoutMarkerLabels([40, 0, 20], [80, 80, 80])).toEqual([
      { row: 2, shown: true },
      { row: 0, shown: true },
      { row: 1, shown: true }
    ])
  })

  it('drops the caption (not the marker) when every row is taken', () => {
    const placed = layoutMarkerLabels([0, 5, 10, 15], [80, 80, 80, 80], 3)
    expect(placed.map((p) => p.shown)).toEqual([true, true, true, false])
  })
})

describe('ledger lines as an operator reads them', () => {
  const line = (kind: string, data: Record<string, unknown>) =>
    describeLedgerEvent({ kind, clientId: 'consumer-1', room: 'room1', data })

  it('a takeover names whose queues the consumer took over', () => {
    expect(
      line('consumer-takeover', {
        fromRoom: 'room2',
        toRoom: 'room1',
        queues: 4,
        reason: 'room room1 has no broker serving orders'
      })
    ).toBe('took over 4 queue(s) of room2 for room1: room room1 has no broker serving orders')
  })

  it('words node states, name-server samples and network faults', () => {
    expect(
      line('node-state', { nodeId: 'broker-1', state: 'starting', detail: 'port 10911' })
    ).toBe('broker-1 starting: port 10911')
    expect(line('namesrv-view', { namesrvId: 'ns-2', brokers: [{}, {}] })).toBe(
      'ns-2 lists 2 broker(s)'
    )
    expect(line('namesrv-view', { namesrvId: 'ns-1', brokers: [], error: 'timeout' })).toBe(
      'ns-1 did not answer: timeout'
    )
    expect(line('network-fault', { action: 'partition', target: ['room1'], peer: ['room2'] })).toBe(
      'network partition room1 ~ room2'
    )
    expect(ledgerSeverity('network-fault')).toBe('fault')
  })
})

describe('delayedFacts', () => {
  const d = {
    mechanism: 'timer' as const,
    delayMs: 5000,
    precisionMs: 1000,
    acked: 10,
    delivered: 9,
    neverDelivered: 1,
    early: 0,
    duplicates: 0,
    storedAgain: 0,
    latenessMs: { p50: 120, p99: 900, max: 7400 },
    latest: []
  }

  it('marks what went wrong: undelivered, and lateness past the timer precision', () => {
    const bad = delayedFacts(d)
      .filter((f) => f.bad)
      .map((f) => f.label)
    expect(bad).toEqual(['delivered', 'never delivered', 'lateness max'])
  })

  it('says a run with nothing delivered has no lateness rather than zero', () => {
    const facts = delayedFacts({
      ...d,
      delivered: 0,
      neverDelivered: 10,
      latenessMs: { p50: null, p99: null, max: null }
    })
    expect(facts.find((f) => f.label === 'lateness max')).toEqual({
      label: 'lateness max',
      value: '–',
      bad: false
    })
  })
})

describe('transactionRows', () => {
  const lane = {
    lane: 'java',
    sent: 320,
    acked: 300,
    committed: 230,
    rolledBack: 60,
    clientRollbacks: 10,
    storedWithWarning: 10,
    viaCheck: 58,
    endLost: null as number | null,
    checkedBack: 61,
    checkedAfterEnd: 3,
    checkedElsewhere: 0,
    mismatches: 4,
    committedUndelivered: 3,
    rolledBackDelivered: 1,
    unresolved: 1,
    duplicates: 0,
    mismatchedKeys: ['a', 'b', 'c', 'd']
  }
  const t = {
    commitShare: 0.8,
    checkShare: 0.2,
    checkIntervalMs: 2000,
    checkAfterMs: 6000,
    lanes: [
      lane,
      {
        ...lane,
        lane: 'remoting',
        clientRollbacks: 0,
        storedWithWarning: 0,
        endLost: 2,
        mismatches: 0,
        unresolved: 0,
        mismatchedKeys: []
      }
    ]
  }

  it('shows decisions, check-backs and mismatches per lane, marking the bad cells', () => {
    const [java, ours] = transactionRows(t)
    expect(java).toMatchObject({
      acked: '300 of 320 (10 without their slave)',
      rolledBack: '60 + 10 by the client',
      checks: '61 (58 planned, 3 after an end)',
      endLost: 'n/a',
      mismatches: '4 (3 committed undelivered, 1 rolled back delivered: a, b, c, …)',
      bad: { mismatches: true, unresolved: true, duplicates: false, rolledBack: true }
    })
    expect(ours).toMatchObject({
      acked: '300 of 320',
      rolledBack: '60',
      endLost: '2',
      mismatches: '0',
      bad: { mismatches: false }
    })
  })

  it('names the sandbox’s check-back timing, or says an attached cluster’s may take 30 s', () => {
    expect(checkBackText(t)).toBe(
      'Brokers check back half messages older than 6000 ms every 2000 ms.'
    )
    expect(checkBackText({ ...t, checkIntervalMs: null, checkAfterMs: null })).toMatch(
      /30 s by default in RocketMQ 5/
    )
  })
})

describe('controllerFacts', () => {
  it('shows the RPO, split brains and who acknowledged what was lost; nothing outside controller mode', () => {
    expect(controllerFacts(undefined)).toEqual([])
    const facts = controllerFacts({
      rpo: {
        lostWithOldMaster: 3,
        neverConsumed: 2,
        unreplicatedAtFault: 1,
        unknownQueues: 0,
        note: ''
      },
      groups: [
        {
          group: 'broker-a',
          switches: 1,
          maxMasters: 2,
          lostWithOldMaster: 3,
          neverConsumed: 2,
          unreplicatedAtFault: 1,
          lostKeys: ['k1', 'k2', 'k3'],
          lostBy: [
            {
              master: 'broker-a-1',
              room: 'room1',
              epoch: 1,
              messages: 3,
              afterSuccessor: 2,
              firstAtMs: 5000,
              lastAtMs: 7200,
              keys: ['k1', 'k2', 'k3']
            }
          ]
        }
      ],
      leaderChanges: 0,
      elections: [],
      takeovers: []
    })
    expect(facts).toContainEqual({
      label: 'broker-a: most masters at once',
      value: '2 (split brain), 1 switch(es)',
      bad: true
    })
    expect(facts).toContainEqual({
      label: 'broker-a: lost with broker-a-1',
      value: '3 acknowledged in room1, epoch 1, 5000–7200 ms; 2 after its successor was master',
      bad: true
    })
    expect(facts[0]).toMatchObject({
      value: '3 (2 never consumed, 1 unreplicated at the fault)',
      bad: true
    })
  })
})

describe('orderMarkers', () => {
  const lane = {
    lane: 'remoting',
    orderPolicy: 'wait' as const,
    keys: 16,
    acked: 400,
    delivered: 400,
    storedUnacked: 0,
    violations: 0,
    violatedKeys: [],
    violatedKeyCount: 0,
    firstViolationAtMs: null,
    reroutes: 0,
    reroutedKeyCount: 0,
    maxStallMs: 5230,
    stall: { brokerName: 'broker-a', queueId: 2, fromMs: 6100 }
  }

  it('marks a lane’s long stall where it began and its first violation, nothing for short stalls', () => {
    const report = {
      order: {
        orderKeys: 16,
        lanes: [
          lane,
          { ...lane, lane: 'java', maxStallMs: 400, violations: 3, firstViolationAtMs: 9050 }
        ]
      }
    } as unknown as ScenarioReport
    expect(orderMarkers(report)).toEqual([
      { x: 6.1, label: 'remoting stall 5.2 s (broker-a#2)', kind: 'order' },
      { x: 9.05, label: 'java out of order ×3', kind: 'order' }
    ])
    expect(orderMarkers(null)).toEqual([])
  })
})

describe('orderRows', () => {
  const lane = {
    lane: 'remoting',
    orderPolicy: 'wait' as const,
    keys: 16,
    acked: 400,
    delivered: 400,
    storedUnacked: 0,
    violations: 0,
    violatedKeys: [],
    violatedKeyCount: 0,
    firstViolationAtMs: null,
    reroutes: 0,
    reroutedKeyCount: 0,
    maxStallMs: 812,
    stall: { brokerName: 'broker-b', queueId: 3, fromMs: 6100 }
  }

  it('gives one row per lane, marking violations bad and reroutes worth a look', () => {
    const rows = orderRows({
      orderKeys: 16,
      lanes: [
        lane,
        {
          ...lane,
          lane: 'remoting-reroute',
          orderPolicy: 'reroute',
          violations: 7,
          violatedKeys: ['p:k1', 'p:k4'],
          violatedKeyCount: 3,
          reroutes: 40,
          reroutedKeyCount: 8,
          maxStallMs: null,
          stall: null
        }
      ]
    })
    expect(rows[0]).toEqual({
      lane: 'remoting',
      policy: 'wait',
      keys: 16,
      violations: '0',
      reroutes: '0',
      stall: '812 ms on broker-b#3 from 6100 ms',
      bad: { violations: false, reroutes: false }
    })
    expect(rows[1]).toMatchObject({
      violations: '7 (p:k1, p:k4, …)',
      reroutes: '40 over 8 keys',
      stall: '–',
      bad: { violations: true, reroutes: true }
    })
  })
})

describe('failbackFacts', () => {
  const f = {
    repairAtMs: 10_000,
    duplicatesBeforeRepair: 0,
    duplicatesAfterRepair: 12,
    rewinds: 2,
    rewoundQueues: [
      { lane: null, brokerName: 'broker-a', queueId: 1, rewinds: 2, maxBack: 40, firstAtMs: 14_000 }
    ],
    lanes: []
  }

  it('shows the repair, the duplicates on each side of it and the rewinds, marking what went wrong', () => {
    const facts = failbackFacts(f)
    expect(facts.map((x) => [x.label, x.value, x.bad])).toEqual([
      ['first repair', '10000 ms', false],
      ['duplicates before it', '0', false],
      ['duplicates after it', '12', true],
      ['offset rewinds', '2 (up to 40 back on broker-a#1)', true]
    ])
  })

  it('has nothing to say about a run that repaired nothing and never read back', () => {
    expect(failbackFacts({ ...f, repairAtMs: null, rewinds: 0, rewoundQueues: [] })).toEqual([])
  })

  it('adds a line per lane in a run of several', () => {
    const lanes = [
      { lane: 'remoting', duplicatesBeforeRepair: 0, duplicatesAfterRepair: 0, rewinds: 0 },
      { lane: 'java', duplicatesBeforeRepair: 0, duplicatesAfterRepair: 12, rewinds: 2 }
    ]
    expect(failbackFacts({ ...f, lanes }).slice(4)).toEqual([
      { label: 'remoting', value: 'duplicates 0 / 0, rewinds 0', bad: false },
      { label: 'java', value: 'duplicates 0 / 12, rewinds 2', bad: true }
    ])
    expect(failbackFacts(undefined)).toEqual([])
  })
})

describe('trafficFacts', () => {
  it('shows what crossed rooms, its pace and each direction; nothing for older reports', () => {
    expect(trafficFacts(undefined)).toEqual([])
    const facts = trafficFacts({
      links: [
        {
          fromRoom: 'room1',
          toRoom: 'room2',
          produce: { messages: 10, bytes: 10_240 },
          consume: { messages: 0, bytes: 0 }
        }
      ],
      totalBytes: 102_400,
      crossRoomBytes: 10_240,
      crossRoomShare: 0.1,
      crossRoomBytesPerHour: 1_048_576,
      replication: [
        {
          fromRoom: 'room1',
          toRoom: 'room2',
          bytes: 204_800,
          pairs: [{ master: 'broker-1', slave: 'broker-1-slave', bytes: 204_800 }]
        },
        // A slave in its master's room: not cross-room, not listed.
        { fromRoom: 'room2', toRoom: 'room2', bytes: 1, pairs: [] }
      ],
      pricePerGb: 0.02,
      costPerHour: 0.0004
    })
    expect(facts.map((f) => `${f.label}: ${f.value}`)).toEqual([
      'crossed rooms: 10.0 KiB of 100.0 KiB (10.0 %)',
      'at this pace: 1.0 MiB/h',
      'cost: 0.00040 per hour at 0.02 per GiB',
      'room1 → room2: produce 10.0 KiB, consume 0 B',
      'room1 → room2 replication: 200.0 KiB (broker-1 → broker-1-slave)'
    ])
  })
})

describe('headroomFacts', () => {
  it('labels each fault window and marks one whose rooms carried under 90 % of the offered rate', () => {
    const room = { offeredPerS: 20, peakCpuPct: null, peakSendQueue: null }
    const facts = headroomFacts([
      {
        fault: 'kill all brokers of room1',
        atMs: 4000,
        untilMs: 9000,
        offeredPerS: 40,
        carriedPerS: 20.4,
        share: 0.51,
        rooms: [
          { room: 'room1', ...room, carriedPerS: 0.2 },
          { room: 'room2', ...room, carriedPerS: 20.2, peakCpuPct: 39.6, peakSendQueue: 0 }
        ]
      }
    ])
    expect(facts).toEqual([
      {
        label: 'kill all brokers of room1 (4.0–9.0 s)',
        value:
          'carried 20.4 of 40.0 msg/s offered (51.0 %); room1 offered 20.0, carried 0.2; room2 offered 20.0, carried 20.2 (broker CPU up to 39.6 %, send queue up to 0)',
        bad: true
      }
    ])
    expect(headroomFacts(undefined)).toEqual([])
  })
})
