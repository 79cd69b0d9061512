import { expect, test } from './fixtures'
import { FLOW_TIMEOUT_MS } from './pages/live-run'
import { ReplayPage } from './pages/replay'

// Issues 5 and 15: the failover flows on the running default topology, each fault chosen from a
// node's Actions menu, watched live (client edges, live metrics) and again afterwards (Runs ▸
// Replay). The flows share the worker's app window (fixtures.ts); each presses Start and Stop
// itself, so each has its own run, judged on its own in Runs. Faults that do not disturb each
// other share one run, so the sandbox boots once for them.
test.describe.configure({ timeout: FLOW_TIMEOUT_MS })

/** How far from the kill producer-1's failover may be marked (its RTO bound on a loaded machine). */
const MAX_SECONDS_TO_FAILOVER = 15

test('room1 loses broker-1, then ns-1: live metrics follow, producer-1 moves to broker-2 and ns-2, nothing is lost, and the run replays', async ({
  live,
  page
}, testInfo) => {
  await live.startInOwnRooms()
  await test.step('every client shows its live figures, every broker its TPS', async () => {
    for (const id of ['producer-1', 'producer-2', 'consumer-1', 'consumer-2'] as const) {
      await expect(live.figures(id)).toBeVisible({ timeout: 30_000 })
    }
    await live.expectTps('broker-1', (tps) => tps > 0, 'stores the messages of producer-1')
    await live.expectTps('broker-2', (tps) => tps > 0, 'stores the messages of producer-2')
  })
  const before = await live.tps('broker-2')
  await live.kill('broker-1')
  await test.step('producer-1 fails over to broker-2; broker-1 stores nothing, broker-2 stores room1’s messages too', async () => {
    await live.expectRoute('producer-1', 'broker-2')
    await live.expectTps('broker-1', (tps) => tps === 0, 'drops to 0 TPS')
    await live.expectTps('broker-2', (tps) => tps > before * 1.5, `rises above ${before} TPS`)
    await live.attachCanvas(testInfo, 'canvas with live metrics after the broker kill')
  })
  await live.kill('ns-1')
  await test.step('room1 clients use room2: producer-1 → broker-2 and ns-2, consumer-1 → ns-2', async () => {
    await live.expectRoute('producer-1', 'broker-2')
    await live.expectRoute('producer-1', 'ns-2')
    await live.expectRoute('consumer-1', 'ns-2')
    await live.attachCanvas(testInfo, 'canvas after room1 lost its broker and name server')
    // Room2's clients are untouched.
    await live.expectRoute('producer-2', 'broker-2')
    await live.expectRoute('producer-2', 'ns-2')
  })
  await live.stopAndExpectNothingLost(testInfo)
  const replay = new ReplayPage(page, live.runId!)
  await replay.open()

  // The ledger stamps a fault when its action completes, so a client that noticed the kill at once
  // may fail over a little before the fault's row: the failover is judged against the kill's time.
  const killMark = replay.mark(/kill broker-1 at /)
  const failoverMark = replay.mark(/producer-1 broker → broker-b at /).first()
  await test.step('the kill and producer-1’s failover are marked close together', async () => {
    await expect(killMark).toHaveCount(1)
    await expect(failoverMark).toBeAttached()
    const kill = await replay.markSeconds(killMark)
    const failover = await replay.markSeconds(failoverMark)
    expect(Math.abs(failover - kill), 'seconds between the kill and the failover').toBeLessThan(
      MAX_SECONDS_TO_FAILOVER
    )
  })

  await test.step('at the kill broker-1 is killed; producer-1’s edge moves at its failover mark', async () => {
    await killMark.click()
    await replay.expectState('broker-1', /killed|down/)
    await failoverMark.click()
    await expect(replay.edge('producer-1', 'broker-2')).toBeAttached()
    await expect(replay.edge('producer-1', 'broker-1')).toHaveCount(0)
    await live.attachCanvas(testInfo, 'replay at producer-1’s failover')
    // One step (1 s) earlier it still used its own room's broker.
    await replay.press('ArrowLeft')
    await expect(replay.edge('producer-1', 'broker-1')).toBeAttached()
    await expect(replay.edge('producer-1', 'broker-2')).toHaveCount(0)
    await replay.press('ArrowRight')
    await expect(replay.edge('producer-1', 'broker-2')).toBeAttached()
  })

  await test.step('Home goes back to before the fault', async () => {
    await replay.press('Home')
    expect(await replay.seconds()).toBe(0)
    await expect(replay.edge('producer-1', 'broker-2')).toHaveCount(0)
  })

  await test.step('keyboard: Space plays and pauses, + and - change the speed', async () => {
    const speed = replay.bar.getByRole('combobox', { name: 'Playback speed' })
    await replay.press('+')
    await expect(speed).toHaveValue('2')
    await replay.press('-')
    await replay.press('-')
    await expect(speed).toHaveValue('0.5')
    await replay.press(' ')
    await expect(replay.bar.getByRole('button', { name: 'Pause', exact: true })).toBeVisible()
    await replay.press(' ')
    await expect(replay.bar.getByRole('button', { name: 'Play', exact: true })).toBeVisible()
  })
  await replay.exit()
})

