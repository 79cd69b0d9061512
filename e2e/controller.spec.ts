import { join } from 'node:path'
import { expect, test } from './fixtures'
import { freshWindow } from './support/shell'
import {
  CONTROLLER_FLOW_TIMEOUT_MS,
  CONTROLLER_TOPOLOGY,
  ControllerRunPage
} from './pages/controller-run'
import { DesignerPage } from './pages/designer'

// Issue 14: RocketMQ 5 controller mode on the canvas. broker-a's master (its room-1 replica, the
// topology's preferred one) is killed from its Actions menu; the controllers elect a replica in
// another room, the canvas moves the master badge there with the new epoch, and producer-1's
// edge follows broker-a to that room. Issue 21: one group (six JVMs), and "up" is the sandbox's
// own readiness (the group's master acknowledged a write with its whole SyncStateSet).
test.describe.configure({ timeout: CONTROLLER_FLOW_TIMEOUT_MS })

test.afterAll(async ({ shell }) => {
  await freshWindow(shell.page)
})

test('kills broker-a’s master from the canvas: a replica in another room becomes master, producer-1 follows it', async ({
  page,
  shell
}, testInfo) => {
  test.skip(shell.kind === 'electron', 'Open shows a native file dialog under Electron')
  const d = new DesignerPage(page)
  const live = new ControllerRunPage(page)
  await test.step('open the one-group controller topology', async () => {
    await d.openFile(join(process.cwd(), 'e2e', 'support', CONTROLLER_TOPOLOGY))
    await expect(d.title).toHaveAccessibleName(`DR Studio: ${CONTROLLER_TOPOLOGY}`)
    await expect(live.node('broker-a-1')).toHaveAccessibleName(/broker-a-1 \(replica\) in room1/)
  })
  await live.start()
  await test.step('broker-a’s master is its room-1 replica, and producer-1 sends to it', async () => {
    await live.expectMaster('broker-a-1', 'broker-a')
    for (const id of ['broker-a-1', 'broker-a-2', 'broker-a-3']) {
      await expect(live.readyTime(id)).toBeVisible()
    }
    await expect(live.edge('producer-1', 'broker-a-1')).toBeAttached({ timeout: 60_000 })
    await live.attachCanvas(testInfo, 'canvas before the kill')
  })
  await live.kill('broker-a-1')
  await test.step('the controllers make a replica in another room master; producer-1’s edge follows', async () => {
    // The in-sync replica with the most data wins (its election priority breaks ties).
    const tookOver = live.canvas.getByRole('status', {
      name: /^broker-a-[23] is master of broker-a, epoch \d+ \(took over from broker-a-1\)$/
    })
    await expect(tookOver).toBeVisible({ timeout: 60_000 })
    await expect(live.mastersOf('broker-a')).toHaveCount(1)
    const master = /^(broker-a-[23])/.exec((await tookOver.getAttribute('aria-label')) ?? '')![1]!
    await expect(live.edge('producer-1', master)).toBeAttached({ timeout: 60_000 })
    await live.attachCanvas(testInfo, 'canvas after the switch')
  })
  await live.stopAndExpectNothingLost(testInfo)
})
