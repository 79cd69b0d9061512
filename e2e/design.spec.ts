import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import type { Download, TestInfo } from '@playwright/test'
import { expect, test } from './fixtures'
import { freshWindow } from './support/shell'
import type { PaletteKind } from './pages/designer'
import { DesignerPage, re } from './pages/designer'

// Issue: design a two-room topology from an empty canvas, see a validation problem, fix it, save,
// reopen, and find it identical. The three tests share one app window and run in order.
test.describe.configure({ mode: 'serial' })

const ROOMS = ['room1', 'room2'] as const
/** What each room gets from the palette, in order, and the node it produces (`n` = room number). */
const MEMBERS: { add: PaletteKind; kind: string; id: (n: number) => string }[] = [
  { add: 'management node', kind: 'management node', id: (n) => `mgmt-${n}` },
  { add: 'name server', kind: 'name server', id: (n) => `ns-${n}` },
  { add: 'broker (master)', kind: 'broker', id: (n) => `broker-${n}` },
  { add: 'producer', kind: 'producer', id: (n) => `producer-${n}` },
  { add: 'consumer', kind: 'consumer', id: (n) => `consumer-${n}` }
]
const NAME = 'two-rooms'
const FILE = `${NAME}.json`
const COLLISION_PATH = '$.rooms[1].nameServers[0].port'

async function keep(download: Download, testInfo: TestInfo, name: string) {
  const path = testInfo.outputPath(name)
  await download.saveAs(path)
  return { path, text: readFileSync(path, 'utf8') }
}

/** Every node is listed in its room and drawn inside it, and the rooms do not overlap. */
async function expectEveryNodeInItsRoom(d: DesignerPage) {
  await expect(d.rooms()).toHaveCount(ROOMS.length)
  for (const [i, room] of ROOMS.entries()) {
    await expect(d.room(room, MEMBERS.length)).toBeVisible()
    for (const m of MEMBERS) {
      const node = d.node(m.kind, m.id(i + 1), room, 0)
      await expect(node).toBeVisible()
      await expect.poll(() => d.contains(d.room(room), node), { message: m.id(i + 1) }).toBe(true)
    }
  }
  await expect
    .poll(() => d.leftOf(d.room('room1'), d.room('room2')), { message: 'room1 overlaps room2' })
    .toBe(true)
}

test.afterAll(async ({ shell }) => {
  await freshWindow(shell.page)
})

