import type { Locator, TestInfo } from '@playwright/test'
import { expect, test } from '@playwright/test'
import { re } from './designer'
import { RunShellPage } from './run-shell'

/**
 * e2e/support/one-group-controller.json running in the sandbox: a controller per room (embedded
 * in its name server) and broker-a with a replica in every room; `<kind>-<n>` lives in `room<n>`.
 */
export const CONTROLLER_TOPOLOGY = 'one-group-controller.json'
export const CONTROLLER_NODES = [1, 2, 3].flatMap((n) => [
  `mgmt-${n}`,
  `ns-${n}`,
  `broker-a-${n}`,
  `producer-${n}`,
  `consumer-${n}`
])

/**
 * Poll budgets on a loaded 2-core machine (6 JVMs); none of them is slept. "up" is the sandbox's
 * own readiness: a replica is up once its group's master acknowledged a write with every replica
 * in the SyncStateSet, so the workload wait no longer pays for the election.
 */
const BOOT_MS = 240_000 // Start → every JVM up, broker-a ready, every client routed
const WORKLOAD_MS = 90_000 // every node up → consumers settled and producers warmed up
const SWITCH_MS = 60_000 // a kill → the new master's badge and the client's new edge
const STOP_MS = 120_000 // Stop → drained, reported, Start enabled again

/** The whole flow: boot, settle, kill, switch, drain and report. */
export const CONTROLLER_FLOW_TIMEOUT_MS = 540_000

const roomOf = (id: string): string => `room${id.slice(id.lastIndexOf('-') + 1)}`

/** The live controller-mode canvas: node badges, master badges, client edges, actions, Runs. */
export class ControllerRunPage extends RunShellPage {
  /** The controller-mode badge of a replica that is its group's master, with its epoch. */
  master(id: string, group: string): Locator {
    return this.canvas.getByRole('status', {
      name: new RegExp(`^${re(id)} is master of ${re(group)}, epoch \\d+`)
    })
  }

  /** Any replica's master badge of a group (exactly one while there is no split brain). */
  mastersOf(group: string): Locator {
    return this.canvas.getByRole('status', {
      name: new RegExp(` is master of ${re(group)}, epoch`)
    })
  }

  edge(client: string, target: string): Locator {
    const [from, to] = [roomOf(client), roomOf(target)]
    const where = from === to ? `same room (${to})` : `cross-room (${from} → ${to})`
    return this.canvas.getByRole('img', { name: `${client} uses broker ${target}, ${where}` })
  }

  /**
   * Start, every node up (broker-a's replicas only once the sandbox found the group ready), the
   * workload running (noting the run id the Timeline shows).
   */
  async start(): Promise<void> {
    await test.step('start the sandbox: every node up, broker-a ready, producers sending', async () => {
      await this.startAndReadRunId(CONTROLLER_NODES, { bootMs: BOOT_MS, workloadMs: WORKLOAD_MS })
      await this.showTimeline(false)
    })
  }

  /** A replica's second line once up: how long its group took to get ready after its JVM. */
  readyTime(id: string): Locator {
    return this.node(id).getByText(/\bready in \d+\.\d s\b/)
  }

  async expectMaster(id: string, group: string, timeout = SWITCH_MS): Promise<void> {
    await expect(this.master(id, group)).toBeVisible({ timeout })
    await expect(this.mastersOf(group)).toHaveCount(1)
  }

  async kill(id: string): Promise<void> {
    await test.step(`kill ${id} from its Actions menu`, async () => {
      await this.node(id)
        .getByRole('button', { name: `Actions for ${id}` })
        .click()
      const menu = this.page.getByRole('menu', { name: `Actions for ${id}` })
      await menu.getByRole('menuitem', { name: /^Kill\b/ }).click()
      await expect(menu).toBeHidden()
      await expect(this.node(id)).toHaveAccessibleName(/, state (killed|down)\b/, {
        timeout: 30_000
      })
    })
  }

  /** Stop, then this run's scorecard in Runs: passed and nothing lost. */
  async stopAndExpectNothingLost(testInfo: TestInfo): Promise<void> {
    await test.step('stop: drained and reported', async () => {
      await this.tool('Stop').click()
      await expect(this.tool('Start')).toBeEnabled({ timeout: STOP_MS })
    })
    await test.step(`run ${this.runId} in Runs lost no message`, async () => {
      await this.tool('Runs').click()
      const open = this.runs.getByRole('button', { name: `Open run ${this.runId}`, exact: true })
      await expect(open).toBeVisible({ timeout: 30_000 })
      await open.click()
      const scorecard = this.runs.getByRole('region', { name: 'Scorecard' })
      await expect(scorecard.getByText('0 lost', { exact: true })).toBeAttached({ timeout: 30_000 })
      await expect(scorecard.getByLabel('Verdict: passed')).toBeVisible()
      const shot = testInfo.outputPath('run-scorecard.png')
      await this.page.screenshot({ path: shot })
      await testInfo.attach('run scorecard', { path: shot, contentType: 'image/png' })
      await this.runs.getByRole('button', { name: 'Close', exact: true }).click()
      await expect(this.runs).toBeHidden()
    })
  }
}
