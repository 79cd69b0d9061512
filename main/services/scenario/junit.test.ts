import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { GateResult, ScenarioReport } from '../../../common/scenario/schema'
import { reportSchema } from '../../../common/scenario/schema'
import type { ScenarioOutcome } from './junit'
import { combinedExitCode, exitCodeOf, junitXml, xmlEscape } from './junit'

const XSD = resolve(import.meta.dirname, '../../../resources/junit/junit.xsd')
const dir = mkdtempSync(join(tmpdir(), 'drstudio-junit-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function report(gates: GateResult[], over: Partial<ScenarioReport> = {}): ScenarioReport {
  return reportSchema.parse({
    kind: 'drstudio/scenario-report',
    version: 1,
    scenario: 'room1-brokers-down',
    topology: 'two-rooms',
    runId: 12,
    passed: gates.every((g) => g.passed) && !over.aborted,
    topic: 'orders',
    consumerGroup: 'orders-consumer',
    startedAt: '2026-12-02T09:00:00.000Z',
    endedAt: '2026-12-02T09:00:30.000Z',
    timings: { setupMs: 1, settleMs: 1, workloadMs: 1, drainMs: 1, totalMs: 4 },
    totals: { sent: 10, acked: 10, failed: 0, consumed: 10, lost: 0, duplicates: 0 },
    gates,
    clients: [],
    failovers: [],
    selections: [],
    faults: [],
    ...over
  })
}

const ran = (r: ScenarioReport, file = 'scenarios/a.yaml'): ScenarioOutcome => ({
  file,
  kind: 'ran',
  report: r,
  durationMs: 31_250
})
const passing = ran(
  report([
    { name: 'lost messages', passed: true, actual: 0, limit: 0 },
    { name: 'max producer RTO (ms)', passed: true, actual: 412.5, limit: 1000 }
  ])
)
const failing = ran(
  report([
    { name: 'lost messages', passed: false, actual: 3, limit: 0 },
    {
      name: 'order violations (all lanes)',
      passed: false,
      actual: 'no ordered message in this run',
      limit: 0
    }
  ])
)
const aborted = ran(
  report([{ name: 'lost messages', passed: true, actual: 0, limit: 0 }], {
    aborted: 'failed sends over 50 % for 3 s',
    notes: ['drain timed out <after 20 s> & gave up']
  })
)
const unbootable: ScenarioOutcome = {
  file: 'scenarios/b.yaml',
  kind: 'not-run',
  name: 'wan-latency',
  error: 'broker-1 did not start: port 10911 is in use',
  durationMs: 4200
}

/** Validates XML against the JUnit schema with xmllint (libxml2-utils, installed by setup). */
function validate(xml: string): { ok: boolean; text: string } {
  const file = join(dir, `r${Math.random().toString(36).slice(2)}.xml`)
  writeFileSync(file, xml)
  const r = spawnSync('xmllint', ['--noout', '--schema', XSD, file], { encoding: 'utf8' })
  if (r.error) throw new Error(`xmllint is missing (${r.error.message}); run npm run setup`)
  return { ok: r.status === 0, text: `${r.stdout}${r.stderr}` }
}

describe('junitXml', () => {
  it('is valid JUnit XML for passing, failing, aborted and unbootable runs, alone and together', () => {
    for (const set of [
      [passing],
      [failing],
      [aborted],
      [unbootable],
      [passing, failing, aborted, unbootable]
    ]) {
      const v = validate(junitXml(set, new Date('2026-12-02T09:00:00Z')))
      expect(v.ok, v.text).toBe(true)
    }
  })

  it('a schema violation is caught: the validation can fail', () => {
    const broken = junitXml([passing], new Date()).replace(' tests="3"', '')
    expect(validate(broken).ok).toBe(false)
  })

  it('has a testcase per gate and one for the verdict; a failed gate says actual vs limit and the run', () => {
    const xml = junitXml([failing], new Date('2026-12-02T09:00:00Z'))
    expect(xml).toContain(
      '<testsuite name="room1-brokers-down" tests="3" failures="3" errors="0" skipped="0" time="31.250"'
    )
    expect(xml).toContain(
      '<failure message="actual 3 vs limit 0 (run 12)" type="gate">lost messages: actual 3, limit 0; run 12 of room1-brokers-down on two-rooms</failure>'
    )
    expect(xml).toContain('<failure message="2 of 2 gates failed (run 12)" type="verdict">')
    expect(xml).toContain('<property name="runId" value="12"/>')
  })

  it('passes gates as empty testcases, reports an abort and notes on the verdict, and a run not made as an error', () => {
    expect(junitXml([passing], new Date())).toContain(
      '<testcase name="max producer RTO (ms)" classname="drstudio.scenario.room1-brokers-down" time="0.000"/>'
    )
    const a = junitXml([aborted], new Date())
    expect(a).toContain(
      '<failure message="stopped by the abort block: failed sends over 50 % for 3 s (run 12)" type="aborted">'
    )
    expect(a).toContain('<system-out>drain timed out &lt;after 20 s&gt; &amp; gave up</system-out>')
    const u = junitXml([unbootable], new Date())
    expect(u).toContain(
      '<testsuites name="drstudio scenario run" tests="1" failures="0" errors="1"'
    )
    expect(u).toContain(
      '<error message="broker-1 did not start: port 10911 is in use" type="not-run">'
    )
    // A file that did not load has no scenario name: its suite is named after the file.
    const unreadable = junitXml(
      [{ ...unbootable, file: 'ci/scenarios/typo-gates.yaml', name: null }],
      new Date()
    )
    expect(unreadable).toContain('<testsuite name="typo-gates" tests="1"')
  })
})

describe('exit codes', () => {
  it('0 passed, 1 a gate failed, 2 no run made, 3 aborted; several scenarios take the most serious', () => {
    expect([passing, failing, unbootable, aborted].map(exitCodeOf)).toEqual([0, 1, 2, 3])
    expect(combinedExitCode([passing, passing])).toBe(0)
    expect(combinedExitCode([passing, failing])).toBe(1)
    expect(combinedExitCode([failing, aborted])).toBe(3)
    expect(combinedExitCode([aborted, unbootable, failing])).toBe(2)
    expect(combinedExitCode([])).toBe(0)
  })
})

describe('xmlEscape', () => {
  it('escapes markup and drops characters XML cannot carry', () => {
    expect(xmlEscape(`a<b>&"c'\u0001\u0007d\ttab`)).toBe('a&lt;b&gt;&amp;&quot;c&apos;d\ttab')
  })
})
