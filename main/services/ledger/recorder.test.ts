import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { defaultDataDir } from './data-dir'
import type { Migration } from './migrations'
import { MIGRATIONS } from './migrations'
import { migrate, openDatabase, Recorder } from './recorder'

const dirs: string[] = []
function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), 'drstudio-rec-'))
  dirs.push(dir)
  return join(dir, 'store.db')
}
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))

describe('Recorder', () => {
  it('opens in WAL mode with the latest schema', () => {
    const db = openDatabase(tempDb())
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    const v = db.prepare('SELECT MAX(version) v FROM schema_migrations').get() as { v: number }
    expect(v.v).toBe(Math.max(...MIGRATIONS.map((m) => m.version)))
    db.close()
  })

  it('applies only pending migrations and refuses a newer database', () => {
    const file = tempDb()
    const first: Migration[] = [{ version: 1, name: 'a', sql: 'CREATE TABLE a (x)' }]
    const db = openDatabase(file, first)
    expect(migrate(db, [...first, { version: 2, name: 'b', sql: 'CREATE TABLE b (y)' }])).toBe(2)
    expect(() => migrate(db, first)).toThrow(/newer than this build/)
    db.close()
  })

  it('records runs, recent files and settings that survive reopening', () => {
    const file = tempDb()
    let t = 1000
    const rec = new Recorder(openDatabase(file), () => t++)
    const id = rec.startRun({
      kind: 'scenario',
      topologyName: 'two-rooms',
      scenarioName: 'healthy'
    })
    rec.endRun(id, 'passed', { passed: true })
    const open = rec.startRun({ kind: 'sandbox', topologyName: 'two-rooms' })
    rec.touchRecent('/tmp/a.json', 'a')
    rec.touchRecent('/tmp/b.json', 'b')
    rec.touchRecent('/tmp/a.json', 'a')
    rec.setSetting('rocketmqHome', '/opt/rmq')
    rec.close()

    // The process that owned the open run is gone; a live owner's run stays open.
    const live = new Recorder(openDatabase(file), () => t++, { pid: 1, alive: () => true })
    expect(live.closeInterruptedRuns()).toBe(0)
    live.close()
    const again = new Recorder(openDatabase(file), () => t++, { pid: 1, alive: () => false })
    expect(again.closeInterruptedRuns()).toBe(1)
    const runs = again.listRuns()
    expect(runs.map((r) => [r.id, r.verdict])).toEqual([
      [open, 'interrupted'],
      [id, 'passed']
    ])
    expect(again.getRunReport(id)).toEqual({ passed: true })
    // A sweep adds its summary to a run's report after the run ended; the verdict stays.
    again.setRunReport(id, { passed: true, sweep: { scenario: 'healthy' } })
    expect(again.getRunReport(id)).toEqual({ passed: true, sweep: { scenario: 'healthy' } })
    expect(again.listRuns().find((r) => r.id === id)?.verdict).toBe('passed')
    expect(again.recentFiles().map((f) => f.name)).toEqual(['a', 'b'])
    expect(again.getSettings()).toEqual({ rocketmqHome: '/opt/rmq' })
    expect(again.deleteRun(id)).toBe(true)
    expect(again.listRuns()).toHaveLength(1)
    again.close()
  })

  it('keeps only the newest recent files', () => {
    const rec = new Recorder(openDatabase(tempDb()))
    let t = 0
    const r = new Recorder(rec.db, () => t++)
    for (let i = 0; i < 20; i++) r.touchRecent(`/f${i}.json`, `f${i}`)
    expect(r.recentFiles()).toHaveLength(12)
    expect(r.recentFiles()[0]?.name).toBe('f19')
    rec.close()
  })
})

describe('defaultDataDir', () => {
  it('honours DRSTUDIO_DATA_DIR and per-OS conventions', () => {
    expect(defaultDataDir({ DRSTUDIO_DATA_DIR: '/x' }, 'linux', '/h')).toBe('/x')
    expect(defaultDataDir({}, 'linux', '/h')).toBe('/h/.local/share/drstudio')
    expect(defaultDataDir({}, 'darwin', '/h')).toBe('/h/Library/Application Support/DR Studio')
    expect(defaultDataDir({ APPDATA: 'C:\\A' }, 'win32', '/h')).toContain('DR Studio')
  })
})
