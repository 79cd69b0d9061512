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
  },
  {
    version: 2,
    name: 'ledger',
    // Written by main/services/ledger: decisions/failovers/faults/counters as events, and one row
    // per message sent and per delivery so loss and duplicates are counted by key.
    sql: `
      CREATE TABLE ledger_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        at_ms REAL NOT NULL,
        kind TEXT NOT NULL,
        client_id TEXT,
        room TEXT,
        data_json TEXT NOT NULL
      );
      CREATE INDEX ledger_events_run ON ledger_events(run_id, at_ms);
      CREATE INDEX ledger_events_kind ON ledger_events(run_id, kind, at_ms);
      CREATE TABLE ledger_sends (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        msg_key TEXT NOT NULL,
        client_id TEXT NOT NULL,
        client_room TEXT NOT NULL,
        namesrv_id TEXT,
        namesrv_room TEXT,
        broker_name TEXT,
        broker_room TEXT,
        queue_id INTEGER,
        queue_offset INTEGER,
        started_at REAL NOT NULL,
        attempt_started_at REAL,
        ended_at REAL NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('acked', 'failed')),
        attempts INTEGER NOT NULL,
        error TEXT,
        PRIMARY KEY (run_id, msg_key)
      ) WITHOUT ROWID;
      CREATE INDEX ledger_sends_client ON ledger_sends(run_id, client_id, ended_at);
      CREATE TABLE ledger_deliveries (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        msg_key TEXT NOT NULL,
        client_id TEXT NOT NULL,
        client_room TEXT NOT NULL,
        namesrv_room TEXT,
        broker_name TEXT NOT NULL,
        broker_room TEXT,
        queue_id INTEGER NOT NULL,
        queue_offset INTEGER NOT NULL,
        born_at REAL,
        delivered_at REAL NOT NULL
      );
      CREATE INDEX ledger_deliveries_key ON ledger_deliveries(run_id, msg_key);
      CREATE INDEX ledger_deliveries_client ON ledger_deliveries(run_id, client_id, delivered_at);
    `
  },
  {
    version: 3,
    name: 'scheduled sends',
    // When the open-loop schedule wanted each send: latency from here is safe from coordinated omission.
    sql: `ALTER TABLE ledger_sends ADD COLUMN scheduled_at REAL;`
  },
  {
    version: 4,
    name: 'run owners',
    // The process that runs each run: another process on the same data folder (the app while the
    // CLI runs a scenario) closes only runs whose owner is gone.
    sql: `ALTER TABLE runs ADD COLUMN owner_pid INTEGER;`
  },
  {
    version: 5,
    name: 'delayed messages',
    // When the broker's timer was asked to deliver each delayed message: lateness is measured from it.
    sql: `ALTER TABLE ledger_sends ADD COLUMN due_at REAL;`
  },
  {
    version: 6,
    name: 'ordered messages',
    // Each ordered message's sharding key and sequence number: the order checker reads them back.
    sql: `ALTER TABLE ledger_sends ADD COLUMN order_key TEXT;
          ALTER TABLE ledger_sends ADD COLUMN order_seq INTEGER;`
  },
  {
    version: 7,
    name: 'transactional messages',
    // What each transaction's local transaction decided and how the broker learned it: the
    // transactions checker compares them with what consumers received.
    sql: `ALTER TABLE ledger_sends ADD COLUMN tx_decision TEXT;
          ALTER TABLE ledger_sends ADD COLUMN tx_end TEXT;`
  }
]
