import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openDatabase, Recorder } from '../services/ledger/recorder'
import { isPidAlive } from '../services/pid-alive'
import { runScenarioCommand, scenarioFiles } from './scenario-command'

const XSD = resolve(import.meta.dirname, '../../resources/junit/junit.xsd')

const dir = mkdtempSync(join(tmpdir(), 'drstudio-scenario-cli-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function sink() {
  let text = ''
  return {
    write: (s: string) => ((text += s), true),
    get text() {
      return text
    }
  }
}

describe('drstudio scenario run on a file with mistakes', () => {
  it('prints every problem of the file and exits 2 before anything starts', async () => {
    const file = join(dir, 'typos.yaml')
    writeFileSync(
      file,
      `name: typos
topology: two-rooms
workload: { duration: 5s }
timeline:
  - { at: 1s, action: kil, target: broker-1 }
  - { at: 2s, action: partition, target: room1 }
gates: { maxRtoMS: 100 }
`
    )
    const out = sink()
    const err = sink()
    const code = await runScenarioCommand(file, {
      dataDir: join(dir, 'data'),
      stdout: out as unknown as NodeJS.WritableStream,
      stderr: err as unknown as NodeJS.WritableStream
    })
    expect(code).toBe(2)
    expect(out.text).toBe('')
    // The problems and nothing else: no "[sandbox] starting topology" line, so nothing booted.
    expect(err.text.split('\n')).toEqual([
      `${file} is not a runnable scenario:`,
      expect.stringMatching(
        /^ {2}- timeline\[0\]\.action: "kil" is not an action; node actions: kill, .*\(did you mean "kill"\?\)$/
      ),
      '  - timeline[1].peer: is missing (a partition step needs it)',
      '  - gates.maxRtoMS: unknown key "maxRtoMS"; did you mean "maxRtoMs"?',
      ''
    ])
  })
})

describe('drstudio scenario run on several files and folders', () => {
  it('runs each in turn, writes JUnit with a suite per scenario, and exits 2 when none could run', async () => {
    const folder = join(dir, 'suite')
    mkdirSync(folder, { recursive: true })
    writeFileSync(join(folder, 'a.yaml'), 'name: a\ntopology: no-such-topology.json\n')
    writeFileSync(join(folder, 'b.yml'), 'name: b\ntopology: two-rooms\ngates: { maxLostt: 0 }\n')
    writeFileSync(join(folder, 'notes.txt'), 'not a scenario')
    const single = join(dir, 'c.yaml')
    writeFileSync(single, 'name: c\ntopology: two-rooms\nworkload: { duration: -1s }\n')
    const junit = join(dir, 'out', 'junit.xml')
    const err = sink()
    const code = await runScenarioCommand([folder, single], {
      dataDir: join(dir, 'data'),
      junit,
      stdout: sink() as unknown as NodeJS.WritableStream,
      stderr: err as unknown as NodeJS.WritableStream
    })
    expect(code).toBe(2)
    const xml = readFileSync(junit, 'utf8')
    // Folder entries in name order, then the file; each a suite with the error that stopped it.
    // A file that did not load has no scenario name: its suite takes the file's.
    expect(
      [...xml.matchAll(/<testsuite name="([^"]+)"[^>]* file="([^"]+)"/g)].map((m) => [m[1], m[2]])
    ).toEqual([
      ['a', join(folder, 'a.yaml')],
      ['b', join(folder, 'b.yml')],
      ['c', single]
    ])
    expect(xml).toContain('errors="3"')
    expect(xml).toContain('maxLostt')
    const lint = spawnSync('xmllint', ['--noout', '--schema', XSD, junit], { encoding: 'utf8' })
    expect(lint.status, `${lint.stdout}${lint.stderr}`).toBe(0)
    expect(err.text).toContain('no-such-topology.json')
  })

  it('names an argument that is neither a scenario file nor a folder of them', () => {
    expect(() => scenarioFiles([join(dir, 'missing.yaml')])).toThrow(
      /missing.yaml: no such file or folder/
    )
    const empty = join(dir, 'empty')
    mkdirSync(empty, { recursive: true })
    expect(() => scenarioFiles([empty])).toThrow(/holds no scenario \(\*\.yaml\) file/)
    expect(() => scenarioFiles([])).toThrow(/at least one scenario/)
  })
})

describe('drstudio scenario run on the composed services', () => {
  it('closes a run a crash left open and honours the Java home setting, as the app does', async () => {
    const dataDir = join(dir, 'data-interrupted')
    mkdirSync(dataDir, { recursive: true })
    const before = new Recorder(openDatabase(join(dataDir, 'drstudio.db')), Date.now, {
      // A process that no longer exists owned it (pid_max is far below this).
      pid: 2 ** 31 - 1,
      alive: isPidAlive
    })
    const open = before.startRun({ kind: 'scenario', topologyName: 'two-rooms' })
    before.setSetting('javaHome', join(dir, 'no-such-jdk'))
    before.close()
    const file = join(dir, 'short.yaml')
    writeFileSync(file, 'name: short\ntopology: two-rooms\nworkload: { duration: 2s }\n')
    const err = sink()
    const code = await runScenarioCommand(file, {
      dataDir,
      stdout: sink() as unknown as NodeJS.WritableStream,
      stderr: err as unknown as NodeJS.WritableStream
    })
    // The Java home from the settings was tried (and is missing), so nothing booted.
    expect(code).toBe(2)
    expect(err.text).toContain(join(dir, 'no-such-jdk'))
    const after = new Recorder(openDatabase(join(dataDir, 'drstudio.db')))
    expect(after.listRuns().find((r) => r.id === open)?.verdict).toBe('interrupted')
    after.close()
  })
})
