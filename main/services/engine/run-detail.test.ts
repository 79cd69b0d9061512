import { describe, expect, it } from 'vitest'
import { openDatabase, Recorder } from '../ledger'
import { LedgerWriter } from '../ledger/ledger-writer'
import { getRunDetail } from './run-detail'

function setup(events: number) {
  const recorder = new Recorder(openDatabase(':memory:'))
  const topology = { kind: 'drstudio/topology', name: 'two-rooms', rooms: [] }
  const runId = recorder.startRun({
    kind: 'sandbox',
    topologyName: 'two-rooms',
    topologyJson: JSON.stringify(topology)
  })
  const w = new LedgerWriter(recorder.db, runId)
  // Written out of time order on purpose: pages follow the ledger, callers sort by time.
  for (let i = 0; i < events; i++) {
    w.event(
      'phase',
      null,
      null,
      { phase: 'workload', detail: String(i) },
      1000 + ((i * 7) % events)
    )
  }
  w.event(
    'counters',
    'producer-1',
    'room1',
    { sent: 1, acked: 1, failed: 0, consumed: 0, inflight: 0 },
    999
  )
  w.close()
  return { recorder, runId, topology }
}

describe('getRunDetail', () => {
  it('without afterId: the first events by time, counters apart, and the run topology', () => {
    const { recorder, runId, topology } = setup(10)
    const d = getRunDetail(recorder, { id: runId, limit: 4 })
    expect(d.events.map((e) => e.atMs)).toEqual([1000, 1001, 1002, 1003])
    expect(d.counters).toHaveLength(1)
    expect(d.topology).toEqual(topology)
    expect(d.nextAfterId).toBeUndefined()
  })

  it('pages through every event once, counters on the first page only', () => {
    const { recorder, runId } = setup(25)
    const seen: string[] = []
    let afterId = 0
    let pages = 0
    for (;;) {
      const d = getRunDetail(recorder, { id: runId, afterId, limit: 10 })
      pages++
      expect(d.counters).toHaveLength(pages === 1 ? 1 : 0)
      seen.push(...d.events.map((e) => String(e.data.detail)))
      if (d.nextAfterId === null || d.nextAfterId === undefined) break
      afterId = d.nextAfterId
    }
    expect(pages).toBe(3)
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => String(i)))
  })

  it('a page that ends exactly at the last event says no more follow', () => {
    const { recorder, runId } = setup(10)
    expect(getRunDetail(recorder, { id: runId, afterId: 0, limit: 10 }).nextAfterId).toBeNull()
  })

  it('names a missing run', () => {
    const { recorder } = setup(1)
    expect(() => getRunDetail(recorder, { id: 99 })).toThrow(/run 99 does not exist/)
  })
})
