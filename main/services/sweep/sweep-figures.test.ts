import { describe, expect, it } from 'vitest'
import type { ClientPlan } from '../../../common/scenario/client-plan'
import type { ScenarioReport } from '../../../common/scenario/schema'
import { figuresOf, summarizeSweep } from './sweep-figures'
import type { SweepCombination } from './sweep-plan'
import { formatSweep } from './sweep'

const combo = (name: string, label: string): SweepCombination => ({
  name,
  label,
  lane: 'remoting',
  client: {}
})
const s1 = combo('s1', 'requestTimeout=200ms')
const s2 = combo('s2', 'requestTimeout=800ms')

describe('figuresOf', () => {
  it("reads one lane variant's producers: worst RTO, failures, duplicates, cross-room share, p99", () => {
    const plans = [
      { id: 'p1-s1', role: 'producer', room: 'room1', laneName: 's1' },
      { id: 'p2-s1', role: 'producer', room: 'room2', laneName: 's1' },
      { id: 'p1-s2', role: 'producer', room: 'room1', laneName: 's2' }
    ] as ClientPlan[]
    const report = {
      clients: [
        {
          id: 'p1-s1',
          room: 'room1',
          failed: 3,
          duplicates: 1,
          rtoMs: [420, 90],
          p99SendLatencyMs: 310
        },
        { id: 'p2-s1', room: 'room2', failed: 0, duplicates: 0, rtoMs: [], p99SendLatencyMs: 5 },
        {
          id: 'p1-s2',
          room: 'room1',
          failed: 0,
          duplicates: 0,
          rtoMs: [null],
          p99SendLatencyMs: 900
        }
      ],
      selections: [
        { clientId: 'p1-s1', brokerRoom: 'room1', count: 60 },
        { clientId: 'p1-s1', brokerRoom: 'room2', count: 40 },
        { clientId: 'p2-s1', brokerRoom: 'room2', count: 100 }
      ]
    } as unknown as ScenarioReport
    expect(figuresOf(report, plans, s1)).toEqual({
      rtoMs: 420,
      failedSends: 3,
      duplicates: 1,
      crossRoomShare: 0.2,
      sendP99Ms: 310
    })
    expect(figuresOf(report, plans, s2)).toMatchObject({ rtoMs: Infinity, crossRoomShare: 0 })
  })
})

describe('summarizeSweep', () => {
  it('takes medians, names the best of each figure and what the fastest recovery costs', () => {
    const f = (rtoMs: number, failedSends: number, sendP99Ms: number) => ({
      rtoMs,
      failedSends,
      duplicates: 0,
      crossRoomShare: 0.1,
      sendP99Ms
    })
    const r = summarizeSweep('room1-brokers-down', [
      { combination: s1, runId: 1, figures: f(300, 12, 250) },
      { combination: s2, runId: 1, figures: f(900, 0, 40) },
      { combination: s1, runId: 2, figures: f(500, 8, 260) },
      { combination: s2, runId: 2, figures: { ...f(1100, 2, 60), crossRoomShare: 0.10004 } }
    ])
    expect(
      r.rows.map((x) => [x.combination.name, x.figures.rtoMs, x.figures.failedSends, x.runIds])
    ).toEqual([
      ['s1', 400, 10, [1, 2]],
      ['s2', 1000, 1, [1, 2]]
    ])
    expect(r.best).toContainEqual({ figure: 'rtoMs', names: ['s1'] })
    expect(r.best).toContainEqual({ figure: 'duplicates', names: ['s1', 's2'] })
    // Equal as printed is a tie.
    expect(r.best).toContainEqual({ figure: 'crossRoomShare', names: ['s1', 's2'] })
    expect(r.tradeOff).toBe(
      'requestTimeout=200ms recovers fastest (RTO 400 ms) but costs failed sends 10 against 1 with requestTimeout=800ms; send p99 255 ms against 50 ms with requestTimeout=800ms'
    )
    const table = formatSweep(r)
    expect(table).toMatch(/^sweep of room1-brokers-down \(medians; \* best\)\n/)
    expect(table).toMatch(/s1 +requestTimeout=200ms +400 ms \* +10 +0 \* +10\.0 % \* +255 ms +1,2/)
    expect(table).toContain('best RTO: requestTimeout=200ms')
    expect(table).toContain('trade-off: requestTimeout=200ms recovers fastest')
  })
})
