import type { Reporter, TestModule } from 'vitest/node'

/** The most lines the digest prints: CI's excerpt keeps about 30 of the tail. */
const MAX_LINES = 24

/**
 * After vitest's summary, a few lines per failed test: where it failed, its first error line, and
 * the gates its last scorecard failed (from the output last-output.ts added to the error). This is
 * what the tail of a long CI log keeps.
 */
export class FailureDigest implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const out: string[] = []
    for (const m of testModules) {
      for (const t of m.children.allTests()) {
        const r = t.result()
        if (r.state !== 'failed') continue
        const message = r.errors?.[0]?.message ?? ''
        const [first = ''] = message.split('\n')
        const gates = message.split('\n').filter((l) => /^\s+FAIL {2}/.test(l))
        out.push(
          `✗ ${m.relativeModuleId} › ${t.name}`,
          `    ${first}`,
          ...gates.map((g) => `  ${g}`)
        )
      }
    }
    if (out.length === 0) return
    const shown = out.slice(0, MAX_LINES)
    const more = out.length - shown.length
    process.stdout.write(
      ['', 'failed, in short:', ...shown, ...(more > 0 ? [`  (${more} more lines)`] : []), ''].join(
        '\n'
      )
    )
  }
}