test('builds a two-room topology from an empty canvas', async ({ page }, testInfo) => {
  const d = new DesignerPage(page)

  await test.step('New asks before discarding unsaved changes', async () => {
    // Make sure there is something unsaved, whatever the window showed before.
    await d.addRoom()
    await expect(d.title).toHaveAccessibleName(/unsaved changes$/)
    const before = await d.rooms().count()
    await d.tool('New').click()
    await expect(d.discardDialog).toBeVisible()
    await d.discardDialog.getByRole('button', { name: 'Cancel' }).click()
    await expect(d.discardDialog).toBeHidden()
    await expect(d.rooms()).toHaveCount(before)

    await d.tool('New').click()
    await d.discardDialog.getByRole('button', { name: 'Discard changes' }).click()
    await expect(d.discardDialog).toBeHidden()
    await expect(d.rooms()).toHaveCount(0)
    await expect(d.title).toHaveAccessibleName('DR Studio: untitled.json')
    await expect(d.tool('Undo')).toBeDisabled()
  })

  await test.step('adds two rooms', async () => {
    await d.canvas.getByRole('button', { name: 'Add your first room' }).click()
    await expect(d.room('room1', 0)).toBeVisible()
    await expect(d.canvas.getByRole('button', { name: 'Add your first room' })).toBeHidden()
    await d.addRoom()
    await expect(d.room('room2', 0)).toBeVisible()
    await expect(d.title).toHaveAccessibleName('DR Studio: untitled.json unsaved changes')
  })

  await test.step('fills each room from the palette', async () => {
    for (const [i, room] of ROOMS.entries()) {
      for (const [k, m] of MEMBERS.entries()) {
        await d.addNode(room, m.add)
        await expect(d.node(m.kind, m.id(i + 1), room)).toBeVisible()
        await expect(d.room(room, k + 1)).toBeVisible()
      }
    }
    await expectEveryNodeInItsRoom(d)
    await expect(d.noProblems).toBeVisible()
  })

  await test.step('sets topic and group of the second room’s clients', async () => {
    for (const kind of ['producer', 'consumer']) {
      await d.node(kind, `${kind}-2`, 'room2').click()
      await expect(d.propertiesOf(`${kind} ${kind}-2`)).toBeVisible()
      await d.setField('Topic', 'payments')
      await d.setField('Group', `payments-${kind}`)
      await expect(d.properties.getByRole('textbox', { name: 'Group' })).toHaveValue(
        `payments-${kind}`
      )
    }
    await expect(d.node('producer', 'producer-2', 'room2')).toContainText('payments')
    await expect(d.node('consumer', 'consumer-2', 'room2')).toContainText('payments-consumer')
  })

  await test.step('names the topology', async () => {
    // Escape on the canvas clears the selection; the panel then edits the topology itself.
    await d.node('consumer', 'consumer-2', 'room2').press('Escape')
    await expect(d.propertiesOf('Topology')).toBeVisible()
    await d.setField('Name', NAME)
    await expect(d.properties.getByRole('textbox', { name: 'Name' })).toHaveValue(NAME)
  })

  const shot = testInfo.outputPath('designed.png')
  await page.screenshot({ path: shot })
  await testInfo.attach('designed topology', { path: shot, contentType: 'image/png' })
})

test('shows a port collision in Problems, selects its node, fixes it, undoes and redoes', async ({
  page,
  shell
}, testInfo) => {
  const d = new DesignerPage(page)
  const port = () => d.properties.getByRole('textbox', { name: 'Port', exact: true })

  await test.step('gives both name servers port 9876', async () => {
    for (const [i, room] of ROOMS.entries()) {
      await d.node('name server', `ns-${i + 1}`, room).click()
      await expect(d.propertiesOf(`name server ns-${i + 1}`)).toBeVisible()
      await d.setField('Port', '9876')
      await expect(port()).toHaveValue('9876')
    }
  })

  const problem = d.problem(new RegExp(re(COLLISION_PATH)))
  await test.step('the Problems list names the collision and its JSON path', async () => {
    await expect(d.problems.getByRole('button', { name: 'Problems 1' })).toBeVisible()
    await expect(problem).toHaveCount(1)
    await expect(problem).toContainText(/"ns-2" needs [\w.]+:9876, already used by "ns-1"/)
    await expect(problem).toContainText(COLLISION_PATH)
    await expect(d.node('name server', 'ns-2', 'room2', 1)).toBeVisible()
    await expect(d.node('name server', 'ns-1', 'room1', 0)).toBeVisible()
  })

  await test.step('clicking the problem selects the offending node', async () => {
    await d.node('broker', 'broker-1', 'room1').click()
    await expect(d.propertiesOf('broker broker-1')).toBeVisible()
    await problem.click()
    await expect(d.propertiesOf('name server ns-2')).toBeVisible()
    await expect(d.node('name server', 'ns-2', 'room2')).toHaveClass(/\bselected\b/)
    await expect(d.node('broker', 'broker-1', 'room1')).not.toHaveClass(/\bselected\b/)
    await expect(port()).toHaveValue('9876')
    await expect(port()).toHaveAttribute('aria-invalid', 'true')
  })

  const shot = testInfo.outputPath('problem.png')
  await page.screenshot({ path: shot })
  await testInfo.attach('port collision', { path: shot, contentType: 'image/png' })

  await test.step('fixes it in the properties panel', async () => {
    await d.setField('Port', '9877')
    await expect(d.noProblems).toBeVisible()
    await expect(d.node('name server', 'ns-2', 'room2', 0)).toBeVisible()
    await expect(port()).not.toHaveAttribute('aria-invalid')
  })

  await test.step('Undo brings the problem back, Ctrl+Shift+Z fixes it again', async () => {
    await d.tool('Undo').click()
    await expect(problem).toHaveCount(1)
    await expect(port()).toHaveValue('9876')
    await expect(d.tool('Redo')).toBeEnabled()
    // Focus is on the Undo button, not in a text field, so the shortcut reaches the editor.
    await page.keyboard.press('Control+Shift+Z')
    await expect(problem).toHaveCount(0)
    await expect(d.noProblems).toBeVisible()
    await expect(port()).toHaveValue('9877')
    await expect(d.tool('Redo')).toBeDisabled()
  })

  if (shell.kind === 'browser') {
    await test.step('reloading with unsaved changes asks first', async () => {
      const dialog = page.waitForEvent('dialog')
      // Not page.reload(): it would wait for a navigation the dismissed dialog cancels.
      await page.evaluate('setTimeout(() => location.reload(), 0)')
      const asked = await dialog
      expect(asked.type()).toBe('beforeunload')
      await asked.dismiss()
      await expect(d.title).toHaveAccessibleName('DR Studio: untitled.json unsaved changes')
      await expectEveryNodeInItsRoom(d)
    })
  }
})

