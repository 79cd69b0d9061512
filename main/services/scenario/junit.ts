import { basename, extname } from 'node:path'
import type { ScenarioReport } from '../../../common/scenario/schema'

/** What one scenario of a `drstudio scenario run` came to: a report, or why no run was made. */
export type ScenarioOutcome =
  | { file: string; kind: 'ran'; report: ScenarioReport; durationMs: number }
  | { file: string; kind: 'not-run'; name: string | null; error: string; durationMs: number }

/**
 * Documented exit codes of `drstudio scenario run` (k6-style: CI tells a failed gate from a broken
 * run): 0 every gate passed, 1 a gate failed, 2 a run could not be made (bad file, boot failure,
 * missing Java), 3 the scenario's abort block stopped it.
 */
export const EXIT_CODES = { passed: 0, gateFailed: 1, notRun: 2, aborted: 3 } as const

/** One scenario's exit code. */
export function exitCodeOf(o: ScenarioOutcome): number {
  if (o.kind === 'not-run') return EXIT_CODES.notRun
  if (o.report.aborted) return EXIT_CODES.aborted
  return o.report.passed ? EXIT_CODES.passed : EXIT_CODES.gateFailed
}

/**
 * The exit code of several scenarios: the most serious of theirs. A run that could not be made
 * outranks an aborted one, which outranks a failed gate: each asks more of whoever reads the log.
 */
export function combinedExitCode(outcomes: readonly ScenarioOutcome[]): number {
  const codes = new Set(outcomes.map(exitCodeOf))
  for (const c of [EXIT_CODES.notRun, EXIT_CODES.aborted, EXIT_CODES.gateFailed])
    if (codes.has(c)) return c
  return EXIT_CODES.passed
}

/** XML-escapes text and attribute values, dropping characters XML 1.0 cannot carry. */
export function xmlEscape(s: string): string {
  return (
    s
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
  )
}

interface Case {
  name: string
  time: number
  outcome?: { tag: 'failure' | 'error'; type: string; message: string; text: string }
  out?: string
}

const seconds = (ms: number): string => (Math.max(0, ms) / 1000).toFixed(3)
const value = (v: number | string | null): string =>
  v === null ? 'none' : typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(3) : String(v)

/** A scenario's test cases: every gate, then the run's verdict (or why it was not made). */
function casesOf(o: ScenarioOutcome): Case[] {
  if (o.kind === 'not-run') {
    return [
      {
        name: 'run',
        time: o.durationMs,
        outcome: { tag: 'error', type: 'not-run', message: o.error, text: `${o.file}\n${o.error}` }
      }
    ]
  }
  const r = o.report
  const gates: Case[] = r.gates.map((g) => ({
    name: g.name,
    time: 0,
    ...(g.passed
      ? {}
      : {
          outcome: {
            tag: 'failure' as const,
            type: 'gate',
            message: `actual ${value(g.actual)} vs limit ${value(g.limit)} (run ${r.runId})`,
            text: `${g.name}: actual ${value(g.actual)}, limit ${value(g.limit)}; run ${r.runId} of ${r.scenario} on ${r.topology}`
          }
        })
  }))
  const failed = r.gates.filter((g) => !g.passed).length
  const verdict: Case = {
    name: 'verdict',
    time: o.durationMs,
    ...(r.notes.length ? { out: r.notes.join('\n') } : {}),
    ...(r.aborted
      ? {
          outcome: {
            tag: 'failure' as const,
            type: 'aborted',
            message: `stopped by the abort block: ${r.aborted} (run ${r.runId})`,
            text: r.aborted
          }
        }
      : r.passed
        ? {}
        : {
            outcome: {
              tag: 'failure' as const,
              type: 'verdict',
              message: `${failed} of ${r.gates.length} gates failed (run ${r.runId})`,
              text: r.gates
                .filter((g) => !g.passed)
                .map((g) => g.name)
                .join('\n')
            }
          })
  }
  return [...gates, verdict]
}

function caseXml(c: Case, classname: string): string {
  const head = `    <testcase name="${xmlEscape(c.name)}" classname="${xmlEscape(classname)}" time="${seconds(c.time)}"`
  if (!c.outcome && !c.out) return `${head}/>`
  const parts = [`${head}>`]
  if (c.outcome) {
    const { tag, type, message, text } = c.outcome
    parts.push(
      `      <${tag} message="${xmlEscape(message)}" type="${xmlEscape(type)}">${xmlEscape(text)}</${tag}>`
    )
  }
  if (c.out) parts.push(`      <system-out>${xmlEscape(c.out)}</system-out>`)
  parts.push('    </testcase>')
  return parts.join('\n')
}

/**
 * The JUnit XML of a `drstudio scenario run`: one testsuite per scenario, one testcase per gate
 * (a failure says actual against limit and the run id), and the run's verdict as its own testcase
 * (a failure when a gate failed or the abort block stopped it, an error when no run was made).
 */
export function junitXml(outcomes: readonly ScenarioOutcome[], startedAt: Date): string {
  const suites: string[] = []
  let tests = 0
  let failures = 0
  let errors = 0
  let time = 0
  for (const o of outcomes) {
    const name =
      o.kind === 'ran' ? o.report.scenario : (o.name ?? basename(o.file, extname(o.file)))
    const cases = casesOf(o)
    const f = cases.filter((c) => c.outcome?.tag === 'failure').length
    const e = cases.filter((c) => c.outcome?.tag === 'error').length
    tests += cases.length
    failures += f
    errors += e
    time += o.durationMs
    const props =
      o.kind === 'ran'
        ? [
            ['file', o.file],
            ['topology', o.report.topology],
            ['runId', String(o.report.runId)],
            ['passed', String(o.report.passed)]
          ]
        : [['file', o.file]]
    suites.push(
      [
        `  <testsuite name="${xmlEscape(name)}" tests="${cases.length}" failures="${f}" errors="${e}" skipped="0" time="${seconds(o.durationMs)}" timestamp="${startedAt.toISOString().slice(0, 19)}" file="${xmlEscape(o.file)}">`,
        '    <properties>',
        ...props.map(
          ([k, v]) => `      <property name="${xmlEscape(k!)}" value="${xmlEscape(v!)}"/>`
        ),
        '    </properties>',
        ...cases.map((c) => caseXml(c, `drstudio.scenario.${name}`)),
        '  </testsuite>'
      ].join('\n')
    )
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="drstudio scenario run" tests="${tests}" failures="${failures}" errors="${errors}" skipped="0" time="${seconds(time)}">`,
    ...suites,
    '</testsuites>',
    ''
  ].join('\n')
}
