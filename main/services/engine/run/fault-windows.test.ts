import { describe, expect, it } from 'vitest'
import type { AppliedStep } from './run-context'
import { faultWindowsOf } from './report'

const step = (atAbs: number, action: string, target: string[]): AppliedStep => ({
  atAbs,
  report: { atMs: 0, action, target, nodes: target, ok: true } as AppliedStep['report']
})

describe('faultWindowsOf', () => {
  it('runs each fault to the first repair after it, else to the end of the workload', () => {
    const applied = [
      step(10_000, 'restart', ['all brokers of room1']),
      step(6_000, 'kill', ['all brokers of room1']),
      step(12_000, 'partition', ['room1', 'room2']),
      // Past the workload's end: no window.
      step(30_000, 'kill', ['ns-1'])
    ]
    expect(faultWindowsOf(applied, 20_000)).toEqual([
      { fault: 'kill all brokers of room1', atMs: 6_000, untilMs: 10_000 },
      { fault: 'partition room1, room2', atMs: 12_000, untilMs: 20_000 }
    ])
    expect(faultWindowsOf([], 20_000)).toEqual([])
  })
})
