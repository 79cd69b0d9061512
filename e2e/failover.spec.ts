import { expect, test } from './fixtures'

/** Every node of the default two-room topology. */
const NODES = [
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
]

const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

test('kills broker-1 on the running default topology: producer-1 fails over to room2, nothing is lost', async ({
  page
}, testInfo) => {
  test.setTimeout(420_000)
  const canvas = page.getByRole('region', { name: 'Topology canvas' })
  const node = (id: string) =>
    canvas.getByRole('group', { name: new RegExp(`\\b${esc(id)}\\b.* in room\\d`) })
  const edge = (label: string) => canvas.getByRole('img', { name: label, exact: true })

  await test.step('start the sandbox and wait until every node is up', async () => {
    await page.getByRole('button', { name: 'Start', exact: true }).click()
    for (const id of NODES) {
      await expect(node(id)).toHaveAccessibleName(/, state up\b/, { timeout: 180_000 })
    }
  })

  await test.step('clients use their own room', async () => {
    await expect(edge('producer-1 uses broker broker-1, same room (room1)')).toBeAttached({
      timeout: 90_000
    })
    await expect(edge('producer-2 uses broker broker-2, same room (room2)')).toBeAttached({
      timeout: 90_000
    })
  })

  await test.step('kill broker-1 from its Actions menu', async () => {
    await node('broker-1').getByRole('button', { name: 'Actions for broker-1' }).click()
    await page
      .getByRole('menu', { name: 'Actions for broker-1' })
      .getByRole('menuitem', { name: /^Kill/ })
      .click()
    await expect(node('broker-1')).toHaveAccessibleName(/, state (killed|down)\b/, {
      timeout: 30_000
    })
  })

  await test.step('producer-1 fails over to broker-2 in room2', async () => {
    await expect(edge('producer-1 uses broker broker-2, cross-room (room1 → room2)')).toBeAttached({
      timeout: 90_000
    })
    await expect(edge('producer-1 uses broker broker-1, same room (room1)')).toHaveCount(0)
    const shot = testInfo.outputPath('failover-canvas.png')
    await canvas.screenshot({ path: shot })
    await testInfo.attach('canvas after the failover', { path: shot, contentType: 'image/png' })
  })

  await test.step('stop: the run is drained and reported', async () => {
    await page.getByRole('button', { name: 'Stop', exact: true }).click()
    await expect(page.getByRole('button', { name: 'Start', exact: true })).toBeEnabled({
      timeout: 120_000
    })
  })

  await test.step('the latest run in Runs lost no message', async () => {
    await page.getByRole('button', { name: 'Runs', exact: true }).click()
    const runs = page.getByRole('dialog', { name: 'Runs' })
    await expect(runs).toBeVisible()
    const open = runs.getByRole('button', { name: /^Open run \d+$/ }).first()
    await expect(open).toBeVisible({ timeout: 30_000 })
    await open.click()
    const scorecard = runs.getByRole('region', { name: 'Scorecard' })
    await expect(scorecard).toBeVisible({ timeout: 30_000 })
    await expect(scorecard.getByText('0 lost', { exact: true })).toBeAttached()
    const producer1 = scorecard.getByRole('table', { name: 'Clients' }).getByRole('row', {
      name: /^producer-1 /
    })
    await expect(producer1.getByRole('cell').nth(7)).toHaveText('0')
    const shot = testInfo.outputPath('run-scorecard.png')
    await page.screenshot({ path: shot })
    await testInfo.attach('run scorecard', { path: shot, contentType: 'image/png' })
  })
})
