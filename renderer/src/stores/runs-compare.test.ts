import { beforeEach, describe, expect, it } from 'vitest'
import recorded from '../../../test/golden/report/transactional-run.json'
import type { RawBridge } from '../lib/bridge'
import { initBridge } from '../lib/bridge'
import { MAX_COMPARED, useRunsStore } from './runs-store'
import { useUiStore } from './ui-store'

const row = (id: number) => ({
  id,
  kind: 'scenario',
  topologyName: 'two-rooms',
  scenarioName: recorded.report.scenario,
  startedAt: recorded.report.startedAt,
  endedAt: recorded.report.endedAt,
  verdict: 'passed'
})

/** An engine holding runs 1 and 2 (the recorded transactional run, run 2 failed) and 3 (no report). */
function engine(): RawBridge {
  return {
    transport: 'offline',
    connection: 'open',
    async invoke(channel, payload) {
      if (channel !== 'runs:get') throw new Error(`unexpected ${channel}`)
      const { id } = payload as { id: number }
      const report =
        id === 3 ? null : { ...recorded.report, runId: id, passed: id === 1 ? recorded.report.passed : false }
      return { run: row(id), report, events: [], counters: recorded.counters }
    },
    on: () => () => {},
    onConnection: () => () => {}
  }
}

const runs = () => useRunsStore.getState()

describe('Runs ▸ Compare', () => {
  beforeEach(() => {
    initBridge(engine())
    useRunsStore.setState({ selected: [], comparison: null, compareLoading: false })
  })

  it('puts the ticked runs side by side, the differing figures marked', async () => {
    runs().toggleSelected(1)
    runs().toggleSelected(2)
    await runs().compareSelected()
    const c = runs().comparison!
    expect(c.runs.map((r) => r.runId)).toEqual([1, 2])
    expect(c.table.rows.find((r) => r.figure === 'verdict')).toMatchObject({ differs: true })
    expect(c.table.rows.find((r) => r.figure === 'sent')).toMatchObject({ differs: false })
    runs().closeCompare()
    expect(runs().comparison).toBeNull()
    expect(runs().selected).toEqual([1, 2])
  })

  it('refuses a run without a report, naming it, and caps the selection', async () => {
    runs().toggleSelected(1)
    runs().toggleSelected(3)
    await runs().compareSelected()
    expect(runs().comparison).toBeNull()
    expect(useUiStore.getState().toasts.at(-1)!.message).toMatch(/^Run 3 has no report/)
    runs().toggleSelected(3)
    expect(runs().selected).toEqual([1])
    for (let id = 10; id < 10 + MAX_COMPARED; id++) runs().toggleSelected(id)
    expect(runs().selected).toHaveLength(MAX_COMPARED)
    expect(useUiStore.getState().toasts.at(-1)!.message).toMatch(/up to 6 runs/)
  })
})
