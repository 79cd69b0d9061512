import type { Locator, Page, TestInfo } from '@playwright/test'
import { expect, test } from '@playwright/test'
import { re } from './designer'

/**
 * three-rooms-controller running in the sandbox: a controller per room (embedded in its name
 * server) and broker-a / broker-b with a replica in every room; `<kind>-<n>` lives in `room<n>`.
 */
export const CONTROLLER_NODES = [1, 2, 3].flatMap((n) => [
  `mgmt-${n}`,
  `ns-${n}`,
  `broker-a-${n}`,
  `broker-b-${n}`,
  `producer-${n}`,
  `consumer-${n}`
])

/** Poll budgets on a loaded 2-core machine (9 JVMs); none of them is slept. */
const BOOT_MS = 240_000 // Start → every JVM up, masters elected, registered, every client routed
const WORKLOAD_MS = 90_000 // every node up → consumers settled and producers warmed up
const SWITCH_MS = 60_000 // a kill → the new master's badge and the client's new edge
const STOP_MS = 120_000 // Stop → drained, reported, Start enabled again

/** The whole flow: boot, settle, kill, switch, drain and report. */
export const CONTROLLER_FLOW_TIMEOUT_MS = 540_000

const roomOf = (id: string): string => `room${id.slice(id.lastIndexOf('-') + 1)}`

/** The live controller-mode canvas: node badges, master badges, client edges, actions, Runs. */
export class ControllerRunPage {
  readonly canvas: Locator
  readonly toolbar: Locator
  readonly timeline: Locator
  readonly runs: Locator
  runId: number | null = null

  constructor(readonly page: Page) {
    this.canvas = page.getByRole('region', { name: 'Topology canvas' })
    this.toolbar = page.getByRole('toolbar', { name: 'Main toolbar' })
    this.timeline = page.getByRole('region', { name: 'Timeline' })
    this.runs = page.getByRole('dialog', { name: 'Runs' })
  }

  tool(name: 'Start' | 'Stop' | 'Runs'): Locator {
    return this.toolbar.getByRole('button', { name, exact: true })
  }

  node(id: string): Locator {
    return this.canvas.getByRole('group', { name: new RegExp(`\\b${re(id)}\\b.* in room\\d`) })
  }

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

  liveEvent(...texts: string[]): Locator {
    let row = this.timeline.getByRole('list', { name: 'Live events' }).getByRole('listitem')
    for (const text of texts) row = row.filter({ hasText: text })
    return row
  }

  async showTimeline(open: boolean): Promise<void> {
    const toggle = this.timeline.getByRole('button', { name: /^Timeline\b/ })
    if ((await toggle.getAttribute('aria-expanded')) !== String(open)) await toggle.click()
    await expect(toggle).toHaveAttribute('aria-expanded', String(open))
  }

  /** Start, every node up, the workload running (noting the run id the Timeline shows). */
  async start(): Promise<void> {
    await test.step('start the sandbox: every node up, masters elected, producers sending', async () => {
      await expect(this.tool('Start')).toBeEnabled()
      await this.tool('Start').click()
      await expect(async () => {
        for (const id of CONTROLLER_NODES) {
          await expect(this.node(id)).toHaveAccessibleName(/, state up\b/, { timeout: 1000 })
        }
      }).toPass({ timeout: BOOT_MS })
      await this.showTimeline(true)
      const label = this.timeline.getByLabel(/^run \d+$/)
      const runOf = async () =>
        Number(/\d+/.exec((await label.getAttribute('aria-label', { timeout: 1000 })) ?? '')?.[0])
      await expect(async () => {
        const id = await runOf()
        await expect(this.liveEvent('phase workload')).toBeVisible({ timeout: 1000 })
        expect(await runOf()).toBe(id)
        this.runId = id
      }).toPass({ timeout: WORKLOAD_MS })
      await this.showTimeline(false)
    })
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

  async attachCanvas(testInfo: TestInfo, title: string): Promise<void> {
    const shot = testInfo.outputPath(`${title.replace(/\W+/g, '-')}.png`)
    await this.canvas.screenshot({ path: shot })
    await testInfo.attach(title, { path: shot, contentType: 'image/png' })
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
