import { expect, test } from './fixtures'
import { FLOW_TIMEOUT_MS } from './pages/live-run'
import { NetworkCanvas } from './pages/network'

// Issue 12 §6: network faults from the canvas. The shell runs as root here, so each room of the
// default topology is its own network (namespaces) and isolating one is a real cut. The same run
// then hangs broker-1 (Pause, issue 5): a broker that stops answering without closing anything.
test.describe.configure({ timeout: FLOW_TIMEOUT_MS })

test('isolates room1 and slows the link from the canvas, then pauses broker-1: producer-1 stays in room1 under the cut, reroutes while broker-1 hangs and comes back, nothing is lost', async ({
  live,
  page
}, testInfo) => {
  const net = new NetworkCanvas(live)

  await test.step('before Start the network actions are greyed out, saying why', async () => {
    await net.expectLink('room1', 'room2', 'both ways 0 ms')
    const menu = await net.openRoomMenu('room1')
    const isolate = menu.getByRole('menuitem', { name: 'Isolate room1', exact: true })
    await expect(isolate).toHaveAttribute('aria-disabled', 'true')
    await expect(isolate).toHaveAccessibleDescription(/^start the sandbox first\b/)
    await page.keyboard.press('Escape')
    await expect(menu).toBeHidden()
  })

  await live.startInOwnRooms()

  await test.step('rooms are separate networks', async () => {
    await expect(net.status).toHaveAccessibleName(/^Network: rooms: own networks\b/)
    await net.expectLink('room1', 'room2', 'both ways 0 ms')
  })

  await test.step('right-click room1 → Isolate room1: the link is drawn cut', async () => {
    const menu = await net.openRoomMenu('room1')
    await expect(
      menu.getByRole('menuitemradio', { name: 'Drop packets', exact: true })
    ).toHaveAttribute('aria-checked', 'true')
    await net.choose(menu, 'Isolate room1')
    await net.expectLink('room1', 'room2', 'both ways cut (drop)')
    await expect(net.status).toHaveAccessibleName(/own networks, 1 network fault\b/)
    await live.expectLiveEvents(testInfo, 'timeline after the isolation', [
      ['fault', 'isolate room1 (drop)']
    ])
  })

  await test.step('producer-1 stays on room1’s name server and broker under the cut', async () => {
    // The cut has bitten once room1's management node no longer lists room2's name server.
    await net.expectNameServerList('producer-1', ['ns-1'])
    await live.expectRoute('producer-1', 'broker-1')
    await live.expectRoute('producer-1', 'ns-1')
    await live.expectRoute('consumer-1', 'ns-1')
    await live.expectRoute('producer-2', 'broker-2')
    await live.expectTps('broker-1', (tps) => tps > 0, 'keeps storing room1’s messages')
    await live.attachCanvas(testInfo, 'canvas with room1 isolated')
  })

  await test.step('heal room1 from the link’s menu: the link is whole again', async () => {
    const menu = await net.openLinkMenu('room1', 'room2')
    // A pair heal does not undo an isolation; the menu says so and offers healing the room.
    await expect(
      menu.getByRole('menuitem', { name: 'Heal room1 ~ room2', exact: true })
    ).toHaveAccessibleDescription('the link is cut by an isolated room; heal that room')
    await net.choose(menu, 'Heal room1')
    await net.expectLink('room1', 'room2', 'both ways 0 ms')
    await expect(net.status).toHaveAccessibleName(/^Network: rooms: own networks$/)
    await live.expectLiveEvents(testInfo, 'timeline after the heal', [['fault', 'heal room1']])
    await net.expectNameServerList('producer-1', ['ns-1', 'ns-2'])
    await live.expectOwnRooms()
  })

  await test.step('Slow… on the link: the dialog names a bad field, then the link says 20 ms ± 2', async () => {
    const dialog = await net.openDialog(await net.openLinkMenu('room1', 'room2'), 'Slow…')
    await expect(dialog).toHaveAccessibleName('Slow room1 ~ room2')
    const latency = dialog.getByRole('textbox', { name: 'Latency (ms)' })
    await latency.fill('fast')
    await dialog.getByRole('button', { name: 'Slow', exact: true }).click()
    await expect(latency).toHaveAccessibleDescription(
      'Latency "fast" is not a number. Latency: enter milliseconds above 0 and at most 60000, e.g. 20'
    )
    await latency.fill('20')
    await dialog.getByRole('textbox', { name: 'Jitter (ms)' }).fill('2')
    await dialog.getByRole('button', { name: 'Slow', exact: true }).click()
    await expect(dialog).toBeHidden()
    await net.expectLink('room1', 'room2', 'both ways 20 ms ± 2; configured 0 ms')
    await live.expectLiveEvents(testInfo, 'timeline after the delay', [
      ['fault', 'delay room1 ~ room2 20 ms ± 2']
    ])
    await net.choose(await net.openLinkMenu('room1', 'room2'), 'Heal room1 ~ room2')
    await net.expectLink('room1', 'room2', 'both ways 0 ms')
    await live.expectOwnRooms()
  })

  await test.step('pause broker-1 from its Actions menu: producer-1 reroutes to broker-2', async () => {
    await live.act('broker-1', 'Pause')
    await live.expectState('broker-1', 'paused')
    await live.expectRoute('producer-1', 'broker-2')
    await live.attachCanvas(testInfo, 'canvas after the paused broker’s failover')
  })
  await test.step('resume broker-1: producer-1 returns to it', async () => {
    await live.act('broker-1', 'Resume')
    await live.expectState('broker-1', 'up')
    await live.expectRoute('producer-1', 'broker-1')
  })

  await live.stopAndExpectNothingLost(testInfo)
})
