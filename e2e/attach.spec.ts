import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from './fixtures'
import { freshWindow } from './support/shell'
import { DesignerPage } from './pages/designer'
import {
  createTopicByHand,
  operatorScripts,
  startHandCluster,
  waitForRegistration,
  type HandCluster
} from '../test/integration/helpers/hand-cluster'
import {
  assertJars,
  makeRunDir,
  removeRunDir,
  runningJvmPids,
  stopAllJvms
} from '../test/integration/helpers/jvm'

// Issue 11: Connect to cluster… on a cluster the operator started by hand (two name servers and two
// brokers from the same jars, plain config files, a static namesrvAddr, ROCKETMQ_ZONE per room).
// broker-a gets the operator's own kill and start commands, run from its node menu (the start
// script brings it back). Then Start runs DR Studio's client against it, and the test (the
// operator) kills broker-a out of band: producer-room1's edge reroutes to broker-b and broker-a
// shows down. In that order the cluster boots once and broker-a is never started just for a test.
test.describe.configure({ mode: 'serial', timeout: 240_000 })

let root: string
let cluster: HandCluster
/** broker-a started again by the operator's start script: not a child of the test. */
let restartedPidFile: string | null = null

/** broker-a's process now: the one the operator's start script brought back, once it did. */
function brokerAPid(): number {
  return restartedPidFile ? Number(readFileSync(restartedPidFile, 'utf8')) : cluster.brokers[0].pid
}

test.beforeAll(async () => {
  test.setTimeout(200_000)
  assertJars()
  root = await makeRunDir('attach-e2e')
  cluster = await startHandCluster(root, { zones: true })
  await waitForRegistration(cluster)
  // The operator's own topic, on both rooms' brokers.
  await createTopicByHand(cluster, 'payments', ['broker-a', 'broker-b'])
})

test.afterAll(async ({ shell }) => {
  if (restartedPidFile) {
    try {
      process.kill(Number(readFileSync(restartedPidFile, 'utf8')), 'SIGKILL')
    } catch {
      // already gone
    }
  }
  await stopAllJvms()
  expect(runningJvmPids()).toEqual([])
  if (root) await removeRunDir(root)
  await freshWindow(shell.page)
})

test('Connect to cluster… from the empty start screen draws the discovered rooms', async ({
  page
}, testInfo) => {
  const d = new DesignerPage(page)
  const dialog = page.getByRole('dialog', { name: 'Connect to cluster' })

  await test.step('a new, empty topology offers Connect to a running cluster', async () => {
    await d.tool('New').click()
    if (await d.discardDialog.isVisible()) {
      await d.discardDialog.getByRole('button', { name: 'Discard changes' }).click()
    }
    await expect(d.rooms()).toHaveCount(0)
    await d.canvas.getByRole('button', { name: 'Connect to a running cluster…' }).click()
    await expect(dialog).toBeVisible()
  })

  await test.step('by zone alone, the name servers cannot be placed: the dialog says how to fix it', async () => {
    await dialog.getByLabel('Name servers', { exact: true }).fill(cluster.namesrvAddr)
    await dialog
      .getByLabel('Rooms', { exact: true })
      .selectOption({ label: 'By zone (ROCKETMQ_ZONE)' })
    await dialog.getByLabel('Room map', { exact: true }).fill('')
    await dialog.getByRole('button', { name: 'Connect' }).click()
    const problems = dialog.getByRole('region', { name: 'Discovery problems' })
    await expect(problems).toContainText('2 problems: nothing is guessed')
    for (const ns of cluster.nameServers) {
      await expect(problems).toContainText(`Fix: add "${ns.address}: <room>" to the Room map`)
    }
    await expect(dialog.getByRole('list', { name: 'Discovery progress' })).toContainText(
      'found 2 broker sets in 1 cluster(s)'
    )
    await expect(d.rooms()).toHaveCount(0)
    await testInfo.attach('dialog with the problems', {
      body: await dialog.screenshot(),
      contentType: 'image/png'
    })
  })

  await test.step('with the name servers in the Room map, the canvas shows both rooms', async () => {
    await dialog
      .getByLabel('Room map', { exact: true })
      .fill(`${cluster.nameServers[0].address}: room1\n${cluster.nameServers[1].address}: room2`)
    await dialog.getByRole('button', { name: 'Connect' }).click()
    await expect(dialog).toBeHidden()
    await expect(d.rooms()).toHaveCount(2)
    for (const [i, room] of (['room1', 'room2'] as const).entries()) {
      await expect(d.room(room, 2)).toBeVisible()
      const broker = d.node('broker', `broker-${'ab'[i]}`, room)
      await expect(broker).toBeVisible()
      await expect(broker.getByLabel('attached to an external endpoint')).toBeVisible()
      await expect(broker).toContainText(cluster.brokers[i]!.address)
      await expect(d.node('name server', `ns-${i + 1}`, room)).toContainText(
        cluster.nameServers[i]!.address
      )
    }
    await expect(d.title).toContainText('discovered-HandCluster')
    await testInfo.attach('canvas after connect', {
      body: await page.screenshot(),
      contentType: 'image/png'
    })
  })
})

