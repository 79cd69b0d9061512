import { isPidAlive } from '../pid-alive'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import type { Migration } from './migrations'
import { MIGRATIONS } from './migrations'

export type Db = Database.Database

export interface RunRow {
  id: number
  kind: string
  topologyName: string
  scenarioName: string | null
  startedAt: number
  endedAt: number | null
  verdict: string | null
}

export interface RecentFile {
  path: string
  name: string
  openedAt: number
}

const RECENT_LIMIT = 12

/** Opens (creating if needed) a store in WAL mode and brings its schema up to date. */
export function openDatabase(file: string, migrations: Migration[] = MIGRATIONS): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true })
  const db = new Database(file)
  // WAL lets the UI read a run's events while the engine is still writing them.
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  migrate(db, migrations)
  return db
}

/** Applies pending migrations in order; refuses a database newer than this build. */
export function migrate(db: Db, migrations: Migration[]): number {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)'
  )
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as {
    v: number | null
  }
  const current = row.v ?? 0
  const latest = migrations.reduce((m, x) => Math.max(m, x.version), 0)
  if (current > latest) {
    throw new Error(
      `the database ${db.name} has schema version ${current}, newer than this build (${latest}); ` +
        'upgrade DR Studio or point DRSTUDIO_DATA_DIR at another folder'
    )
  }
  const insert = db.prepare(
    'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)'
  )
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (m.version <= current) continue
    db.transaction(() => {
      db.exec(m.sql)
      insert.run(m.version, m.name, Date.now())
    })()
  }
  return latest
}

/** Runs, recent files and settings; ledger tables are written by the ledger service on the same handle. */
export class Recorder {
  constructor(
    readonly db: Db,
    private readonly now: () => number = Date.now,
    private readonly owner: { pid: number; alive(pid: number): boolean } = {
      pid: process.pid,
      alive: isPidAlive
    }
  ) {}

  startRun(input: {
    kind: string
    topologyName: string
    topologyJson?: string
    scenarioName?: string
  }): number {
    const info = this.db
      .prepare(
        'INSERT INTO runs (kind, topology_name, topology_json, scenario_name, started_at, owner_pid) VALUES (?, ?, ?, ?, ?, ?)'
      )
      .run(
        input.kind,
        input.topologyName,
        input.topologyJson ?? null,
        input.scenarioName ?? null,
        this.now(),
        this.owner.pid
      )
    return Number(info.lastInsertRowid)
  }

  endRun(id: number, verdict: string | null, report?: unknown): void {
    this.db
      .prepare('UPDATE runs SET ended_at = ?, verdict = ?, report_json = ? WHERE id = ?')
      .run(this.now(), verdict, report === undefined ? null : JSON.stringify(report), id)
  }

  /** Replaces an ended run's report (a sweep adds its summary once its last run ended). */
  setRunReport(id: number, report: unknown): void {
    this.db.prepare('UPDATE runs SET report_json = ? WHERE id = ?').run(JSON.stringify(report), id)
  }

  /**
   * Closes runs left open by a crash so they show as interrupted instead of running forever. A run
   * whose process is still alive (the app while the CLI starts on the same data folder) is left.
   */
  closeInterruptedRuns(): number {
    const open = this.db
      .prepare('SELECT id, owner_pid AS pid FROM runs WHERE ended_at IS NULL')
      .all() as { id: number; pid: number | null }[]
    const close = this.db.prepare(
      "UPDATE runs SET ended_at = started_at, verdict = 'interrupted' WHERE id = ?"
    )
    const orphans = open.filter((r) => r.pid === null || !this.owner.alive(r.pid))
    this.db.transaction(() => orphans.forEach((r) => close.run(r.id)))()
    return orphans.length
  }

  listRuns(limit = 200): RunRow[] {
    return this.db
      .prepare(
        `SELECT id, kind, topology_name AS topologyName, scenario_name AS scenarioName,
                started_at AS startedAt, ended_at AS endedAt, verdict
           FROM runs ORDER BY started_at DESC, id DESC LIMIT ?`
      )
      .all(limit) as RunRow[]
  }

  getRunReport(id: number): unknown {
    const row = this.db.prepare('SELECT report_json FROM runs WHERE id = ?').get(id) as
      { report_json: string | null } | undefined
    return row?.report_json ? JSON.parse(row.report_json) : null
  }

  /** The topology a run was started with, as stored (null for runs that did not keep it). */
  getRunTopology(id: number): unknown {
    const row = this.db.prepare('SELECT topology_json FROM runs WHERE id = ?').get(id) as
      { topology_json: string | null } | undefined
    return row?.topology_json ? JSON.parse(row.topology_json) : null
  }

  /** Reports of finished scenario runs of a topology, newest first (export READMEs quote them). */
  scenarioReports(topologyName: string, limit = 50): unknown[] {
    const rows = this.db
      .prepare(
        `SELECT report_json FROM runs
          WHERE topology_name = ? AND kind = 'scenario' AND report_json IS NOT NULL
          ORDER BY started_at DESC, id DESC LIMIT ?`
      )
      .all(topologyName, limit) as { report_json: string }[]
    return rows.map((r) => JSON.parse(r.report_json) as unknown)
  }

  deleteRun(id: number): boolean {
    return this.db.prepare('DELETE FROM runs WHERE id = ?').run(id).changes > 0
  }

  touchRecent(path: string, name: string): RecentFile[] {
    this.db
      .prepare(
        'INSERT INTO recent_files (path, name, opened_at) VALUES (?, ?, ?) ON CONFLICT(path) DO UPDATE SET name = excluded.name, opened_at = excluded.opened_at'
      )
      .run(path, name, this.now())
    this.db
      .prepare(
        'DELETE FROM recent_files WHERE path NOT IN (SELECT path FROM recent_files ORDER BY opened_at DESC LIMIT ?)'
      )
      .run(RECENT_LIMIT)
    return this.recentFiles()
  }

  recentFiles(): RecentFile[] {
    return this.db
      .prepare('SELECT path, name, opened_at AS openedAt FROM recent_files ORDER BY opened_at DESC')
      .all() as RecentFile[]
  }

  getSettings(): Record<string, unknown> {
    const rows = this.db.prepare('SELECT key, value_json FROM settings').all() as {
      key: string
      value_json: string
    }[]
    return Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value_json)]))
  }

  setSetting(key: string, value: unknown): void {
    this.db
      .prepare(
        'INSERT INTO settings (key, value_json) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value_json = excluded.value_json'
      )
      .run(key, JSON.stringify(value ?? null))
  }

  close(): void {
    if (this.db.open) this.db.close()
  }
}
