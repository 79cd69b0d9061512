import type { Locator, TestInfo } from '@playwright/test'
import { expect, test } from '@playwright/test'
import { re } from './designer'
import { attachShot, RunShellPage } from './run-shell'

/** Every node of the default two-room topology; `<kind>-<n>` lives in `room<n>`. */
export const TWO_ROOMS_NODES = [
  'mgmt-1',
  'ns-1',
  'broker-1',
  'producer-1',
  'consumer-1',
  'mgmt-2',
  'ns-2',
  'broker-2',
  'producer-2',
  'consumer-2'
] as const
export type NodeId = (typeof TWO_ROOMS_NODES)[number]
type ClientId = Extract<NodeId, `producer-${string}` | `consumer-${string}`>
type TargetId = Extract<NodeId, `ns-${string}` | `broker-${string}`>

/** Items of a node's Actions menu (its context menu). */
export type NodeAction = 'Kill' | 'Pause' | 'Resume' | 'Restart'

/**
 * Budgets for a loaded 2-core machine (other JVMs may run next to ours). They bound waits that
 * poll; none of them is slept.
 */
const BOOT_MS = 180_000 // Start → every JVM up, registered, and every client routed
const WORKLOAD_MS = 90_000 // every node up → consumers settled and producers warmed up
const REROUTE_MS = 90_000 // a fault → the client's new edge on the canvas
const STATE_MS = 30_000 // an action → the node's new badge
const STOP_MS = 120_000 // Stop → drained, reported, Start enabled again
const METRICS_MS = 30_000 // a change in traffic → the next live-metrics snapshots on the canvas

/** A whole flow: boot, settle, fault, reroute, drain and report. */
export const FLOW_TIMEOUT_MS = 420_000

function roomOf(id: NodeId): string {
  return `room${id.slice(id.lastIndexOf('-') + 1)}`
}

/**
 * The default topology running in the sandbox: Start and Stop, node badges, the live client edges,
 * node actions, the live Timeline and the run's scorecard in Runs. Roles and accessible names only.
 */
export class LiveRunPage extends RunShellPage {
  /** A component on the canvas; its accessible name ends with ", state <state>". */
  override node(id: NodeId): Locator {
    return super.node(id)
  }

  /** The live edge from a client to the name server or broker it uses now. */
  edge(client: ClientId, target: TargetId): Locator {
    const link = target.startsWith('ns-') ? 'name server' : 'broker'
    const [from, to] = [roomOf(client), roomOf(target)]
    const where = from === to ? `same room (${to})` : `cross-room (${from} → ${to})`
    return this.canvas.getByRole('img', { name: `${client} uses ${link} ${target}, ${where}` })
  }

  /** Every live edge of a client to one kind of target (`ns` or `broker`). */
  edgesOf(client: ClientId, link: 'ns' | 'broker'): Locator {
    const word = link === 'ns' ? 'name server' : 'broker'
    return this.canvas.getByRole('img', { name: new RegExp(`^${re(client)} uses ${word} `) })
  }

  /** A node's live figures: a client's rate, p99 and failures, or a broker's TPS. */
  figures(id: NodeId): Locator {
    return this.node(id).getByRole('img', { name: new RegExp(`^${re(id)} live: `) })
  }

  /** A broker's stored messages per second as its node shows it now. */
  async tps(id: Extract<NodeId, `broker-${string}`>): Promise<number> {
    const name = (await this.figures(id).getAttribute('aria-label', { timeout: METRICS_MS })) ?? ''
    const m = /live: ([\d.]+) TPS/.exec(name)
    expect(m, `TPS of ${id} in "${name}"`).not.toBeNull()
    return Number(m![1])
  }

  /** A client's sends (or deliveries) per second as its node shows it now. */
  async rate(id: ClientId): Promise<number> {
    const name = (await this.figures(id).getAttribute('aria-label', { timeout: METRICS_MS })) ?? ''
    const m = /live: ([\d.]+)\/s/.exec(name)
    expect(m, `rate of ${id} in "${name}"`).not.toBeNull()
    return Number(m![1])
  }

  /** Polls a broker's TPS until `check` holds (snapshots arrive every ~500 ms). */
  async expectTps(
    id: Extract<NodeId, `broker-${string}`>,
    check: (tps: number) => boolean,
    what: string
  ): Promise<void> {
    await expect
      .poll(async () => check(await this.tps(id)), {
        message: `${id} ${what}`,
        timeout: METRICS_MS
      })
      .toBe(true)
  }

  async expectState(id: NodeId, state: string | RegExp, timeout = STATE_MS): Promise<void> {
    const s = typeof state === 'string' ? re(state) : state.source
    await expect(this.node(id)).toHaveAccessibleName(new RegExp(`, state (${s})\\b`), { timeout })
  }

  /** Expects `client` to use `target` and no other node of that kind (name server or broker). */
  async expectRoute(client: ClientId, target: TargetId, timeout = REROUTE_MS): Promise<void> {
    await expect(this.edge(client, target)).toBeAttached({ timeout })
    await expect(this.edgesOf(client, target.startsWith('ns-') ? 'ns' : 'broker')).toHaveCount(1)
  }

  /**
   * Presses Start and waits until every node is up (clients are up once they route) and the
   * Timeline says the producers send (the workload phase: consumers settled, producers warmed up),
   * so that a fault hits live traffic. Notes the run id the Timeline shows.
   */
  async start(): Promise<void> {
    await test.step('start the sandbox and wait until every node is up and producers send', async () => {
      await this.startAndReadRunId(TWO_ROOMS_NODES, { bootMs: BOOT_MS, workloadMs: WORKLOAD_MS })
      expect(this.runId, 'run id shown by the Timeline').toBeGreaterThan(0)
      await this.showTimeline(false)
    })
  }

