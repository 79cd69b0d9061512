import { describe, expect, it } from 'vitest'
import type { NamesrvSample } from './divergence'
import {
  disagreementsAt,
  divergenceWindows,
  longestWindowPerFault,
  namesrvLanes,
  namesrvSamples
} from './divergence'

const both = ['broker-a', 'broker-b']

function sweep(
  atMs: number,
  ns1: readonly string[] | 'error',
  ns2: readonly string[] | 'error'
): NamesrvSample[] {
  const one = (id: string, room: string, b: readonly string[] | 'error'): NamesrvSample =>
    b === 'error'
      ? { atMs, namesrvId: id, room, brokers: [], error: 'connect ECONNREFUSED' }
      : { atMs, namesrvId: id, room, brokers: b }
  return [one('ns-1', 'room1', ns1), one('ns-2', 'room2', ns2)]
}

describe('divergenceWindows', () => {
  it('agreeing name servers have no window', () => {
    const samples = [0, 1000, 2000].flatMap((t) => sweep(t, both, both))
    expect(divergenceWindows(samples)).toEqual([])
  })

  it('a killed broker still handed out by one room opens a window until that room drops it', () => {
    const samples = [
      ...sweep(0, both, both),
      ...sweep(1000, ['broker-b'], both),
      ...sweep(2000, ['broker-b'], both),
      ...sweep(3000, ['broker-b'], ['broker-b']),
      ...sweep(4000, ['broker-b'], ['broker-b'])
    ]
    expect(divergenceWindows(samples)).toEqual([
      {
        startMs: 1000,
        endMs: 3000,
        durationMs: 2000,
        open: false,
        brokers: [
          { scope: 'cluster', brokerName: 'broker-a', listedBy: ['ns-2'], missingFrom: ['ns-1'] }
        ]
      }
    ])
  })

  it('a window still open when sampling stops ends at the last sample and says so', () => {
    const samples = [
      ...sweep(0, both, both),
      ...sweep(1000, both, ['broker-a']),
      ...sweep(2500, both, ['broker-a'])
    ]
    const [w] = divergenceWindows(samples)
    expect(w).toMatchObject({ startMs: 1000, endMs: 2500, durationMs: 1500, open: true })
  })

  it('a name server that does not answer is not compared (it hands out nothing)', () => {
    const samples = [...sweep(0, both, both), ...sweep(1000, 'error', ['broker-a'])]
    expect(divergenceWindows(samples)).toEqual([])
  })

  it('a stale answer is not compared', () => {
    const samples: NamesrvSample[] = [
      { atMs: 0, namesrvId: 'ns-1', room: 'room1', brokers: both },
      { atMs: 6000, namesrvId: 'ns-2', room: 'room2', brokers: ['broker-b'] }
    ]
    expect(divergenceWindows(samples)).toEqual([])
    expect(divergenceWindows(samples, { staleMs: 10_000 })).toHaveLength(1)
  })

  it('two name servers of one room disagreeing is not a divergence between rooms', () => {
    const samples: NamesrvSample[] = [
      { atMs: 0, namesrvId: 'ns-1a', room: 'room1', brokers: both },
      { atMs: 0, namesrvId: 'ns-1b', room: 'room1', brokers: ['broker-b'] },
      { atMs: 0, namesrvId: 'ns-2', room: 'room2', brokers: ['broker-b', 'broker-a'] }
    ]
    // ns-1b (room1) misses broker-a, which ns-2 (room2) lists: that is across rooms.
    expect(divergenceWindows(samples)).toHaveLength(1)
    const sameRoomOnly: NamesrvSample[] = [
      { atMs: 0, namesrvId: 'ns-1a', room: 'room1', brokers: both },
      { atMs: 0, namesrvId: 'ns-1b', room: 'room1', brokers: ['broker-b'] }
    ]
    expect(divergenceWindows(sameRoomOnly)).toEqual([])
  })

  it('a topic route that differs counts even when the broker lists agree', () => {
    const samples: NamesrvSample[] = [
      {
        atMs: 0,
        namesrvId: 'ns-1',
        room: 'room1',
        brokers: both,
        route: { topic: 'orders', brokers: ['broker-b'] }
      },
      {
        atMs: 0,
        namesrvId: 'ns-2',
        room: 'room2',
        brokers: both,
        route: { topic: 'orders', brokers: both }
      },
      {
        atMs: 500,
        namesrvId: 'ns-1',
        room: 'room1',
        brokers: both,
        route: { topic: 'orders', brokers: both }
      },
      {
        atMs: 500,
        namesrvId: 'ns-2',
        room: 'room2',
        brokers: both,
        route: { topic: 'orders', brokers: both }
      }
    ]
    expect(divergenceWindows(samples)).toEqual([
      {
        startMs: 0,
        endMs: 500,
        durationMs: 500,
        open: false,
        brokers: [
          { scope: 'orders', brokerName: 'broker-a', listedBy: ['ns-2'], missingFrom: ['ns-1'] }
        ]
      }
    ])
  })

  it('samples of one sweep are judged together, not one by one', () => {
    // ns-1's sample alone (before ns-2's of the same instant) would look like a difference.
    const samples = [...sweep(0, both, both), ...sweep(1000, ['broker-b'], ['broker-b'])]
    expect(divergenceWindows(samples)).toEqual([])
  })

  it('merges every broker disagreed about during one window', () => {
    const samples = [
      ...sweep(0, both, both),
      ...sweep(1000, ['broker-b'], both),
      ...sweep(2000, ['broker-a'], both),
      ...sweep(3000, both, both)
    ]
    const [w] = divergenceWindows(samples)
    expect(w!.brokers.map((b) => b.brokerName)).toEqual(['broker-a', 'broker-b'])
  })
})

