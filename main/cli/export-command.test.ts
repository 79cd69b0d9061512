import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runExportCommand } from './export-command'
import { runLintCommand } from './lint-command'

const dir = mkdtempSync(join(tmpdir(), 'drstudio-export-cli-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function sink() {
  let text = ''
  return {
    write: (s: string) => (text += s),
    get text() {
      return text
    }
  }
}

function topologyFile(
  name: string,
  edit: (doc: ReturnType<typeof JSON.parse>) => void = () => {}
): string {
  const doc = JSON.parse(readFileSync('resources/topologies/two-rooms.json', 'utf8'))
  edit(doc)
  const path = join(dir, `${name}.json`)
  writeFileSync(path, JSON.stringify(doc))
  return path
}

describe('runLintCommand', () => {
  it('prints one line per finding and exits 0 without errors', () => {
    const out = sink()
    const err = sink()
    expect(runLintCommand('resources/topologies/two-rooms.json', {}, out, err)).toBe(0)
    const lines = out.text.trim().split('\n')
    expect(lines).toHaveLength(4)
    expect(lines[0]).toMatch(/^info single-nameserver-per-room ns-1: .+ \(fix: .+\)$/)
    expect(lines[2]).toMatch(/^warning broker-group-no-remote-replica broker-1: /)
    expect(err.text).toContain('0 error(s), 2 warning(s), 2 info')
  })

  it('exits 1 when an error-level rule fires', () => {
    const file = topologyFile('no-ns', (d) => (d.rooms[1].nameServers = []))
    const out = sink()
    expect(runLintCommand(file, {}, out, sink())).toBe(1)
    expect(out.text).toContain(
      'error room-without-nameserver room2: room "room2" has no name server (fix: '
    )
  })

  it('exits 1 for the multi-room errors and 0 for their warnings', () => {
    const split = topologyFile('split', (d) => (d.rooms[1].brokers[0].cluster = 'Room2Cluster'))
    const out = sink()
    expect(runLintCommand(split, {}, out, sink())).toBe(1)
    expect(out.text).toContain(
      'error topic-split-across-clusters broker-1,broker-2: topic "orders"'
    )
    const slow = topologyFile('slow', (d) => (d.settings.routeRefreshMs = 30000))
    const out2 = sink()
    expect(runLintCommand(slow, {}, out2, sink())).toBe(0)
    expect(out2.text).toContain(
      'warning failover-timers-too-slow -: clients refresh routes every 30000 ms'
    )
  })

  it('prints JSON with --json', () => {
    const out = sink()
    expect(
      runLintCommand('resources/topologies/three-rooms.json', { json: true }, out, sink())
    ).toBe(0)
    const parsed = JSON.parse(out.text)
    expect(parsed.valid).toBe(true)
    expect(parsed.findings[0]).toEqual(
      expect.objectContaining({
        ruleId: expect.any(String),
        severity: expect.any(String),
        nodeIds: expect.any(Array),
        path: expect.any(String)
      })
    )
  })

  it('exits 2 for a missing or invalid file, naming it', () => {
    const err = sink()
    expect(runLintCommand(join(dir, 'nope.json'), {}, sink(), err)).toBe(2)
    expect(err.text).toContain(`topology file not found: ${join(dir, 'nope.json')}`)
    const bad = join(dir, 'bad.json')
    writeFileSync(
      bad,
      '{"kind": "drstudio/topology", "version": 1, "name": "x", "rooms": [{"id": "1bad"}]}'
    )
    const err2 = sink()
    expect(runLintCommand(bad, {}, sink(), err2)).toBe(2)
    expect(err2.text).toContain('$.rooms[0].id')
  })
})

describe('runExportCommand', () => {
  it('writes the export and reports lint and placeholders', () => {
    const out = sink()
    const outDir = join(dir, 'export-1')
    expect(runExportCommand('resources/topologies/two-rooms.json', outDir, {}, out, sink())).toBe(0)
    expect(existsSync(join(outDir, 'room1/broker-1/broker.conf'))).toBe(true)
    expect(out.text).toMatch(/^wrote \d+ files to /)
    expect(out.text).toContain('lint: 0 error(s), 2 warning(s)')
    expect(out.text).toContain('14 placeholder(s) to fill')
  })

  it('applies a values file and a results file', () => {
    const values = join(dir, 'values.json')
    writeFileSync(
      values,
      JSON.stringify({ '<room1-mgmt-1-port>': 8080, '<room1-mgmt-1-host>': 'mgmt1.example' })
    )
    const results = join(dir, 'results.json')
    writeFileSync(
      results,
      JSON.stringify({
        scenarios: [{ scenario: 'all-healthy', verdict: 'pass', rtoMs: null, lost: 0, endedAt: 0 }]
      })
    )
    const outDir = join(dir, 'export-2')
    const out = sink()
    expect(
      runExportCommand(
        'resources/topologies/two-rooms.json',
        outDir,
        { valuesPath: values, resultsPath: results, json: true },
        out,
        sink()
      )
    ).toBe(0)
    const report = JSON.parse(out.text)
    expect(report.placeholders).not.toContain('<room1-mgmt-1-port>')
    expect(
      JSON.parse(readFileSync(join(outDir, 'room1/mgmt-1/management.json'), 'utf8')).port
    ).toBe(8080)
    expect(readFileSync(join(outDir, 'README.md'), 'utf8')).toContain('| all-healthy | pass |')
  })

  it('exits 2 with the reason when the folder or a side file is unusable', () => {
    const busy = join(dir, 'busy')
    runExportCommand(
      'resources/topologies/two-rooms.json',
      join(dir, 'export-3'),
      {},
      sink(),
      sink()
    )
    writeFileSync(join(dir, 'busy.txt'), 'x')
    const err = sink()
    expect(runExportCommand('resources/topologies/two-rooms.json', dir, {}, sink(), err)).toBe(2)
    expect(err.text).toContain('is not empty')
    const err2 = sink()
    expect(
      runExportCommand(
        'resources/topologies/two-rooms.json',
        busy,
        { resultsPath: join(dir, 'values.json') },
        sink(),
        err2
      )
    ).toBe(2)
    expect(err2.text).toContain('not a results file')
  })
})