test('saves, reopens, and finds the document identical', async ({ page, shell }, testInfo) => {
  test.skip(
    shell.kind === 'electron',
    'Save and Open show native file dialogs under Electron, which Playwright cannot drive'
  )
  const d = new DesignerPage(page)

  const file =
    await test.step('Save downloads the topology and clears the dirty marker', async () => {
      await expect(d.title).toHaveAccessibleName(/unsaved changes$/)
      const download = await d.download('Save')
      expect(download.suggestedFilename()).toBe(FILE)
      await expect(d.title).toHaveAccessibleName(`DR Studio: ${FILE}`)
      return keep(download, testInfo, FILE)
    })

  await test.step('the saved file is what was designed', async () => {
    const doc = JSON.parse(file.text) as {
      name: string
      rooms: { id: string; nameServers: { id: string; port?: number }[] }[]
    }
    expect(doc.name).toBe(NAME)
    expect(doc.rooms.map((r) => r.id)).toEqual([...ROOMS])
    expect(doc.rooms.map((r) => r.nameServers[0]?.port)).toEqual([9876, 9877])
  })

  await test.step('`drstudio validate` accepts it', async () => {
    const res = spawnSync(process.execPath, ['bin/drstudio.js', 'validate', file.path], {
      encoding: 'utf8',
      timeout: 60_000
    })
    expect(res.status, `${res.stdout}\n${res.stderr}`).toBe(0)
  })

  await test.step('New on a saved document does not ask', async () => {
    await d.tool('New').click()
    await expect(d.canvas.getByRole('button', { name: 'Add your first room' })).toBeVisible()
    await expect(d.discardDialog).toBeHidden()
    await expect(d.rooms()).toHaveCount(0)
  })

  await test.step('Open reads the file back, every node in its room, clean', async () => {
    await d.openFile(file.path)
    await expectEveryNodeInItsRoom(d)
    await expect(d.title).toHaveAccessibleName(`DR Studio: ${FILE}`)
    await expect(d.tool('Undo')).toBeDisabled()
    await expect(d.noProblems).toBeVisible()
    await expect(d.node('producer', 'producer-2', 'room2')).toContainText('payments')
  })

  await test.step('saving again writes the identical file', async () => {
    const again = await keep(await d.download('Save'), testInfo, `resaved-${FILE}`)
    expect(again.text).toBe(file.text)
    await expect(d.title).toHaveAccessibleName(`DR Studio: ${FILE}`)
  })

  const shot = testInfo.outputPath('reopened.png')
  await page.screenshot({ path: shot })
  await testInfo.attach('reopened topology', { path: shot, contentType: 'image/png' })
})
