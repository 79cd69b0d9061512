import { describe, expect, it } from 'vitest'
import type { OrderLaneReport, Takeover, TransactionsLaneReport } from './schema'
import { gatesSchema } from './schema'
import type { GateFacts } from './gates'
import { electionGate, evaluateGates } from './gates'

const takeover = (over: Partial<Takeover> = {}): Takeover => ({
  group: 'broker-a',
  atMs: 5000,
  fault: 'kill',
  master: 'broker-a-1',
  masterRoom: 'room1',
  inSync: ['broker-a-1', 'broker-a-2', 'broker-a-3'],
  to: 'broker-a-3',
  toRoom: 'room3',
  afterMs: 1240,
  reason: null,
  ...over
})

/** A run of ten sends, all acknowledged and consumed, nothing else to say. */
const quietRun: GateFacts = {
  lost: 0,
  duplicates: 0,
  sent: 10,
  acked: 10,
  rtoMs: [],
  localSendShare: null,
  localConsumeShare: null,
  sendsVia: () => 0,
  consumedAcross: () => 0,
  failovers: [],
  managementFallbacks: () => 0
}

/** What the YAML `elections: [{ group: broker-a, toOtherRoom: true, within: 10s }]` parses to. */
const gate = (over: Record<string, unknown> = {}) =>
  gatesSchema.parse({ elections: [{ group: 'broker-a', ...over }] }).elections![0]!

describe('elections gate', () => {
  it('reads well in YAML: another room and 10 s unless said otherwise', () => {
    expect(gate()).toEqual({ group: 'broker-a', toOtherRoom: true, within: 10_000 })
    expect(gate({ toOtherRoom: false, within: '15s' })).toEqual({
      group: 'broker-a',
      toOtherRoom: false,
      within: 15_000
    })
  })

  it('passes a new master in another room in time, and says who and when', () => {
    expect(electionGate(gate(), [takeover()])).toEqual({
      name: 'broker-a: a new master in another room within 10 s of losing its master',
      passed: true,
      actual: 'broker-a-1 (room1) kill at 5 s → broker-a-3 (room3) after 1.2 s',
      limit: 'another room, <= 10 s'
    })
  })

  it('fails no new master, and says why none was elected', () => {
    const reason =
      'no replica in the SyncStateSet of broker-a when its master broker-a-1 was killed; SyncStateSet was [broker-a-1]'
    const r = electionGate(gate(), [takeover({ to: null, toRoom: null, afterMs: null, reason })])
    expect(r.passed).toBe(false)
    expect(r.actual).toBe(`broker-a-1 (room1) kill at 5 s → none: ${reason}`)
  })

  it('fails a new master in the room the group lost, unless any room will do', () => {
    const same = takeover({ to: 'broker-a-4', toRoom: 'room1' })
    expect(electionGate(gate(), [same])).toMatchObject({
      passed: false,
      actual: 'broker-a-1 (room1) kill at 5 s → broker-a-4 (room1) after 1.2 s, not another room'
    })
    expect(electionGate(gate({ toOtherRoom: false }), [same])).toMatchObject({
      name: 'broker-a: a new master within 10 s of losing its master',
      passed: true,
      limit: '<= 10 s'
    })
  })

  it('fails a new master later than the bound (and passes it at the bound)', () => {
    expect(electionGate(gate(), [takeover({ afterMs: 10_001 })])).toMatchObject({
      passed: false,
      actual: 'broker-a-1 (room1) kill at 5 s → broker-a-3 (room3) after 10 s, too late'
    })
    expect(electionGate(gate(), [takeover({ afterMs: 10_000 })]).passed).toBe(true)
  })

  it('fails when nothing took the group’s master out: a scenario that claims an election must cause one', () => {
    expect(electionGate(gate(), [takeover({ group: 'broker-b' })])).toMatchObject({
      passed: false,
      actual: "no fault took broker-a's master out"
    })
    expect(electionGate(gate(), [])).toMatchObject({ passed: false })
  })

  it('fails on a topology without controller-mode groups', () => {
    expect(electionGate(gate(), null)).toMatchObject({
      passed: false,
      actual: 'no controller-mode group in this run'
    })
  })

  it('judges every takeover of the group: one without a new master fails the gate', () => {
    const r = electionGate(gate(), [
      takeover(),
      takeover({
        atMs: 9000,
        master: 'broker-a-3',
        masterRoom: 'room3',
        to: null,
        toRoom: null,
        afterMs: null,
        reason: 'why'
      })
    ])
    expect(r.passed).toBe(false)
    expect(r.actual).toBe(
      'broker-a-1 (room1) kill at 5 s → broker-a-3 (room3) after 1.2 s; broker-a-3 (room3) kill at 9 s → none: why'
    )
  })

  it('is one gate line per configured group among the others', () => {
    const facts: GateFacts = {
      ...quietRun,
      takeovers: [
        takeover(),
        takeover({ group: 'broker-b', to: null, toRoom: null, afterMs: null, reason: 'r' })
      ]
    }
    const gates = gatesSchema.parse({
      elections: [{ group: 'broker-a' }, { group: 'broker-b', within: '20s' }]
    })
    expect(evaluateGates(gates, facts).map((g) => [g.name, g.passed])).toEqual([
      ['lost messages', true],
      ['broker-a: a new master in another room within 10 s of losing its master', true],
      ['broker-b: a new master in another room within 20 s of losing its master', false]
    ])
  })
})