test('ordered messages; room1 loses its management node, then its consumers: clients fall back to mgmt-2 and keep their routes, consumer-2 takes over room1’s locked queues at once, nothing is lost or out of order', async ({
  live
}, testInfo) => {
  // Ordered traffic (issue 22): consumers hold each queue under its broker lock, which a crashed
  // consumer never gives back; consumer-2 frees it in consumer-1's name rather than stalling.
  await live.useMessages('ordered')
  await live.startInOwnRooms()
  await live.kill('mgmt-1')
  await test.step('room1 clients ask mgmt-2 for name servers (Timeline)', async () => {
    await live.expectLiveEvents(
      testInfo,
      'timeline after the fallback',
      ['producer-1', 'consumer-1'].flatMap((client) => [
        ['management-fallback', client, 'asked room2'],
        ['namesrv-list', client, 'from room2 (fallback)']
      ])
    )
  })
  await test.step('the routes do not change: every client stays in its own room', async () => {
    await live.expectOwnRooms()
    await live.attachCanvas(testInfo, 'canvas after the failover')
    await live.expectState('mgmt-2', 'up')
  })
  await live.kill('consumer-1')
  await test.step('the Timeline shows consumer-2 taking over room1’s queues, freeing consumer-1’s locks', async () => {
    await live.expectLiveEvents(testInfo, 'timeline after the takeover', [
      ['consumer-takeover', 'consumer-2', 'took over', 'of room1 for room2'],
      ['queue-locked', 'consumer-2', 'of broker-a', 'freed from departed', '@room1']
    ])
    // The lock came at once: consumer-2 is not left stalled on room1's queues.
    await expect(live.node('consumer-2')).not.toHaveAccessibleName(/stalled/)
    await live.attachCanvas(testInfo, 'canvas after the takeover')
    // Consumers draw their name-server edge only (they read queues of several brokers), so the
    // canvas shows no move; producers are not affected.
    await live.expectRoute('consumer-2', 'ns-2')
    await live.expectRoute('producer-1', 'broker-1')
  })
  await live.stopAndExpectNothingLost(testInfo, async (card) => {
    const takeover = card
      .getByRole('list', { name: 'Failovers' })
      .getByRole('listitem')
      .filter({ hasText: /^consumer-2 \(room2\) took over room1's queues, / })
    await expect(takeover.first()).toBeVisible()
    // The Order section: the remoting lane waited, kept every key in order, and no queue sat on
    // its messages for seconds (the broker alone would have kept the lock up to a minute).
    const order = card.getByRole('table', { name: 'Order' }).getByRole('row').nth(1)
    await expect(order.getByRole('cell').nth(0)).toHaveText('remoting')
    await expect(order.getByRole('cell').nth(1)).toHaveText('wait')
    await expect(order.getByRole('cell').nth(3)).toHaveText('0')
    await expect(order.getByRole('cell').nth(5)).toHaveText(/^(\d{1,3}|[1-4]\d{3}) ms\b/)
  })
  await live.undoMessages()
})
