import { expect } from 'vitest'
import type { LoadedScenario } from '../../../common/scenario/run-plan'
import type { ScenarioReport } from '../../../common/scenario/schema'
import { faultOfStep } from './run/fault'
import type { RunDeps } from './run/run'
import { LiveDriver } from './live-driver'
import { LedgerReader } from '../ledger/ledger-reader'

// Issue 21: one run, two drivers. The same scenario goes once through the headless driver (its
// timeline) and once through the live driver, with its steps applied as the operator's actions at
// the same times from the workload start, as the canvas would; then the two runs' ledger rows and
// reports are compared where they must agree.

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(0, ms)))

/** The scenario driven live: begin, the timeline's steps as operator actions, Stop at its end. */
export async function runLive(deps: RunDeps, loaded: LoadedScenario): Promise<ScenarioReport> {
  const live = new LiveDriver(deps, loaded.topology, { scenario: loaded })
  live.run.on('progress', (p) => process.stderr.write(`[live ${p.phase}] ${p.message}\n`))
  const failures: Error[] = []
  live.begin((e) => failures.push(e))
  const deadline = Date.now() + 120_000
  while (live.run.t0 === 0 && failures.length === 0 && Date.now() < deadline) await sleep(100)
  expect(failures.map((e) => e.message)).toEqual([])
  expect(live.run.t0).toBeGreaterThan(0)
  const { timeline, workload } = loaded.scenario
  const now = (): number => performance.timeOrigin + performance.now()
  for (const step of [...timeline].sort((a, b) => a.at - b.at)) {
    await sleep(live.run.t0 + step.at - now())
    const applied = await live.run.applyFault(faultOfStep(step), 'operator')
    expect(applied.report.error).toBeUndefined()
  }
  await sleep(live.run.t0 + workload.duration - now())
  return live.stop()
}

/**
 * A run's faults as the ledger holds them, without when and who. With `roles`, the node a role
 * selector ("master of group broker-a") resolved to is left out: it is whichever replica the
 * controllers made master by then, which a previous run may have moved.
 */
export function ledgerFaults(deps: RunDeps, runId: number, roles = false): unknown[] {
  return new LedgerReader(deps.recorder.db).events(runId, { kinds: ['fault'] }).map((e) => {
    const { source: _s, nodes, ...rest } = e.data as { source?: string; nodes: string[] }
    return roles ? { ...rest, nodes: nodes.length } : { ...rest, nodes }
  })
}

/** What every run records in the same order whoever drives it: its phases. */
export function ledgerPhases(deps: RunDeps, runId: number): string[] {
  const phases = new LedgerReader(deps.recorder.db)
    .events(runId, { kinds: ['phase'] })
    .map((e) => String(e.data.phase))
  return phases.filter((p, i) => p !== phases[i - 1])
}

/**
 * Controller mode: for every fault that hit a group's master, the master read before the fault was
 * applied (the sample names it), which must be the node the fault hit.
 */
export function faultSamples(
  deps: RunDeps,
  runId: number
): { group: string; hitMaster: boolean }[] {
  const reader = new LedgerReader(deps.recorder.db)
  const hit = new Set(
    reader.events(runId, { kinds: ['fault'] }).flatMap((e) => e.data.nodes as string[])
  )
  return reader
    .events(runId, { kinds: ['replica-offsets'] })
    .filter((e) => e.data.trigger === 'fault')
    .map((e) => ({ group: String(e.data.group), hitMaster: hit.has(String(e.data.master)) }))
}

/** The parts of a report both drivers must agree on. */
export function reportShape(r: ScenarioReport, roles = false): unknown {
  return {
    passed: r.passed,
    gates: r.gates.map((g) => ({ name: g.name, passed: g.passed, limit: g.limit })),
    faults: r.faults.map(({ atMs: _a, source: _s, nodes, ...f }) => ({
      ...f,
      nodes: roles ? nodes.length : nodes
    })),
    clients: r.clients.map((c) => `${c.id}:${c.role}@${c.room}`),
    lost: r.totals.lost,
    aborted: r.aborted ?? null,
    elections: r.controller ? r.controller.elections.filter((e) => e.to !== null).length > 0 : null
  }
}

/**
 * Checks that two runs of one scenario, one per driver, agree: the report's verdict, gates, faults
 * and clients, the ledger's faults and phases, and (controller mode) the master read before each
 * fault. `roles`: the timeline names a role, so the node it hit may differ between the runs.
 */
export function expectAgreement(
  deps: RunDeps,
  timeline: ScenarioReport,
  live: ScenarioReport,
  opts: { roles?: boolean } = {}
): void {
  const roles = opts.roles ?? false
  expect(reportShape(live, roles)).toEqual(reportShape(timeline, roles))
  expect(ledgerFaults(deps, live.runId, roles)).toEqual(ledgerFaults(deps, timeline.runId, roles))
  expect(ledgerPhases(deps, live.runId)).toEqual(ledgerPhases(deps, timeline.runId))
  expect(faultSamples(deps, live.runId)).toEqual(faultSamples(deps, timeline.runId))
  const sources = (runId: number): unknown[] =>
    new LedgerReader(deps.recorder.db).events(runId, { kinds: ['fault'] }).map((e) => e.data.source)
  expect(new Set(sources(timeline.runId))).toEqual(new Set(['timeline']))
  expect(new Set(sources(live.runId))).toEqual(new Set(['operator']))
}

/** Runs `loaded` through both drivers, the headless one first, and checks that they agree. */
export async function expectParity(
  deps: RunDeps,
  headless: (loaded: LoadedScenario) => Promise<ScenarioReport>,
  loaded: LoadedScenario,
  opts: { roles?: boolean } = {}
): Promise<{ timeline: ScenarioReport; live: ScenarioReport }> {
  const timeline = await headless(loaded)
  const live = await runLive(deps, loaded)
  expectAgreement(deps, timeline, live, opts)
  return { timeline, live }
}
