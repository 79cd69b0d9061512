import { describe, expect, it } from 'vitest'
import type { MasterChange, OffsetSample, RpoSend } from './rpo'
import { computeRpo, takeoverOffsets, termOfSend, termsOf } from './rpo'

const G = 'broker-a'
const T = 'orders'

/** Acknowledged sends by the replica in `room`, one per offset, on queue 0. */
function sends(
  room: string,
  offsets: number[],
  opts: { at?: (i: number) => number; consumed?: (o: number) => boolean; queueId?: number } = {}
): RpoSend[] {
  return offsets.map((o, i) => ({
    key: `${room}-${opts.queueId ?? 0}-${o}`,
    topic: T,
    group: G,
    room,
    queueId: opts.queueId ?? 0,
    queueOffset: o,
    ackedAt: opts.at ? opts.at(i) : 100 + i,
    consumed: opts.consumed ? opts.consumed(o) : true
  }))
}

const change = (at: number, to: string | null, toRoom: string | null): MasterChange => ({
  group: G,
  at,
  to,
  toRoom
})

const faultSample = (
  at: number,
  master: string,
  offsets: Record<string, Record<string, number> | null>
): OffsetSample => ({
  group: G,
  at,
  trigger: 'fault',
  master,
  replicas: Object.entries(offsets).map(([nodeId, o]) => ({ nodeId, offsets: o }))
})

/** broker-a's master a-1 (room1) until 1000, then a-2 (room2). */
const SWITCH = [change(0, 'a-1', 'room1'), change(1000, 'a-2', 'room2')]

describe('termsOf', () => {
  it('opens a term per change of master and closes the previous one', () => {
    expect(termsOf(SWITCH, G)).toEqual([
      { master: 'a-1', room: 'room1', epoch: null, start: 0, end: 1000 },
      { master: 'a-2', room: 'room2', epoch: null, start: 1000, end: Infinity }
    ])
  })

  it('continues a term when the same master is named again (a new epoch, not a switch)', () => {
    expect(termsOf([change(0, 'a-1', 'room1'), change(50, 'a-1', 'room1')], G)).toHaveLength(1)
  })

  it('keeps a term with no master, sorts by time and ignores other groups', () => {
    const t = termsOf(
      [
        change(500, null, null),
        change(0, 'a-1', 'room1'),
        { ...change(10, 'b-1', 'room2'), group: 'broker-b' }
      ],
      G
    )
    expect(t.map((x) => x.master)).toEqual(['a-1', null])
  })
})

describe('termOfSend', () => {
  const terms = termsOf([...SWITCH, change(3000, 'a-1', 'room1')], G)

  it('is the latest term of the acknowledging room begun by the acknowledgement', () => {
    expect(termOfSend(terms, { room: 'room1', ackedAt: 500 })?.start).toBe(0)
    expect(termOfSend(terms, { room: 'room2', ackedAt: 1500 })?.start).toBe(1000)
    expect(termOfSend(terms, { room: 'room1', ackedAt: 3500 })?.start).toBe(3000)
  })

  it('keeps a replaced master acknowledging (cut off from the controllers) in its old term', () => {
    expect(termOfSend(terms, { room: 'room1', ackedAt: 2000 })?.start).toBe(0)
  })

  it('is undefined for a replica that was never master by then', () => {
    expect(termOfSend(terms, { room: 'room3', ackedAt: 2000 })).toBeUndefined()
    expect(termOfSend(terms, { room: 'room2', ackedAt: 900 })).toBeUndefined()
  })
})

