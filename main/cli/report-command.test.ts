import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { seedRecordedRun } from '../services/report-html/test-seed'
import { runReportCommand } from './report-command'

const dir = mkdtempSync(join(tmpdir(), 'drstudio-report-cli-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const sink = () => {
  let text = ''
  return {
    write: (t: string) => (text += t),
    get text() {
      return text
    }
  }
}

describe('drstudio report <run> --html', () => {
  it('writes a recorded run as one HTML file', () => {
    const dataDir = join(dir, 'data')
    const id = seedRecordedRun(dataDir)
    const out = sink()
    const file = join(dir, 'out', `run-${id}.html`)
    expect(runReportCommand(String(id), { html: file, dataDir, stdout: out })).toBe(0)
    expect(out.text).toBe(`wrote ${file}\n`)
    const html = readFileSync(file, 'utf8')
    expect(html).toContain('<h1>transactional-room1-brokers-down</h1>')
    expect(html).toContain(`Run ${id} · topology two-rooms`)
  })

  it('--compare prints runs side by side, marking what differs', () => {
    const dataDir = join(dir, 'compare')
    const a = seedRecordedRun(dataDir)
    const b = seedRecordedRun(dataDir)
    const out = sink()
    expect(runReportCommand([String(a), String(b)], { compare: true, dataDir, stdout: out })).toBe(
      0
    )
    const lines = out.text.split('\n')
    expect(lines[0]).toMatch(new RegExp(`^\\s+run ${a}\\s+run ${b}$`))
    // The same recorded run twice: nothing differs.
    expect(lines.filter((l) => l.startsWith('*'))).toEqual(['* differs between the runs'])
    expect(out.text).toMatch(/ {2}verdict\s+PASSED\s+PASSED/)
    expect(out.text).toMatch(/ {2}gate: lost messages\s+pass 0\s+pass 0/)
    const json = sink()
    runReportCommand([String(a), String(b)], { compare: true, json: true, dataDir, stdout: json })
    expect(JSON.parse(json.text).runs).toEqual([
      { runId: a, scenario: 'transactional-room1-brokers-down' },
      { runId: b, scenario: 'transactional-room1-brokers-down' }
    ])
  })

  it('names the problem and the fix, exit 2', () => {
    const dataDir = join(dir, 'data')
    const cases: [string, Parameters<typeof runReportCommand>[1], RegExp][] = [
      [
        'x',
        { html: 'a.html', dataDir },
        /"x" is not a run id; give the number the Runs panel shows/
      ],
      ['1', { dataDir }, /say what to write, e.g. --html run-12.html/],
      ['1', { html: 'a.html', dataDir: join(dir, 'empty') }, /no runs recorded yet/],
      ['999', { html: join(dir, 'a.html'), dataDir }, /there is no run 999 in this data folder/],
      ['1', { compare: true, dataDir }, /--compare needs two or more runs/],
      ['1', { html: 'a.html', json: true, dataDir }, /--json goes with --compare/]
    ]
    for (const [run, opts, message] of cases) {
      const err = sink()
      expect(runReportCommand(run, { ...opts, stderr: err })).toBe(2)
      expect(err.text).toMatch(message)
    }
    expect(existsSync(join(dir, 'a.html'))).toBe(false)
  })
})