test('the operator’s own commands from the node menu: Kill asks once, shows the command, runs it', async ({
  page,
  live,
  shell
}, testInfo) => {
  test.skip(shell.kind === 'electron', 'Open shows a native file dialog under Electron')
  test.setTimeout(300_000)
  const d = new DesignerPage(page)
  const node = (id: string) =>
    live.canvas.getByRole('group', { name: new RegExp(`\\b${id}\\b.* in room\\d`) })
  const edge = (client: string, target: string, where: string) =>
    live.canvas.getByRole('img', { name: `${client} uses broker ${target}, ${where}` })
  const menuOf = async (id: string) => {
    await node(id)
      .getByRole('button', { name: `Actions for ${id}` })
      .click()
    return page.getByRole('menu', { name: `Actions for ${id}` })
  }
  const scripts = operatorScripts(cluster.brokers[0])

  await test.step('the operator gives broker-a kill and start commands', async () => {
    const file = join(root, 'discovered.json')
    const map = join(root, 'rooms.json')
    writeFileSync(
      map,
      JSON.stringify({
        [cluster.nameServers[0].address]: 'room1',
        [cluster.nameServers[1].address]: 'room2'
      })
    )
    execFileSync(process.execPath, [
      'bin/drstudio.js',
      'discover',
      '--namesrv',
      cluster.namesrvAddr,
      '--rooms',
      'zone',
      '--rooms-map',
      map,
      '--topic',
      'payments',
      '--clients',
      '--out',
      file
    ])
    const topology = JSON.parse(readFileSync(file, 'utf8'))
    const broker = topology.rooms
      .flatMap((r: { brokers: { brokerName: string }[] }) => r.brokers)
      .find((b: { brokerName: string }) => b.brokerName === 'broker-a')
    broker.actions = { kill: `kill -KILL $(cat ${scripts.pidFile})`, start: `sh ${scripts.start}` }
    writeFileSync(file, JSON.stringify(topology, null, 2))
    await d.tool('New').click()
    if (await d.discardDialog.isVisible()) {
      await d.discardDialog.getByRole('button', { name: 'Discard changes' }).click()
    }
    await d.openFile(file)
    await expect(d.title).toContainText('discovered.json')
  })

  await test.step('Start: producer-room1 sends to broker-a again', async () => {
    await live.tool('Start').click()
    await expect(edge('producer-room1', 'broker-a', 'same room (room1)')).toBeAttached({
      timeout: 120_000
    })
  })

  await test.step('the menu offers exactly Kill and Start, each with the command it runs', async () => {
    const menu = await menuOf('broker-a')
    const items = menu.getByRole('menuitem')
    await expect(items.filter({ hasText: /^(Kill|Pause|Resume|Restart|Stop|Start)/ })).toHaveText([
      /^Kill/,
      /^Start/
    ])
    await expect(menu.getByRole('menuitem', { name: /^Kill/ })).toHaveAccessibleDescription(
      `runs kill -KILL $(cat ${scripts.pidFile})`
    )
    await menu.getByRole('menuitem', { name: /^Kill/ }).click()
  })

  await test.step('the first destructive one asks, naming the node and the command', async () => {
    const ask = page.getByRole('alertdialog', { name: 'Kill broker-a on your cluster?' })
    await expect(ask).toContainText(`kill -KILL $(cat ${scripts.pidFile})`)
    await testInfo.attach('the confirmation', {
      body: await ask.screenshot(),
      contentType: 'image/png'
    })
    await ask.getByRole('button', { name: 'Run kill' }).click()
    await expect(node('broker-a')).toHaveAccessibleName(/, state down\b/, { timeout: 30_000 })
    await expect(edge('producer-room1', 'broker-b', 'cross-room (room1 → room2)')).toBeAttached({
      timeout: 60_000
    })
  })

  await test.step('Start runs the start script without asking again; broker-a answers again', async () => {
    const menu = await menuOf('broker-a')
    await menu.getByRole('menuitem', { name: /^Start/ }).click()
    restartedPidFile = scripts.pidFile
    await expect(page.getByRole('alertdialog')).toHaveCount(0)
    await expect(node('broker-a')).toHaveAccessibleName(/, state up\b/, { timeout: 60_000 })
  })

  await test.step('Stop ends the run', async () => {
    await live.tool('Stop').click()
    await expect(live.tool('Start')).toBeEnabled({ timeout: 120_000 })
  })
})

