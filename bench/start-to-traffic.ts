// Start → first acknowledged send: what an SRE waits for after pressing Start on the default
// two-room topology, through the same engine the app runs (rooms as namespaces where possible).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Database } from 'better-sqlite3'
import { findAppPaths } from '../main/services/app-paths'
import { createEngine } from '../main/services/engine/create-engine'
import type { ServerTls } from '../main/services/sandbox/jvm'

export interface StartToTraffic {
  /** Start pressed → the sandbox reports every node ready. */
  nodesReadyMs: number
  /** Start pressed → the first acknowledged send of the topology's producers. */
  firstAckMs: number
  network: string
}

/**
 * One Start on a fresh data folder, until the first acknowledged send; then Stop. `serverTls`
 * overrides the sandbox's (the baseline: RocketMQ's default, permissive).
 */
export async function startToTraffic(serverTls?: ServerTls): Promise<StartToTraffic> {
  const paths = findAppPaths()
  const dataDir = mkdtempSync(join(tmpdir(), 'drstudio-bench-traffic-'))
  const engine = createEngine({
    shell: 'browser',
    paths,
    dataDir,
    ...(serverTls ? { sandbox: { serverTls } } : {})
  })
  const document = JSON.parse(
    readFileSync(join(paths.resourcesDir, 'topologies', 'two-rooms.json'), 'utf8')
  ) as unknown
  try {
    const t0 = performance.timeOrigin + performance.now()
    const status = await engine.handlers['sandbox:start']({ document })
    const nodesReadyMs = performance.timeOrigin + performance.now() - t0
    const db = (engine as unknown as { opts: { recorder: { db: Database } } }).opts.recorder.db
    const first = db.prepare(
      "SELECT MIN(ended_at) AS t FROM ledger_sends WHERE run_id = ? AND status = 'acked'"
    )
    const deadline = Date.now() + 120_000
    let t: number | null = null
    while (t === null && Date.now() < deadline) {
      t = (first.get(status.runId) as { t: number | null }).t
      if (t === null) await new Promise((r) => setTimeout(r, 50))
    }
    if (t === null) throw new Error('no acknowledged send within 120 s of Start')
    const network = (await engine.handlers['network:status']({})).mode
    await engine.handlers['sandbox:stop']({})
    return { nodesReadyMs, firstAckMs: t - t0, network }
  } finally {
    await engine.dispose()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