describe('delayed lateness gate', () => {
  const facts = (late: number | null | undefined): GateFacts => ({
    ...quietRun,
    ...(late !== undefined ? { maxDelayLatenessMs: late } : {})
  })
  const judge = (late: number | null | undefined) =>
    evaluateGates(gatesSchema.parse({ maxDelayLatenessMs: 1500 }), facts(late)).find((g) =>
      g.name.startsWith('latest delayed delivery')
    )

  it('passes at the bound and fails past it', () => {
    expect(judge(1500)).toMatchObject({ passed: true, actual: 1500, limit: 1500 })
    expect(judge(1501)).toMatchObject({ passed: false, actual: 1501 })
  })

  it('fails a run that delivered no delayed message rather than passing it blind', () => {
    expect(judge(null)).toMatchObject({ passed: false, actual: 'no delayed message delivered' })
    expect(judge(undefined)).toMatchObject({ passed: false })
  })

  it('is absent unless configured', () => {
    const names = evaluateGates(gatesSchema.parse({}), facts(99_999)).map((g) => g.name)
    expect(names).toEqual(['lost messages'])
  })
})

describe('order gates', () => {
  const lane = (name: string, violations: number, maxStallMs: number | null): OrderLaneReport => ({
    lane: name,
    orderPolicy: 'wait',
    keys: 16,
    acked: 100,
    delivered: 100,
    storedUnacked: 0,
    violations,
    violatedKeys: [],
    violatedKeyCount: 0,
    firstViolationAtMs: null,
    reroutes: 0,
    reroutedKeyCount: 0,
    maxStallMs,
    stall: null
  })
  const judge = (order: OrderLaneReport[] | null) =>
    evaluateGates(gatesSchema.parse({ maxOrderViolations: 2, maxOrderStallMs: 5000 }), {
      ...quietRun,
      order
    }).slice(1)

  it('sums violations over lanes and takes the worst lane’s stall, passing at the bounds', () => {
    expect(judge([lane('remoting', 1, 5000), lane('remoting-reroute', 1, 20)])).toMatchObject([
      { name: 'order violations (all lanes)', passed: true, actual: 2, limit: 2 },
      { name: 'longest ordered queue stall (ms)', passed: true, actual: 5000, limit: 5000 }
    ])
    expect(judge([lane('remoting', 1, 5001), lane('remoting-reroute', 2, 20)])).toMatchObject([
      { passed: false, actual: 3 },
      { passed: false, actual: 5001 }
    ])
  })

  it('fails a run without ordered messages, or whose ordered messages were never delivered', () => {
    expect(judge(null)).toMatchObject([
      { passed: false, actual: 'no ordered message in this run' },
      { passed: false, actual: 'no ordered message in this run' }
    ])
    expect(judge([lane('remoting', 0, null)])[1]).toMatchObject({
      passed: false,
      actual: 'no ordered message delivered'
    })
  })
})

