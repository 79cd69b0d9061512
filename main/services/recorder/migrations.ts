/** One schema step; applied in order inside a transaction and recorded in `schema_migrations`. */
export interface Migration {
  version: number
  name: string
  sql: string
}

/** Ordered schema history. Append only: a shipped migration is never edited. */
export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'core',
    sql: `
      CREATE TABLE runs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL DEFAULT 'sandbox',
        topology_name TEXT NOT NULL,
        topology_json TEXT,
        scenario_name TEXT,
        started_at INTEGER NOT NULL,
        ended_at INTEGER,
        verdict TEXT,
        report_json TEXT
      );
      CREATE INDEX runs_started ON runs(started_at DESC);
      CREATE TABLE recent_files (
        path TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        opened_at INTEGER NOT NULL
      );
      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value_json TEXT NOT NULL
      );
    `
  }
]
