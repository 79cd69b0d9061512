import type { Locator, Page } from '@playwright/test'
import { expect, test } from '@playwright/test'
import { re } from './designer'

const OPEN_MS = 30_000 // Replay pressed → the run's rows loaded and its first state on the canvas
const MOVE_MS = 5_000 // a seek → the canvas redrawn at the new playhead

/** Runs ▸ Replay: the replay bar under the canvas, by role and accessible name only. */
export class ReplayPage {
  readonly bar: Locator
  readonly canvas: Locator
  readonly slider: Locator
  readonly time: Locator

  constructor(
    readonly page: Page,
    readonly runId: number
  ) {
    this.bar = page.getByRole('region', { name: `Replay of run ${runId}` })
    this.canvas = page.getByRole('region', { name: 'Topology canvas' })
    this.slider = this.bar.getByRole('slider', { name: 'Replay position' })
    this.time = this.bar.getByRole('status', { name: 'Replay time' })
  }

  /** Opens Runs and presses the run's Replay button; waits for the replay bar. */
  async open(): Promise<void> {
    await test.step(`open run ${this.runId} in Runs ▸ Replay`, async () => {
      const toolbar = this.page.getByRole('toolbar', { name: 'Main toolbar' })
      await toolbar.getByRole('button', { name: 'Runs', exact: true }).click()
      const runs = this.page.getByRole('dialog', { name: 'Runs' })
      await runs.getByRole('button', { name: `Replay run ${this.runId}`, exact: true }).click()
      await expect(runs).toBeHidden()
      await expect(this.bar).toBeVisible({ timeout: OPEN_MS })
    })
  }

  /** Marks on the scrub bar (faults, failovers, network faults) matching a label. */
  mark(label: RegExp): Locator {
    return this.bar
      .getByRole('list', { name: 'Faults and failovers' })
      .getByRole('button', { name: new RegExp(`^Jump to ${label.source}`) })
  }

  /** Seconds since the run's first row where the playhead is (from the slider's value text). */
  async seconds(): Promise<number> {
    const text = (await this.slider.getAttribute('aria-valuetext')) ?? ''
    return Number(/^([\d.]+) s of/.exec(text)?.[1] ?? NaN)
  }

  /** Seconds since the run's first row at which a mark sits (from its accessible name). */
  async markSeconds(mark: Locator): Promise<number> {
    const name = (await mark.getAttribute('aria-label')) ?? ''
    const m = / at ([\d.]+) s$/.exec(name)
    expect(m, `time in the mark "${name}"`).not.toBeNull()
    return Number(m![1])
  }

  /** The edge the canvas draws from a client to a target at the playhead. */
  edge(client: string, target: string): Locator {
    const link = target.startsWith('ns-') ? 'name server' : 'broker'
    return this.canvas.getByRole('img', {
      name: new RegExp(`^${re(client)} uses ${link} ${re(target)}, `)
    })
  }

  node(id: string): Locator {
    return this.canvas.getByRole('group', { name: new RegExp(`\\b${re(id)}\\b.* in room\\d`) })
  }

  async expectState(id: string, state: RegExp): Promise<void> {
    await expect(this.node(id)).toHaveAccessibleName(new RegExp(`, state (${state.source})\\b`), {
      timeout: MOVE_MS
    })
  }

  /** Presses a key with focus on the slider (the replay's keys work from any control but fields). */
  async press(key: string): Promise<void> {
    await this.slider.focus()
    await this.page.keyboard.press(key)
  }

  async exit(): Promise<void> {
    await this.bar.getByRole('button', { name: 'Exit replay' }).click()
    await expect(this.bar).toBeHidden()
  }
}
