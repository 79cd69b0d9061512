import type { Download, Locator, Page } from '@playwright/test'

/** Escapes text for use inside a RegExp. */
export function re(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

export type PaletteKind =
  'management node' | 'name server' | 'broker (master)' | 'proxy' | 'producer' | 'consumer'

/** The designer window, located by roles and accessible names only. */
export class DesignerPage {
  readonly toolbar: Locator
  readonly canvas: Locator
  readonly palette: Locator
  readonly properties: Locator
  readonly problems: Locator
  /** The document heading: file name, plus "unsaved changes" while dirty. */
  readonly title: Locator

  constructor(readonly page: Page) {
    this.toolbar = page.getByRole('toolbar', { name: 'Main toolbar' })
    this.canvas = page.getByRole('region', { name: 'Topology canvas' })
    this.palette = page.getByRole('complementary', { name: 'Palette' })
    this.properties = page.getByRole('complementary', { name: 'Properties' })
    this.problems = page.getByRole('region', { name: 'Problems' })
    this.title = page.getByRole('heading', { level: 1 })
  }

  get notifications(): Locator {
    return this.page.getByRole('status', { name: 'Notifications' })
  }

  /** Whether `inner` is drawn entirely inside `outer` (both on screen). */
  async contains(outer: Locator, inner: Locator): Promise<boolean> {
    const [o, i] = await Promise.all([outer.boundingBox(), inner.boundingBox()])
    if (!o || !i) return false
    return (
      i.x >= o.x && i.y >= o.y && i.x + i.width <= o.x + o.width && i.y + i.height <= o.y + o.height
    )
  }

  /** Whether `left` ends before `right` starts on screen (no overlap). */
  async leftOf(left: Locator, right: Locator): Promise<boolean> {
    const [l, r] = await Promise.all([left.boundingBox(), right.boundingBox()])
    return !!l && !!r && l.x + l.width < r.x
  }

  tool(name: string): Locator {
    return this.toolbar.getByRole('button', { name, exact: true })
  }

  get discardDialog(): Locator {
    return this.page.getByRole('alertdialog', { name: 'Discard unsaved changes?' })
  }

  /** A room group on the canvas; `members` pins the node count in its accessible name. */
  room(id: string, members?: number): Locator {
    const count = members === undefined ? '\\d+ nodes?' : `${members} nodes?`
    return this.canvas.getByRole('group', { name: new RegExp(`^room ${re(id)}\\b.*, ${count}$`) })
  }

  rooms(): Locator {
    return this.canvas.getByRole('group', { name: /^room room/ })
  }

  /** A component group on the canvas, e.g. `node('name server', 'ns-1', 'room1')`. */
  node(kind: string, id: string, room: string, problems?: number): Locator {
    const tail = problems === undefined ? '' : problems === 0 ? '$' : `, ${problems} problems?$`
    return this.canvas.getByRole('group', {
      name: new RegExp(`^${re(kind)} ${re(id)}( \\(\\w+\\))? in ${re(room)}, state \\w+${tail}`)
    })
  }

  /** The properties form shown for one item, e.g. `propertiesOf('name server ns-1')`. */
  propertiesOf(title: string): Locator {
    return this.properties.getByRole('region', { name: `Properties: ${title}` })
  }

  /** Types into a labelled field of the properties panel and commits it with Enter. */
  async setField(label: string, value: string): Promise<void> {
    const field = this.properties.getByRole('textbox', { name: label, exact: true })
    await field.fill(value)
    await field.press('Enter')
  }

  async addRoom(): Promise<void> {
    await this.palette.getByRole('button', { name: 'Add room' }).click()
  }

  async addNode(room: string, kind: PaletteKind): Promise<void> {
    await this.palette.getByRole('combobox', { name: 'Into room' }).selectOption(room)
    await this.palette.getByRole('button', { name: `Add ${kind}`, exact: true }).click()
  }

  /** The Problems panel's "all clear" line, with a count of 0. */
  get noProblems(): Locator {
    return this.problems.getByText('No problems: the topology passes')
  }

  problem(text: string | RegExp): Locator {
    return this.problems.getByRole('listitem').getByRole('button', { name: text })
  }

  /** Clicks Save (or Save As) and resolves with the browser download it produces. */
  async download(tool: 'Save' | 'Save As'): Promise<Download> {
    const [download] = await Promise.all([
      this.page.waitForEvent('download'),
      this.tool(tool).click()
    ])
    return download
  }

  /** Clicks Open and answers the file chooser (the hidden file input) with `path`. */
  async openFile(path: string): Promise<void> {
    const [chooser] = await Promise.all([
      this.page.waitForEvent('filechooser'),
      this.tool('Open').click()
    ])
    await chooser.setFiles(path)
  }
}