test('Start runs DR Studio’s client on it; a broker killed out of band reroutes producer-room1', async ({
  page,
  live
}, testInfo) => {
  test.setTimeout(300_000)
  const d = new DesignerPage(page)
  const dialog = page.getByRole('dialog', { name: 'Connect to cluster' })
  const node = (id: string) =>
    live.canvas.getByRole('group', { name: new RegExp(`\\b${id}\\b.* in room\\d`) })
  const edge = (client: string, target: string, where: string) =>
    live.canvas.getByRole('img', { name: `${client} uses broker ${target}, ${where}` })

  await test.step('connect again, with a producer and a consumer per room on the operator’s topic', async () => {
    await waitForRegistration(cluster)
    await d.tool('New').click()
    if (await d.discardDialog.isVisible()) {
      await d.discardDialog.getByRole('button', { name: 'Discard changes' }).click()
    }
    await d.canvas.getByRole('button', { name: 'Connect to a running cluster…' }).click()
    await dialog.getByLabel('Name servers', { exact: true }).fill(cluster.namesrvAddr)
    await dialog
      .getByLabel('Room map', { exact: true })
      .fill(`${cluster.nameServers[0].address}: room1\n${cluster.nameServers[1].address}: room2`)
    await dialog.getByLabel('Topic for the workload (optional)').fill('payments')
    await dialog.getByLabel('Add one producer and one consumer per room').check()
    await dialog.getByRole('button', { name: 'Connect' }).click()
    await expect(dialog).toBeHidden()
    await expect(d.room('room1', 4)).toBeVisible()
  })

  await test.step('Start: producer-room1 sends to broker-a in its own room', async () => {
    await live.tool('Start').click()
    await expect(edge('producer-room1', 'broker-a', 'same room (room1)')).toBeAttached({
      timeout: 120_000
    })
    await expect(node('broker-a')).toHaveAccessibleName(/, state up\b/, { timeout: 30_000 })
  })

  await test.step('broker-a is the operator’s: its menu offers no signal, only how to add commands', async () => {
    await node('broker-a').getByRole('button', { name: 'Actions for broker-a' }).click()
    const menu = page.getByRole('menu', { name: 'Actions for broker-a' })
    await expect(
      menu.getByRole('menuitem', { name: /^No commands for this node/ })
    ).toHaveAttribute('aria-disabled', 'true')
    await expect(
      menu.getByRole('menuitem', { name: /^(Kill|Pause|Resume|Restart)\b/ })
    ).toHaveCount(0)
    await page.keyboard.press('Escape')
    await expect(menu).toBeHidden()
  })

  await test.step('the operator kills broker-a out of band: the edge moves, the node shows down', async () => {
    process.kill(brokerAPid(), 'SIGKILL')
    await expect(edge('producer-room1', 'broker-b', 'cross-room (room1 → room2)')).toBeAttached({
      timeout: 60_000
    })
    await expect(node('broker-a')).toHaveAccessibleName(/, state down\b/, { timeout: 30_000 })
    await testInfo.attach('canvas after the out-of-band kill', {
      body: await page.screenshot(),
      contentType: 'image/png'
    })
  })

  await test.step('Stop ends the run', async () => {
    await live.tool('Stop').click()
    await expect(live.tool('Start')).toBeEnabled({ timeout: 120_000 })
  })
})
