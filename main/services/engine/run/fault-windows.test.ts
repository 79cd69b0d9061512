import { describe, expect, it } from 'vitest'
import type { AppliedStep } from './run-context'
import { faultWindowsOf, repairs } from './report'

const step = (
  atAbs: number,
  action: string,
  target: string[],
  nodes: string[] = target
): AppliedStep => ({
  atAbs,
  report: { atMs: 0, action, target, nodes, ok: true } as AppliedStep['report']
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

  it('ends a fault at the repair of that fault, not at a repair of something else', () => {
    const applied = [
      step(5_000, 'isolate', ['room1']),
      step(6_000, 'kill', ['all brokers of room1'], ['broker-1']),
      // Restarting the broker does not lift the cut; restarting another node does not revive it.
      step(8_000, 'restart', ['ns-1'], ['ns-1']),
      step(10_000, 'restart', ['broker-1'], ['broker-1']),
      step(15_000, 'heal', [], [])
    ]
    expect(faultWindowsOf(applied, 20_000)).toEqual([
      { fault: 'isolate room1', atMs: 5_000, untilMs: 15_000 },
      { fault: 'kill all brokers of room1', atMs: 6_000, untilMs: 10_000 }
    ])
  })

  it('pairs every repair with the faults it brings back', () => {
    const r = (action: string, nodes: string[] = []) => step(0, action, nodes).report
    expect(repairs(r('resume', ['broker-1']), r('pause', ['broker-1']))).toBe(true)
    expect(repairs(r('resume', ['broker-1']), r('kill', ['broker-1']))).toBe(false)
    expect(repairs(r('start', ['broker-2']), r('stop', ['broker-1']))).toBe(false)
    expect(repairs(r('heal'), r('loss', ['room1', 'room2']))).toBe(true)
    expect(repairs(r('heal', ['room3']), r('partition', ['room1', 'room2']))).toBe(false)
    expect(repairs(r('observed-up', ['b']), r('observed-down', ['b']))).toBe(true)
    // A fault is not a repair.
    expect(repairs(r('kill', ['broker-1']), r('kill', ['broker-1']))).toBe(false)
  })
})