describe('takeoverOffsets', () => {
  const [, successor] = termsOf(SWITCH, G)

  it("prefers the successor's first acknowledged offset per queue", () => {
    const out = takeoverOffsets({
      successor: successor!,
      group: G,
      sends: sends('room2', [7, 8, 9], { at: (i) => 1100 + i }),
      samples: [faultSample(1001, 'a-1', { 'a-2': { [`${T}|0`]: 12 } })]
    })
    expect(out.get(`${T}|0`)).toBe(7)
  })

  it('falls back to the highest sample of the successor for queues it never wrote', () => {
    const out = takeoverOffsets({
      successor: successor!,
      group: G,
      sends: [],
      samples: [
        faultSample(1001, 'a-1', { 'a-2': { [`${T}|0`]: 5 }, 'a-3': { [`${T}|0`]: 9 } }),
        {
          group: G,
          at: 1200,
          trigger: 'elected',
          master: 'a-2',
          replicas: [{ nodeId: 'a-2', offsets: { [`${T}|0`]: 6 } }]
        },
        // An election sample of another replica says nothing about the successor.
        {
          group: G,
          at: 1200,
          trigger: 'elected',
          master: 'a-3',
          replicas: [{ nodeId: 'a-3', offsets: { [`${T}|0`]: 40 } }]
        }
      ]
    })
    expect(out.get(`${T}|0`)).toBe(6)
  })

  it('knows nothing of a queue neither sampled nor written', () => {
    const out = takeoverOffsets({ successor: successor!, group: G, sends: [], samples: [] })
    expect(out.size).toBe(0)
  })
})