describe('transaction gate', () => {
  const lane = (name: string, mismatches: number, committed = 10) =>
    ({ lane: name, mismatches, committed }) as unknown as TransactionsLaneReport
  const judge = (transactions: TransactionsLaneReport[] | null) =>
    evaluateGates(gatesSchema.parse({ maxTxMismatches: 1 }), { ...quietRun, transactions }).slice(1)

  it('sums mismatches over lanes, passing at the bound', () => {
    expect(judge([lane('remoting', 0), lane('java', 1)])).toMatchObject([
      {
        name: 'transactions whose outcome differs from the local decision (all lanes)',
        passed: true,
        actual: 1,
        limit: 1
      }
    ])
    expect(judge([lane('remoting', 1), lane('java', 1)])).toMatchObject([
      { passed: false, actual: 2 }
    ])
  })

  it('sums the rollbacks clients made without running the local transaction', () => {
    const rollbacks = (name: string, clientRollbacks: number) =>
      ({ lane: name, mismatches: 0, committed: 5, clientRollbacks }) as TransactionsLaneReport
    const gate = (transactions: TransactionsLaneReport[] | null) =>
      evaluateGates(gatesSchema.parse({ maxTxClientRollbacks: 0 }), {
        ...quietRun,
        transactions
      }).slice(1)
    expect(gate([rollbacks('remoting', 0), rollbacks('java', 0)])).toMatchObject([
      { name: 'transactions rolled back by the client unrun (all lanes)', passed: true, actual: 0 }
    ])
    expect(gate([rollbacks('remoting', 0), rollbacks('java', 7)])).toMatchObject([
      { passed: false, actual: 7, limit: 0 }
    ])
    expect(gate(null)).toMatchObject([
      { passed: false, actual: 'no transactional message in this run' }
    ])
  })

  it('fails a run without transactional messages', () => {
    expect(judge(null)).toMatchObject([
      { passed: false, actual: 'no transactional message in this run' }
    ])
  })

  it('fails a run in which no transaction committed: nothing was there to arrive', () => {
    expect(judge([lane('remoting', 0, 0), lane('java', 0, 0)])).toMatchObject([
      { passed: false, actual: 'no transaction committed in this run' }
    ])
    expect(judge([lane('remoting', 0, 0), lane('java', 0, 3)])).toMatchObject([
      { passed: true, actual: 0 }
    ])
  })
})

describe('fail-back gates', () => {
  const failback = (after: number, rewinds: number, repairAtMs: number | null = 10_000) => ({
    repairAtMs,
    duplicatesBeforeRepair: 3,
    duplicatesAfterRepair: after,
    rewinds,
    rewoundQueues: []
  })
  const judge = (fb: ReturnType<typeof failback> | undefined) =>
    evaluateGates(gatesSchema.parse({ maxFailbackDuplicates: 5, maxOffsetRewinds: 1 }), {
      ...quietRun,
      ...(fb ? { failback: fb } : {})
    }).slice(1)

  it('bounds the duplicates after the first repair (not the failover’s) and the rewinds', () => {
    expect(judge(failback(5, 1))).toMatchObject([
      { name: 'duplicates after the first repair (fail-back)', passed: true, actual: 5, limit: 5 },
      { name: 'queue offset rewinds', passed: true, actual: 1, limit: 1 }
    ])
    expect(judge(failback(6, 2))).toMatchObject([
      { passed: false, actual: 6 },
      { passed: false, actual: 2 }
    ])
  })

  it('fails the fail-back bound on a run that repaired nothing, rather than passing it blind', () => {
    expect(judge(failback(0, 0, null))[0]).toMatchObject({
      passed: false,
      actual: 'nothing was repaired in this run'
    })
  })
})

describe('redeliveries gate', () => {
  const judge = (facts: Partial<GateFacts>) =>
    evaluateGates(gatesSchema.parse({ maxRedeliveries: 0 }), { ...quietRun, ...facts }).find((g) =>
      g.name.startsWith('redeliveries')
    )!

  it('passes duplicates a retried send stored twice, fails a stored message delivered again', () => {
    expect(judge({ duplicates: 3, redelivered: 0 })).toMatchObject({ passed: true, actual: 0 })
    expect(judge({ duplicates: 3, redelivered: 1 })).toMatchObject({ passed: false, actual: 1 })
  })

  it('fails when the run did not measure redeliveries', () => {
    expect(judge({})).toMatchObject({ passed: false, actual: 'not measured' })
  })
})
