import type { Locator, Page, TestInfo } from '@playwright/test'
import { expect } from '@playwright/test'
import { re } from './designer'

/**
 * What every running topology shares on screen: the toolbar's Start / Stop / Runs, node badges on
 * the canvas, the live Timeline and the Runs dialog. Topology-specific pages extend it.
 */
export class RunShellPage {
  readonly canvas: Locator
  readonly toolbar: Locator
  readonly timeline: Locator
  /** The Runs dialog. */
  readonly runs: Locator
  /** Id of the run this page started, read from the Timeline once the run is up. */
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

  /** A component on the canvas; its accessible name ends with ", state <state>". */
  node(id: string): Locator {
    return this.canvas.getByRole('group', { name: new RegExp(`\\b${re(id)}\\b.* in room\\d`) })
  }

  /** A row of the live Timeline's event list that mentions every given text. */
  liveEvent(...texts: string[]): Locator {
    let row = this.timeline.getByRole('list', { name: 'Live events' }).getByRole('listitem')
    for (const text of texts) row = row.filter({ hasText: text })
    return row
  }

  /** Opens the Timeline panel in the dock, or collapses it (it takes height from the canvas). */
  async showTimeline(open: boolean): Promise<void> {
    const toggle = this.timeline.getByRole('button', { name: /^Timeline\b/ })
    if ((await toggle.getAttribute('aria-expanded')) !== String(open)) await toggle.click()
    await expect(toggle).toHaveAttribute('aria-expanded', String(open))
  }

  /** Attaches a screenshot of the live canvas (the routes as they are now). */
  async attachCanvas(testInfo: TestInfo, title: string): Promise<void> {
    await attachShot(this.canvas, testInfo, title)
  }

  /**
   * Presses Start, waits until every one of `nodes` is up, then until the Timeline shows the
   * workload phase, and notes the run id (the Timeline is left open).
   */
  protected async startAndReadRunId(
    nodes: readonly string[],
    budgets: { bootMs: number; workloadMs: number }
  ): Promise<void> {
    await expect(this.tool('Start')).toBeEnabled()
    await this.tool('Start').click()
    await expect(async () => {
      for (const id of nodes) {
        await expect(this.node(id)).toHaveAccessibleName(/, state up\b/, { timeout: 1000 })
      }
    }).toPass({ timeout: budgets.bootMs })
    await this.showTimeline(true)
    // The Timeline follows the run its newest event belongs to; read its run id on both sides of
    // the workload row so that the id and the row come from the same run.
    const label = this.timeline.getByLabel(/^run \d+$/)
    const runOf = async () =>
      Number(/\d+/.exec((await label.getAttribute('aria-label', { timeout: 1000 })) ?? '')?.[0])
    await expect(async () => {
      const id = await runOf()
      await expect(this.liveEvent('phase workload')).toBeVisible({ timeout: 1000 })
      expect(await runOf()).toBe(id)
      this.runId = id
    }).toPass({ timeout: budgets.workloadMs })
  }
}

export async function attachShot(
  what: Locator | Page,
  testInfo: TestInfo,
  title: string
): Promise<void> {
  const shot = testInfo.outputPath(`${title.replace(/\W+/g, '-')}.png`)
  await what.screenshot({ path: shot })
  await testInfo.attach(title, { path: shot, contentType: 'image/png' })
}