  /** Every client uses its own room's name server, and producers their own room's broker. */
  async expectOwnRooms(): Promise<void> {
    await test.step('clients use their own room', async () => {
      for (const n of [1, 2] as const) {
        await this.expectRoute(`producer-${n}`, `broker-${n}`)
        await this.expectRoute(`producer-${n}`, `ns-${n}`)
        await this.expectRoute(`consumer-${n}`, `ns-${n}`)
      }
    })
  }

  /** Start, all up, every client in its own room. */
  async startInOwnRooms(): Promise<void> {
    await this.start()
    await this.expectOwnRooms()
  }

  /** Chooses an action from the node's Actions menu (its ⋮ button, same as its context menu). */
  async act(id: NodeId, action: NodeAction): Promise<void> {
    await this.node(id)
      .getByRole('button', { name: `Actions for ${id}` })
      .click()
    const menu = this.page.getByRole('menu', { name: `Actions for ${id}` })
    await menu.getByRole('menuitem', { name: new RegExp(`^${action}\\b`) }).click()
    await expect(menu).toBeHidden()
  }

  /** Kills a node from its Actions menu and waits for its badge to say so. */
  async kill(id: NodeId): Promise<void> {
    await test.step(`kill ${id} from its Actions menu`, async () => {
      await this.act(id, 'Kill')
      await this.expectState(id, /killed|down/)
    })
  }

  /**
   * Opens the Timeline, waits for one row per entry of `rows` (a row mentions every text of its
   * entry), attaches a screenshot of it and collapses it again.
   */
  async expectLiveEvents(
    testInfo: TestInfo,
    title: string,
    rows: string[][],
    timeout = REROUTE_MS
  ): Promise<void> {
    await this.showTimeline(true)
    for (const texts of rows) {
      await expect(this.liveEvent(...texts).first()).toBeVisible({ timeout })
    }
    await attachShot(this.timeline, testInfo, title)
    await this.showTimeline(false)
  }

  /**
   * Sets what the topology's producers send in live runs (Properties ▸ Topology ▸ Messages). The
   * change is one edit of the document: `undoMessages` takes it back, leaving it as it was saved.
   */
  async useMessages(kind: 'normal' | 'ordered' | 'delayed'): Promise<void> {
    await test.step(`the topology's live runs send ${kind} messages`, async () => {
      const properties = this.page.getByRole('complementary', { name: 'Properties' })
      await expect(properties.getByRole('region', { name: 'Properties: Topology' })).toBeVisible()
      await properties.getByRole('combobox', { name: 'Messages (live runs)' }).selectOption(kind)
      await expect(
        properties.getByRole('combobox', { name: 'Order policy (remoting, java-dr)' })
      ).toHaveCount(kind === 'ordered' ? 1 : 0)
    })
  }

  /** Undoes `useMessages`, so the next flow finds the document unchanged. */
  async undoMessages(): Promise<void> {
    await this.toolbar.getByRole('button', { name: 'Undo', exact: true }).click()
    const messages = this.page
      .getByRole('complementary', { name: 'Properties' })
      .getByRole('combobox', { name: 'Messages (live runs)' })
    await expect(messages).toHaveValue('normal')
  }

  /** Presses Stop and waits until the run is drained and reported (Start is enabled again). */
  async stop(): Promise<void> {
    await test.step('stop: the run is drained and reported', async () => {
      await this.tool('Stop').click()
      await expect(this.tool('Start')).toBeEnabled({ timeout: STOP_MS })
    })
  }

  /**
   * Opens this run in Runs and checks its scorecard: passed, nothing lost in total or by any
   * client. `more` may check the scorecard further before it is attached and the dialog closed.
   */
  async expectRunLostNothing(
    testInfo: TestInfo,
    more?: (scorecard: Locator) => Promise<void>
  ): Promise<void> {
    await test.step(`run ${this.runId} in Runs lost no message`, async () => {
      expect(this.runId, 'the run was started by this page').not.toBeNull()
      await this.tool('Runs').click()
      await expect(this.runs).toBeVisible()
      const open = this.runs.getByRole('button', { name: `Open run ${this.runId}`, exact: true })
      await expect(open).toBeVisible({ timeout: 30_000 })
      await open.click()
      const scorecard = this.runs.getByRole('region', { name: 'Scorecard' })
      await expect(scorecard).toBeVisible({ timeout: 30_000 })
      await expect(scorecard.getByText(`run ${this.runId}`, { exact: true })).toBeVisible()
      await expect(scorecard.getByText('0 lost', { exact: true })).toBeAttached()
      await expect(scorecard.getByLabel('Verdict: passed')).toBeVisible()
      const clients = scorecard.getByRole('table', { name: 'Clients' })
      await expect(clients.getByRole('row')).toHaveCount(5) // header + 4 clients
      const headers = await clients.getByRole('columnheader').allTextContents()
      const col = headers.indexOf('Lost')
      expect(col, 'Lost column').toBeGreaterThanOrEqual(0)
      for (const row of await clients.getByRole('row').all()) {
        const cells = row.getByRole('cell')
        if ((await cells.count()) > 0) await expect(cells.nth(col)).toHaveText('0')
      }
      await more?.(scorecard)
      await attachShot(this.page, testInfo, 'run scorecard')
      // Leave the window as the next flow expects it: no dialog open.
      await this.runs.getByRole('button', { name: 'Close', exact: true }).click()
      await expect(this.runs).toBeHidden()
    })
  }

  /** Stop, then the run's scorecard in Runs: nothing lost. */
  async stopAndExpectNothingLost(
    testInfo: TestInfo,
    more?: (scorecard: Locator) => Promise<void>
  ): Promise<void> {
    await this.stop()
    await this.expectRunLostNothing(testInfo, more)
  }
}
