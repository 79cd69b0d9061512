import { describe, expect, it } from 'vitest'
import type { LedgerEventData } from '../../../common/scenario/events'
import { BrokerLoadSampler } from './broker-load-sampler'

describe('BrokerLoadSampler', () => {
  it('reads each broker’s CPU since its last sample and its send queue; what it cannot read is null', async () => {
    let now = 10_000
    const cpu = new Map<string, number | null>([
      ['broker-1', 5],
      ['broker-2', null]
    ])
    const rows: [LedgerEventData['broker-load'], number][] = []
    const sampler = new BrokerLoadSampler({
      targets: () => [
        { nodeId: 'broker-1', room: 'room1', address: 'a:1' },
        { nodeId: 'broker-2', room: 'room2', address: 'b:1' }
      ],
      runtimeInfo: async (address) => {
        if (address === 'b:1') throw new Error('connect ECONNREFUSED')
        return { sendThreadPoolQueueSize: '7' }
      },
      cpuSeconds: (id) => cpu.get(id) ?? null,
      emit: (load, atMs) => rows.push([load, atMs]),
      now: () => now
    })
    await sampler.sampleOnce()
    now += 2000
    cpu.set('broker-1', 6.5) // 1.5 s of CPU in 2 s: 75 % of a core
    await sampler.sampleOnce()
    now += 1000
    cpu.set('broker-1', 0.2) // restarted: its count began again
    await sampler.sampleOnce()
    expect(rows.map(([l]) => [l.nodeId, l.cpuPct, l.sendQueue])).toEqual([
      ['broker-1', null, 7],
      ['broker-2', null, null],
      ['broker-1', 75, 7],
      ['broker-2', null, null],
      ['broker-1', null, 7],
      ['broker-2', null, null]
    ])
    expect(rows.map(([, at]) => at)).toEqual([10_000, 10_000, 12_000, 12_000, 13_000, 13_000])
  })
})
