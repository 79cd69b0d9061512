import { describe, expect, it } from 'vitest'
import { formatMs, parseDuration } from './duration'
import { reportSchema, scenarioSchema } from './schema'
import type { TargetNode } from './selectors'
import { resolveSelector, resolveTarget } from './selectors'

describe('durations', () => {
  it('parses ms, s, m and numbers', () => {
    expect(parseDuration('250ms')).toBe(250)
    expect(parseDuration('1.5s')).toBe(1500)
    expect(parseDuration('2m')).toBe(120000)
    expect(parseDuration('40')).toBe(40)
    expect(parseDuration(7)).toBe(7)
    expect(parseDuration('soon')).toBeUndefined()
    expect(parseDuration(-1)).toBeUndefined()
  })
  it('formats for scorecards', () => {
    expect(formatMs(12.4)).toBe('12 ms')
    expect(formatMs(1250)).toBe('1.25 s')
    expect(formatMs(null)).toBe('—')
  })
})

describe('scenarioSchema', () => {
  it('fills defaults and converts durations', () => {
    const s = scenarioSchema.parse({
      name: 'x',
      topology: 'two-rooms',
      workload: { duration: '15s', rate: 50 },
      timeline: [{ at: '5s', action: 'kill', target: 'all brokers of room1' }],
      gates: { maxRtoMs: 1000 }
    })
    expect(s.workload.duration).toBe(15000)
    expect(s.workload.drainTimeout).toBe(20000)
    expect(s.timeline[0]!.at).toBe(5000)
    // Each lane's own unless the scenario says (laneRequestTimeoutMs).
    expect(s.client.requestTimeout).toBeUndefined()
    expect(s.gates.maxLost).toBe(0)
  })
  it('names the bad duration', () => {
    const r = scenarioSchema.safeParse({
      name: 'x',
      topology: 't',
      timeline: [{ at: 'later', action: 'kill', target: 'a' }]
    })
    expect(r.success).toBe(false)
    expect(JSON.stringify(r.error!.issues)).toContain('later')
  })
  it('rejects unknown actions', () => {
    expect(
      scenarioSchema.safeParse({
        name: 'x',
        topology: 't',
        timeline: [{ at: 1, action: 'explode', target: 'a' }]
      }).success
    ).toBe(false)
  })
  it('accepts a minimal report', () => {
    const r = reportSchema.safeParse({
      kind: 'drstudio/scenario-report',
      version: 1,
      scenario: 's',
      topology: 't',
      runId: 1,
      passed: true,
      topic: 'orders',
      consumerGroup: 'g',
      startedAt: new Date(0).toISOString(),
      endedAt: new Date(0).toISOString(),
      originMs: 0,
      timings: { setupMs: 0, settleMs: 0, workloadMs: 0, drainMs: 0, totalMs: 0 },
      totals: { sent: 0, acked: 0, failed: 0, consumed: 0, lost: 0, duplicates: 0 },
      gates: [],
      clients: [],
      failovers: [],
      selections: [],
      faults: []
    })
    expect(r.success).toBe(true)
  })
})

describe('selectors', () => {
  const nodes: TargetNode[] = [
    { id: 'ns-1', kind: 'nameserver', room: 'room1' },
    { id: 'broker-1', kind: 'broker', room: 'room1', role: 'master' },
    { id: 'broker-1s', kind: 'broker', room: 'room1', role: 'slave' },
    { id: 'mgmt-1', kind: 'management', room: 'room1' },
    { id: 'consumer-1', kind: 'consumer', room: 'room1' },
    { id: 'ns-2', kind: 'nameserver', room: 'room2' },
    { id: 'broker-2', kind: 'broker', room: 'room2', role: 'master' },
    { id: 'consumer-2', kind: 'consumer', room: 'room2' }
  ]
  const ids = (s: string | string[]) => {
    const r = resolveTarget(s, nodes)
    if (!r.ok) throw new Error(r.error)
    return r.nodes.map((n) => n.id)
  }
  it('resolves node ids and room selectors', () => {
    expect(ids('broker-2')).toEqual(['broker-2'])
    expect(ids('all brokers of room1')).toEqual(['broker-1', 'broker-1s'])
    expect(ids('nameservers of room1')).toEqual(['ns-1'])
    expect(ids('name servers in room2')).toEqual(['ns-2'])
    expect(ids('management of room1')).toEqual(['mgmt-1'])
    expect(ids('consumers of room1')).toEqual(['consumer-1'])
    expect(ids('masters of room1')).toEqual(['broker-1'])
    expect(ids('servers of room1')).toEqual(['ns-1', 'broker-1', 'broker-1s', 'mgmt-1'])
    expect(ids('all brokers')).toEqual(['broker-1', 'broker-1s', 'broker-2'])
    expect(ids('All Consumers of all rooms')).toEqual(['consumer-1', 'consumer-2'])
  })
  it('unions several selectors without repeats', () => {
    expect(ids(['all brokers of room1', 'nameservers of room1', 'broker-1'])).toEqual([
      'broker-1',
      'broker-1s',
      'ns-1'
    ])
  })
  it('explains what is wrong', () => {
    const a = resolveSelector('all toasters of room1', nodes)
    expect(a.ok === false && a.error).toContain('neither a node id')
    const b = resolveSelector('brokers of room9', nodes)
    expect(b.ok === false && b.error).toContain('room "room9"')
    const c = resolveSelector('proxies of room1', nodes)
    expect(c.ok === false && c.error).toContain('matches no node')
  })
})