describe('disagreementsAt', () => {
  it('needs answers from at least two rooms', () => {
    const latest = new Map([['ns-1', { atMs: 0, namesrvId: 'ns-1', room: 'room1', brokers: both }]])
    expect(disagreementsAt(latest, 0)).toEqual([])
  })
})

describe('longestWindowPerFault', () => {
  const w = (startMs: number, durationMs: number) => ({
    startMs,
    endMs: startMs + durationMs,
    durationMs,
    open: false,
    brokers: []
  })

  it('gives each fault the longest window that started after it and before the next fault', () => {
    const faults = [
      { atMs: 1000, label: 'kill broker-1' },
      { atMs: 10_000, label: 'pause ns-2' }
    ]
    const result = longestWindowPerFault([w(1200, 800), w(3000, 2500), w(11_000, 300)], faults)
    expect(result.map((r) => [r.fault?.label, r.longest?.durationMs, r.windows])).toEqual([
      ['kill broker-1', 2500, 2],
      ['pause ns-2', 300, 1]
    ])
  })

  it('a fault without a window has none; windows before any fault are listed apart', () => {
    const result = longestWindowPerFault([w(100, 50)], [{ atMs: 1000, label: 'kill broker-1' }])
    expect(result).toEqual([
      { fault: null, longest: w(100, 50), windows: 1 },
      { fault: { atMs: 1000, label: 'kill broker-1' }, longest: null, windows: 0 }
    ])
  })
})

describe('namesrvLanes', () => {
  it('merges equal consecutive samples and splits where the list or reachability changes', () => {
    const samples = [
      ...sweep(0, both, both),
      ...sweep(1000, both, both),
      ...sweep(2000, ['broker-b'], both),
      ...sweep(3000, 'error', both)
    ]
    expect(namesrvLanes(samples, 4000)).toEqual([
      {
        namesrvId: 'ns-1',
        room: 'room1',
        segments: [
          { startMs: 0, endMs: 2000, brokers: both, error: null },
          { startMs: 2000, endMs: 3000, brokers: ['broker-b'], error: null },
          { startMs: 3000, endMs: 4000, brokers: [], error: 'connect ECONNREFUSED' }
        ]
      },
      {
        namesrvId: 'ns-2',
        room: 'room2',
        segments: [{ startMs: 0, endMs: 4000, brokers: both, error: null }]
      }
    ])
  })
})

describe('namesrvSamples', () => {
  it('reads namesrv-view rows and skips others', () => {
    const rows = [
      {
        atMs: 2,
        kind: 'namesrv-view',
        data: {
          namesrvId: 'ns-2',
          room: 'room2',
          brokers: [{ brokerName: 'broker-a', address: 'x', room: 'room1' }],
          route: { topic: 'orders', brokers: [{ brokerName: 'broker-a' }] }
        }
      },
      {
        atMs: 1,
        kind: 'namesrv-view',
        data: { namesrvId: 'ns-1', room: 'room1', brokers: [], error: 'timeout' }
      },
      { atMs: 1, kind: 'fault', data: {} },
      { atMs: 1, kind: 'namesrv-view', data: { room: 'room1' } }
    ]
    expect(namesrvSamples(rows)).toEqual([
      { atMs: 1, namesrvId: 'ns-1', room: 'room1', brokers: [], error: 'timeout' },
      {
        atMs: 2,
        namesrvId: 'ns-2',
        room: 'room2',
        brokers: ['broker-a'],
        route: { topic: 'orders', brokers: ['broker-a'] }
      }
    ])
  })
})
