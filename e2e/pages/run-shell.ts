import type { Locator, Page, TestInfo } from '@playwright/test'
import { expect } from '@playwright/test'
import { re } from './designer'

/** One read of the page inside a polling wait: short enough to poll, long enough under load. */
const READ_MS = 10_000

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
   * Presses Start, waits until every one of `nodes` is up, then until the status bar shows the
   * live run in its workload phase, and notes the run id (the Timeline is left open).
   */
  protected async startAndReadRunId(
    nodes: readonly string[],
    budgets: { bootMs: number; workloadMs: number }
  ): Promise<void> {
    await expect(this.tool('Start')).toBeEnabled()
    await this.tool('Start').click()
    // One role query per poll for all of them: with the JVMs at load 20, each query over the
    // canvas took 1-3 s, and a loop over 15 nodes noticed the last one 20 s late.
    const ids = nodes.map(re).join('|')
    const up = this.canvas.getByRole('group', {
      // "<kind> <id>[ (<role>)] in <room>, state up…" (nodeAriaLabel), each id exactly once.
      name: new RegExp(`^[a-z ]+ (?:${ids})(?: \\([^)]*\\))? in \\S+, state up\\b`)
    })
    await expect(up, `every one of ${nodes.join(', ')} up`).toHaveCount(nodes.length, {
      timeout: budgets.bootMs
    })
    await this.showTimeline(true)
    // The status bar names the live run and its phase (the Timeline's phase row may have scrolled
    // past its cap by then, when failed sends flood a loaded machine). Each read may wait a few
    // seconds: with the JVMs at load 20 on 2 cores the page answers slowly, not wrongly.
    const summary = this.page.getByRole('status', { name: /^Run \d+: .*, phase workload$/ })
    await expect(summary).toBeVisible({ timeout: budgets.workloadMs })
    const label = (await summary.getAttribute('aria-label', { timeout: READ_MS })) ?? ''
    this.runId = Number(/^Run (\d+):/.exec(label)?.[1])
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
