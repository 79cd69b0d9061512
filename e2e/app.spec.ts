import { expect, test } from './fixtures'

const ROOMS = ['room1', 'room2']
const COMPONENTS: [string, RegExp][] = [
  ['mgmt-1', /^management node mgmt-1 in room1/],
  ['ns-1', /^name server ns-1 in room1/],
  ['broker-1', /^broker broker-1 \(master\) in room1/],
  ['producer-1', /^producer producer-1 in room1/],
  ['consumer-1', /^consumer consumer-1 in room1/],
  ['mgmt-2', /^management node mgmt-2 in room2/],
  ['ns-2', /^name server ns-2 in room2/],
  ['broker-2', /^broker broker-2 \(master\) in room2/],
  ['producer-2', /^producer producer-2 in room2/],
  ['consumer-2', /^consumer consumer-2 in room2/]
]

test('opens the default two-room topology with every room and component on the canvas', async ({
  page,
  shell
}, testInfo) => {
  const canvas = page.getByRole('region', { name: 'Topology canvas' })
  await expect(canvas).toBeVisible()
  for (const room of ROOMS) {
    await expect(canvas.getByRole('group', { name: new RegExp(`^room ${room}\\b`) })).toBeVisible()
  }
  for (const [, label] of COMPONENTS) {
    await expect(canvas.getByRole('group', { name: label })).toBeVisible()
  }
  await expect(page.getByTestId('transport')).toHaveText(new RegExp(`transport: ${shell.kind}`))
  const shot = testInfo.outputPath('default-topology.png')
  await page.screenshot({ path: shot })
  await testInfo.attach('default topology', { path: shot, contentType: 'image/png' })
})