describe('computeRpo', () => {
  it('is zero without master changes, even with unconsumed sends', () => {
    const r = computeRpo({
      sends: sends('room1', [0, 1, 2], { consumed: () => false }),
      changes: [change(0, 'a-1', 'room1')],
      samples: []
    })
    expect(r).toMatchObject({
      lostWithOldMaster: 0,
      neverConsumed: 0,
      unreplicatedAtFault: 0,
      unknownQueues: 0
    })
    expect(r.groups[0]).toMatchObject({ group: G, switches: 0 })
  })

  it('is zero after a clean switch: the successor had everything', () => {
    const r = computeRpo({
      sends: [...sends('room1', [0, 1, 2, 3]), ...sends('room2', [4, 5], { at: (i) => 1100 + i })],
      changes: SWITCH,
      samples: [faultSample(990, 'a-1', { 'a-2': { [`${T}|0`]: 4 }, 'a-3': { [`${T}|0`]: 4 } })]
    })
    expect(r).toMatchObject({ lostWithOldMaster: 0, unreplicatedAtFault: 0, unknownQueues: 0 })
    expect(r.groups[0]!.switches).toBe(1)
  })

  it('counts what the old master acknowledged past the successor’s end, consumed or not', () => {
    const r = computeRpo({
      sends: [
        ...sends('room1', [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], { consumed: (o) => o < 8 }),
        ...sends('room2', [7, 8], { at: (i) => 1100 + i })
      ],
      changes: SWITCH,
      samples: [faultSample(995, 'a-1', { 'a-2': { [`${T}|0`]: 7 } })]
    })
    expect(r).toMatchObject({ lostWithOldMaster: 3, neverConsumed: 2, unreplicatedAtFault: 3 })
    expect(r.groups[0]!.lostKeys).toEqual(['room1-0-7', 'room1-0-8', 'room1-0-9'])
    // Attributed to the master that acknowledged them: a-1 in room1, none after its successor.
    expect(r.groups[0]!.lostBy).toEqual([
      {
        master: 'a-1',
        room: 'room1',
        epoch: null,
        messages: 3,
        afterSuccessor: 0,
        firstAckedAt: 107,
        lastAckedAt: 109,
        keys: ['room1-0-7', 'room1-0-8', 'room1-0-9']
      }
    ])
  })

  it('counts a split brain: the replaced master keeps acknowledging after the successor started', () => {
    const r = computeRpo({
      sends: [
        ...sends('room1', [0, 1], { at: (i) => 100 + i }),
        ...sends('room1', [2, 3], { at: (i) => 1500 + i }),
        ...sends('room2', [2], { at: () => 1200 })
      ],
      changes: SWITCH,
      samples: [faultSample(990, 'a-1', { 'a-2': { [`${T}|0`]: 2 } })]
    })
    // Lost with the old master, but acknowledged after the fault: not part of the replication gap.
    expect(r).toMatchObject({ lostWithOldMaster: 2, unreplicatedAtFault: 0 })
    // Both acknowledged by a-1 (epoch 1) while a-2 (epoch 2) was already master: the split brain.
    const withEpochs = computeRpo({
      sends: [
        ...sends('room1', [0, 1], { at: (i) => 100 + i }),
        ...sends('room1', [2, 3], { at: (i) => 1500 + i }),
        ...sends('room2', [2], { at: () => 1200 })
      ],
      changes: [
        { ...change(0, 'a-1', 'room1'), epoch: 1 },
        { ...change(1000, 'a-2', 'room2'), epoch: 2 }
      ],
      samples: [faultSample(990, 'a-1', { 'a-2': { [`${T}|0`]: 2 } })]
    })
    expect(withEpochs.groups[0]!.lostBy).toMatchObject([
      { master: 'a-1', room: 'room1', epoch: 1, messages: 2, afterSuccessor: 2, firstAckedAt: 1500 }
    ])
  })

  it('leaves sends of the current master out (they are loss, not RPO)', () => {
    const r = computeRpo({
      sends: [
        ...sends('room1', [0]),
        ...sends('room2', [1, 2], { at: (i) => 1100 + i, consumed: () => false })
      ],
      changes: SWITCH,
      samples: []
    })
    expect(r.lostWithOldMaster).toBe(0)
  })

  it('ignores sends of a replica that was never master (no term to attribute them to)', () => {
    const r = computeRpo({
      sends: sends('room3', [0, 1], { consumed: () => false }),
      changes: SWITCH,
      samples: []
    })
    expect(r.lostWithOldMaster).toBe(0)
  })

  it('without a successor offset counts only the never-consumed sends, and says how many queues', () => {
    const r = computeRpo({
      sends: [
        ...sends('room1', [0, 1]),
        ...sends('room1', [0, 1], { queueId: 1, consumed: (o) => o === 0 })
      ],
      changes: SWITCH,
      samples: [faultSample(990, 'a-1', { 'a-2': { [`${T}|0`]: 1 }, 'a-3': null })]
    })
    expect(r).toMatchObject({
      lostWithOldMaster: 2,
      neverConsumed: 1,
      unreplicatedAtFault: 2,
      unknownQueues: 1
    })
  })

  it('keeps topics apart: the same queue id of another topic has its own offsets', () => {
    const other = sends('room1', [0, 1, 2]).map((s) => ({
      ...s,
      topic: 'payments',
      key: `p-${s.key}`
    }))
    const r = computeRpo({
      sends: [...sends('room1', [0, 1, 2]), ...other],
      changes: SWITCH,
      samples: [faultSample(990, 'a-1', { 'a-2': { [`${T}|0`]: 3, 'payments|0': 1 } })]
    })
    expect(r.lostWithOldMaster).toBe(2)
  })

  it('takes the successor recorded just before the sample (the watcher saw the election first)', () => {
    const r = computeRpo({
      sends: [
        ...sends('room1', [0, 1, 2], { at: (i) => 100 + i }),
        ...sends('room2', [1], { at: () => 1050 })
      ],
      changes: SWITCH,
      samples: [faultSample(1010, 'a-1', { 'a-2': { [`${T}|0`]: 2 } })]
    })
    expect(r).toMatchObject({ lostWithOldMaster: 2, unreplicatedAtFault: 2 })
  })

  it('counts nothing when the faulted master is elected again (it kept its data)', () => {
    const r = computeRpo({
      sends: sends('room1', [0, 1, 2]),
      changes: [change(0, 'a-1', 'room1'), change(1000, null, null), change(2000, 'a-1', 'room1')],
      samples: [faultSample(990, 'a-1', { 'a-2': { [`${T}|0`]: 0 } })]
    })
    expect(r).toMatchObject({ lostWithOldMaster: 0, unreplicatedAtFault: 0 })
  })

  it('sums groups and lists each one', () => {
    const b = sends('room2', [0, 1], { consumed: () => false }).map((s) => ({
      ...s,
      group: 'broker-b',
      key: `b-${s.key}`
    }))
    const r = computeRpo({
      sends: [...sends('room1', [0, 1], { consumed: (o) => o === 0 }), ...b],
      changes: [
        ...SWITCH,
        { group: 'broker-b', at: 0, to: 'b-2', toRoom: 'room2' },
        { group: 'broker-b', at: 1000, to: 'b-3', toRoom: 'room3' }
      ],
      samples: []
    })
    // No offsets known anywhere: only never-consumed sends count.
    expect(r.lostWithOldMaster).toBe(3)
    expect(r.groups.map((g) => [g.group, g.lostWithOldMaster])).toEqual([
      ['broker-a', 1],
      ['broker-b', 2]
    ])
  })
})
