import type { Locator, Page } from '@playwright/test'
import { expect, test } from '@playwright/test'
import { re } from './designer'
import type { LiveRunPage } from './live-run'

/** Budgets (polled, never slept). */
const APPLY_MS = 30_000 // a menu choice → the engine's network status on the canvas
const CUT_SEEN_MS = 60_000 // a cut → the management node stops listing what it cannot reach

/**
 * The rooms' networks on the canvas: links between rooms (named "Network link a ~ b: …"), the
 * network menus of rooms and links, and the status bar's network item. Roles and names only.
 */
export class NetworkCanvas {
  readonly page: Page

  constructor(readonly live: LiveRunPage) {
    this.page = live.page
  }

  /** A room; its accessible name is "room <id> (<name>), <n> nodes". */
  room(id: string): Locator {
    return this.live.canvas.getByRole('group', { name: new RegExp(`^room ${re(id)}\\b`) })
  }

  /** The link between two rooms; its name says what each direction does now. */
  link(a: string, b: string): Locator {
    return this.live.canvas.getByRole('button', {
      name: new RegExp(`^Network link ${re(a)} ~ ${re(b)}: `)
    })
  }

  /** The status bar's line about the rooms' networks (own networks or loopback, and why). */
  get status(): Locator {
    return this.page.getByRole('status', { name: /^Network: / })
  }

  menu(name: string): Locator {
    return this.page.getByRole('menu', { name, exact: true })
  }

  /** Right-clicks a room's header (the rest of a room is covered by its nodes) and returns its menu. */
  async openRoomMenu(id: string): Promise<Locator> {
    await this.room(id).click({ button: 'right', position: { x: 140, y: 14 } })
    const menu = this.menu(`Network actions for ${id}`)
    await expect(menu).toBeVisible()
    return menu
  }

  /** Right-clicks the link's caption and returns the link's menu. */
  async openLinkMenu(a: string, b: string): Promise<Locator> {
    await this.link(a, b).click({ button: 'right' })
    const menu = this.menu(`Network actions for ${a} ~ ${b}`)
    await expect(menu).toBeVisible()
    return menu
  }

  /** Chooses an item by its exact name; the menu closes. */
  async choose(menu: Locator, item: string): Promise<void> {
    const entry = menu.getByRole('menuitem', { name: item, exact: true })
    await expect(entry).not.toHaveAttribute('aria-disabled', 'true')
    await entry.click()
    await expect(menu).toBeHidden()
  }

  /** Chooses a dialog item (Slow…, Cut…) and returns the dialog it opens. */
  async openDialog(menu: Locator, item: string): Promise<Locator> {
    await this.choose(menu, item)
    const dialog = this.page.getByRole('dialog')
    await expect(dialog).toBeVisible()
    return dialog
  }

  /** Waits until the link's name says `what` (e.g. "both ways cut (drop)"). */
  async expectLink(a: string, b: string, what: string | RegExp): Promise<void> {
    const tail = typeof what === 'string' ? re(what) : what.source
    await expect(this.link(a, b)).toHaveAccessibleName(
      new RegExp(`^Network link ${re(a)} ~ ${re(b)}: ${tail}`),
      { timeout: APPLY_MS }
    )
  }

  /**
   * Waits until `client`'s newest name-server list (Timeline) lists exactly `ids` as available:
   * how a client sees that its management node can no longer reach the other rooms.
   */
  async expectNameServerList(client: string, ids: string[]): Promise<void> {
    await test.step(`${client}'s management node lists only ${ids.join(', ')}`, async () => {
      await this.live.showTimeline(true)
      const rows = this.live.liveEvent('namesrv-list', client)
      await expect
        .poll(async () => (await rows.last().textContent({ timeout: 1000 }))?.split(': ').pop(), {
          message: `newest name-server list of ${client}`,
          timeout: CUT_SEEN_MS
        })
        .toBe(ids.join(', '))
      await this.live.showTimeline(false)
    })
  }
}
