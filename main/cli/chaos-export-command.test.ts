import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { documentKind, runChaosExportCommand } from './chaos-export-command'
import { runExportCommand } from './export-command'

const dir = mkdtempSync(join(tmpdir(), 'drstudio-k8s-cli-'))
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

describe('drstudio export --target chaos-mesh', () => {
  it('writes a Workflow, a Schedule and a README for a scenario file', () => {
    const out = sink()
    const target = join(dir, 'paused')
    expect(
      runChaosExportCommand(
        'resources/scenarios/room1-broker-paused.yaml',
        target,
        { schedule: '@weekly' },
        out,
        sink()
      )
    ).toBe(0)
    expect(out.text).toMatch(/wrote 4 files/)
    expect(out.text).toMatch(/2 step\(s\) have no Chaos Mesh form/)
    expect(parse(readFileSync(join(target, 'schedule.yaml'), 'utf8')).spec.schedule).toBe('@weekly')
    // A second export into the same folder replaces the first.
    expect(
      runChaosExportCommand(
        'resources/scenarios/room1-lossy.yaml',
        target,
        { json: true },
        sink(),
        sink()
      )
    ).toBe(0)
    expect(parse(readFileSync(join(target, 'workflow.yaml'), 'utf8')).metadata.name).toBe(
      'room1-lossy'
    )
  })

  it('refuses a topology file, naming the fix', () => {
    const err = sink()
    expect(
      runChaosExportCommand('resources/topologies/two-rooms.json', join(dir, 'x'), {}, sink(), err)
    ).toBe(2)
    expect(err.text).toMatch(
      /two-rooms.json is a topology; --target chaos-mesh exports a scenario file .* use --target kubernetes/
    )
    expect(existsSync(join(dir, 'x'))).toBe(false)
  })

  it('refuses a bad --schedule before writing anything', () => {
    const err = sink()
    expect(
      runChaosExportCommand(
        'resources/scenarios/room1-lossy.yaml',
        join(dir, 'y'),
        { schedule: 'weekly' },
        sink(),
        err
      )
    ).toBe(2)
    expect(err.text).toMatch(/--schedule: "weekly" is not a 5-field cron/)
    expect(existsSync(join(dir, 'y'))).toBe(false)
  })

  it('names the scenario file and its problems when it is not valid', () => {
    const bad = join(dir, 'bad.yaml')
    writeFileSync(
      bad,
      'kind: drstudio/scenario\nname: bad\ntopology: two-rooms\ntimeline:\n  - { at: 1s, action: isolate, target: room9 }\n'
    )
    const err = sink()
    expect(runChaosExportCommand(bad, join(dir, 'z'), {}, sink(), err)).toBe(2)
    expect(err.text).toContain(bad)
    expect(err.text).toMatch(/room9/)
  })
})

describe('drstudio export of a scenario without --target chaos-mesh', () => {
  it('says to use --target chaos-mesh', () => {
    const err = sink()
    expect(
      runExportCommand('resources/scenarios/room1-lossy.yaml', join(dir, 'w'), {}, sink(), err)
    ).toBe(2)
    expect(err.text).toMatch(
      /room1-lossy.yaml is a scenario file; export it with --target chaos-mesh/
    )
  })
})

describe('drstudio export --target kubernetes', () => {
  it('writes the Kustomize tree', () => {
    const out = sink()
    const target = join(dir, 'k8s')
    expect(
      runExportCommand(
        'resources/topologies/two-rooms.json',
        target,
        { target: 'kubernetes', results: null },
        out,
        sink()
      )
    ).toBe(0)
    expect(parse(readFileSync(join(target, 'kustomization.yaml'), 'utf8')).resources).toEqual([
      'base',
      'room1',
      'room2'
    ])
    expect(existsSync(join(target, 'room1', 'broker-1.yaml'))).toBe(true)
    expect(existsSync(join(target, 'room1', 'broker.conf'))).toBe(false)
  })
})

describe('documentKind', () => {
  it('tells scenarios from topologies', () => {
    expect(documentKind('resources/scenarios/healthy.yaml')).toBe('scenario')
    expect(documentKind('resources/topologies/two-rooms.json')).toBe('topology')
    expect(documentKind(join(dir, 'missing.yaml'))).toBeNull()
  })
})
