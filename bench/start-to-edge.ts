// Start → producer-1's edge on the canvas, as an SRE sees it: the app (browser shell, the same
// renderer and engine as Electron) on a fresh data folder, Start clicked on the default two-room
// topology, then the live edge "producer-1 uses broker broker-1" polled for in the page; beside it,
// when the app's own ledger recorded the first acknowledged send, so the canvas's delay behind the
// traffic is a difference of two clocks on one machine (epoch ms both).
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { expect } from '@playwright/test'
import { launchShell } from '../e2e/support/shell'
import { LiveRunPage } from '../e2e/pages/live-run'

export interface StartToEdge {
  /** Start clicked → producer-1's edge to broker-1 drawn. */
  edgeMs: number
  /** Start clicked → the first acknowledged send in the app's ledger (any producer). */
  firstAckMs: number
}

const BUDGET_MS = 180_000

/** One Start → edge on a fresh app; then Stop and close (nothing left running). */
export async function startToEdge(): Promise<StartToEdge> {
  const shell = await launchShell()
  try {
    const live = new LiveRunPage(shell.page)
    await expect(live.tool('Start')).toBeEnabled({ timeout: 60_000 })
    const t0 = Date.now()
    await live.tool('Start').click()
    await live.edge('producer-1', 'broker-1').waitFor({ state: 'attached', timeout: BUDGET_MS })
    const edgeAt = Date.now()
    const db = new Database(join(shell.dataDir, 'drstudio.db'), { readonly: true })
    let ackAt: number | null = null
    try {
      const first = db.prepare(
        `SELECT MIN(ended_at) AS t FROM ledger_sends
          WHERE status = 'acked' AND run_id = (SELECT MAX(id) FROM runs)`
      )
      const deadline = Date.now() + BUDGET_MS
      while (ackAt === null && Date.now() < deadline) {
        ackAt = (first.get() as { t: number | null }).t
        if (ackAt === null) await new Promise((r) => setTimeout(r, 100))
      }
    } finally {
      db.close()
    }
    if (ackAt === null) throw new Error('no acknowledged send in the app’s ledger within 180 s')
    await live.tool('Stop').click()
    await expect(live.tool('Start')).toBeEnabled({ timeout: BUDGET_MS })
    return { edgeMs: edgeAt - t0, firstAckMs: Math.round(ackAt - t0) }
  } finally {
    await shell.close()
  }
}
