import { readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseRoleSelector } from '../../../common/scenario/selectors'
import { loadScenarioFile } from './load-scenario'
import { planClients } from '../../../common/scenario/client-plan'
import { FAULT_ACTIONS, REPAIR_ACTIONS } from '../engine/run/fault'

const DIR = join(resolve(import.meta.dirname, '../../..'), 'resources', 'scenarios')
const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml'))

/** Every gate of a shipped scenario must be able to fail: its bound lies inside what the run can show. */
describe.each(files)('shipped scenario %s', (file) => {
  const { scenario, topology } = loadScenarioFile(join(DIR, file))
  const producers = planClients(scenario, topology).filter((p) => p.role === 'producer')
  const traffic = producers.reduce((n, p) => n + (p.rate * scenario.workload.duration) / 1000, 0)
  const g = scenario.gates

  it('sends traffic to judge', () => {
    expect(traffic).toBeGreaterThan(0)
  })

  it('bounds loss and duplicates below its total traffic', () => {
    expect(g.maxLost).toBeLessThan(traffic)
    if (g.maxDuplicates !== undefined) expect(g.maxDuplicates).toBeLessThan(traffic)
    if (g.maxRedeliveries !== undefined) expect(g.maxRedeliveries).toBeLessThan(traffic)
  })

  it('bounds RTO below the workload, so a slow recovery fails it', () => {
    if (g.maxRtoMs !== undefined) expect(g.maxRtoMs).toBeLessThan(scenario.workload.duration)
  })

  it('gates headroom only with a fault window of a second or more, at a share a run can miss', () => {
    if (g.minThroughputDuringFault === undefined) return
    expect(g.minThroughputDuringFault).toBeGreaterThan(0)
    // Without a fault lasting a second the gate reads "no fault window" and always fails.
    const steps = [...scenario.timeline].sort((a, b) => a.at - b.at)
    const windows = steps
      .filter((s) => FAULT_ACTIONS.has(s.action))
      .map((s) => {
        const repair = steps.find((r) => r.at > s.at && REPAIR_ACTIONS.has(r.action))
        return (repair?.at ?? scenario.workload.duration) - s.at
      })
    expect(Math.max(0, ...windows)).toBeGreaterThanOrEqual(1000)
  })

  it('asks for shares and counts a run can miss', () => {
    if (g.minLocalShare !== undefined) expect(g.minLocalShare).toBeGreaterThan(0)
    if (g.minAckedShare !== undefined) expect(g.minAckedShare).toBeGreaterThan(0)
    for (const x of [...(g.sendsAfterFault ?? []), ...(g.consumedAcross ?? [])]) {
      expect(x.min).toBeGreaterThanOrEqual(1)
      expect(x.min).toBeLessThan(traffic)
    }
  })

  it('expects failovers only where the timeline breaks something', () => {
    if ((g.failovers ?? []).length > 0) expect(scenario.timeline.length).toBeGreaterThan(0)
  })

  it('gates an election of every group whose master its timeline takes out, and only those', () => {
    // The boot makes each group's preferred replica (lowest electionPriority) master, so a step
    // naming it, its room, or "master of group X" claims an election in that group.
    const replicas = topology.rooms.flatMap((r) =>
      r.brokers.filter((b) => b.role === 'replica').map((b) => ({ ...b, room: r.id }))
    )
    const preferred = new Map<string, { id: string; room: string }>()
    for (const b of [...replicas].sort(
      (x, y) => (x.electionPriority ?? 99) - (y.electionPriority ?? 99)
    )) {
      if (!preferred.has(b.brokerName)) preferred.set(b.brokerName, b)
    }
    const takesOut = new Set(['kill', 'stop', 'pause', 'isolate', 'partition'])
    const claimed = new Set<string>()
    for (const step of scenario.timeline) {
      if (!takesOut.has(step.action)) continue
      const named = [
        ...(Array.isArray(step.target) ? step.target : step.target ? [step.target] : []),
        ...('peer' in step && step.peer ? [step.peer] : [])
      ]
      for (const t of named) {
        const role = parseRoleSelector(t)
        if (role?.role === 'master') claimed.add(role.group)
        for (const [group, m] of preferred) if (t === m.id || t === m.room) claimed.add(group)
      }
    }
    const gated = (g.elections ?? []).map((e) => e.group)
    expect(new Set(gated)).toEqual(claimed)
    for (const e of g.elections ?? []) {
      expect(e.within).toBeLessThan(scenario.workload.duration)
      expect(preferred.has(e.group), `${e.group} is a controller-mode group`).toBe(true)
    }
  })

  it('gates the RPO only on controller-mode groups, below the traffic', () => {
    if (g.maxRpoMessages === undefined) return
    // Without a replica broker the gate reads "no controller-mode group" and always fails.
    const replicas = topology.rooms.flatMap((r) => r.brokers).filter((b) => b.role === 'replica')
    expect(replicas.length).toBeGreaterThan(0)
    expect(g.maxRpoMessages).toBeLessThan(traffic)
  })
})

