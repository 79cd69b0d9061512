import { beforeEach, describe, expect, it } from 'vitest'
import type { EventPayload } from '../../../common/contract'
import { TIMELINE_CAP, foldTarget, useTimelineStore } from './timeline-store'

type Ev = EventPayload<'ledger:event'>
let id = 0
const ev = (kind: string, atMs: number, clientId = 'producer-1', data: object = {}): Ev =>
  ({ id: ++id, runId: 1, atMs, kind, clientId, room: 'room1', data }) as Ev

const failed = (atMs: number, clientId = 'producer-1', brokerName = 'broker-1'): Ev =>
  ev('send-attempt-failed', atMs, clientId, { brokerName, reason: 'timeout' })

describe('timeline store: repeats fold into one row', () => {
  beforeEach(() => useTimelineStore.getState().clear())

  it('folds a broker’s repeated failed attempts of one client into its first row, counting them', () => {
    const s = useTimelineStore.getState()
    s.applyLedgerEvents([failed(1000), failed(1100), failed(1200)])
    const { events, folded } = useTimelineStore.getState()
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ atMs: 1000, repeats: 3, lastAtMs: 1200 })
    expect(folded).toBe(2)
  })

  it('keeps decisions as rows of their own and folds across them', () => {
    useTimelineStore
      .getState()
      .applyLedgerEvents([
        failed(1000),
        ev('broker-failover', 1050, 'producer-1', { from: 'broker-1', to: 'broker-2' }),
        failed(1100),
        ev('broker-failover', 1150, 'producer-1', { from: 'broker-1', to: 'broker-2' })
      ])
    const kinds = useTimelineStore.getState().events.map((e) => [e.kind, e.repeats ?? 1])
    expect(kinds).toEqual([
      ['send-attempt-failed', 2],
      ['broker-failover', 1],
      ['broker-failover', 1]
    ])
  })

  it('starts a new row for another client, another broker, or after a quiet spell', () => {
    useTimelineStore
      .getState()
      .applyLedgerEvents([
        failed(1000),
        failed(1000, 'producer-2'),
        failed(1000, 'producer-1', 'broker-2'),
        failed(1000 + 5000),
        failed(1000 + 5000 + 5001)
      ])
    expect(useTimelineStore.getState().events.map((e) => e.repeats ?? 1)).toEqual([2, 1, 1, 1])
  })

  it('lets a flood of failures no longer push a phase row past the cap', () => {
    const batch: Ev[] = [ev('phase', 0, null as unknown as string, { phase: 'workload' })]
    for (let i = 0; i < 3 * TIMELINE_CAP; i++) batch.push(failed(1 + i * 10, `producer-${i % 3}`))
    useTimelineStore.getState().applyLedgerEvents(batch)
    const { events, dropped, folded } = useTimelineStore.getState()
    expect(events[0]!.kind).toBe('phase')
    expect(dropped).toBe(0)
    expect(events.length + folded).toBe(batch.length)
  })

  it('does not fold kinds that are not repeats, and looks back only FOLD_ROWS rows', () => {
    expect(foldTarget(ev('broker-choice', 1), [{ ...ev('broker-choice', 0), seq: 1 }])).toBe(-1)
    const rows = [{ ...failed(0), seq: 1 }]
    for (let i = 0; i < 30; i++) rows.push({ ...ev('rebalance', 1, `c-${i}`), seq: 2 + i })
    expect(foldTarget(failed(2), rows)).toBe(-1)
    expect(foldTarget(failed(2), rows.slice(0, 30))).toBe(0)
  })
})