describe.each(files)('shipped scenario %s, delayed messages', (file) => {
  const { scenario } = loadScenarioFile(join(DIR, file))
  const g = scenario.gates

  it('gates lateness only on a delayed workload, below the run, so a late timer fails it', () => {
    if (g.maxDelayLatenessMs === undefined) return
    // On plain messages the gate reads "no delayed message delivered" and always fails.
    expect(scenario.workload.messages).toBe('delayed')
    expect(g.maxDelayLatenessMs).toBeLessThan(
      scenario.workload.duration + scenario.workload.drainTimeout
    )
  })
})

describe.each(files)('shipped scenario %s, ordered messages', (file) => {
  const { scenario } = loadScenarioFile(join(DIR, file))
  const g = scenario.gates

  it('gates order only on an ordered workload, with bounds a run can exceed', () => {
    if (g.maxOrderViolations === undefined && g.maxOrderStallMs === undefined) return
    // On unordered messages both gates read "no ordered message in this run" and always fail.
    expect(scenario.workload.messages).toBe('ordered')
    const producers = planClients(scenario, loadScenarioFile(join(DIR, file)).topology).filter(
      (p) => p.role === 'producer'
    )
    const traffic = producers.reduce((n, p) => n + (p.rate * scenario.workload.duration) / 1000, 0)
    if (g.maxOrderViolations !== undefined) expect(g.maxOrderViolations).toBeLessThan(traffic)
    if (g.maxOrderStallMs !== undefined) {
      expect(g.maxOrderStallMs).toBeLessThan(
        scenario.workload.duration + scenario.workload.drainTimeout
      )
    }
  })
})

describe.each(files)('shipped scenario %s, transactional messages', (file) => {
  const { scenario } = loadScenarioFile(join(DIR, file))

  it('gates transactions only on a transactional workload, with a bound a run can exceed', () => {
    const bounds = [scenario.gates.maxTxMismatches, scenario.gates.maxTxClientRollbacks]
    const bound = Math.max(...bounds.map((b) => b ?? -1))
    if (bound < 0) return
    // On other messages the gate reads "no transactional message in this run" and always fails.
    expect(scenario.workload.messages).toBe('transactional')
    const producers = planClients(scenario, loadScenarioFile(join(DIR, file)).topology).filter(
      (p) => p.role === 'producer'
    )
    const traffic = producers.reduce((n, p) => n + (p.rate * scenario.workload.duration) / 1000, 0)
    expect(bound).toBeLessThan(traffic)
  })
})

describe.each(files)('shipped scenario %s, fail-back', (file) => {
  const { scenario } = loadScenarioFile(join(DIR, file))

  it('gates fail-back duplicates only with a repair in its timeline, with a bound a run can exceed', () => {
    const bound = scenario.gates.maxFailbackDuplicates
    if (bound === undefined) return
    // Without a repair the gate reads "nothing was repaired in this run" and always fails.
    expect(scenario.timeline.some((s) => REPAIR_ACTIONS.has(s.action))).toBe(true)
    const producers = planClients(scenario, loadScenarioFile(join(DIR, file)).topology).filter(
      (p) => p.role === 'producer'
    )
    const traffic = producers.reduce((n, p) => n + (p.rate * scenario.workload.duration) / 1000, 0)
    expect(bound).toBeLessThan(traffic)
  })
})
