import { expect, test } from './fixtures'
import { FLOW_TIMEOUT_MS } from './pages/live-run'

// Issue 5: the failover flows on the running default topology, each fault chosen from a node's
// Actions menu. The flows share the worker's app window (fixtures.ts) but each presses Start and
// Stop itself, so each has its own run, judged on its own in Runs.
test.describe.configure({ timeout: FLOW_TIMEOUT_MS })

test('kills broker-1 on the running default topology: producer-1 fails over to room2, nothing is lost', async ({
  live
}, testInfo) => {
  await live.startInOwnRooms()
  await live.kill('broker-1')
  await test.step('producer-1 fails over to broker-2 in room2', async () => {
    await live.expectRoute('producer-1', 'broker-2')
    await live.attachCanvas(testInfo, 'canvas after the failover')
  })
  await live.stopAndExpectNothingLost(testInfo)
})

test('room1 brokers and name server down: producer-1 moves to broker-2 and ns-2, nothing is lost', async ({
  live
}, testInfo) => {
  await live.startInOwnRooms()
  await live.kill('broker-1')
  await live.kill('ns-1')
  await test.step('room1 clients use room2: producer-1 → broker-2 and ns-2, consumer-1 → ns-2', async () => {
    await live.expectRoute('producer-1', 'broker-2')
    await live.expectRoute('producer-1', 'ns-2')
    await live.expectRoute('consumer-1', 'ns-2')
    await live.attachCanvas(testInfo, 'canvas after the failover')
    // Room2's clients are untouched.
    await live.expectRoute('producer-2', 'broker-2')
    await live.expectRoute('producer-2', 'ns-2')
  })
  await live.stopAndExpectNothingLost(testInfo)
})

test('room1 consumers down: consumer-2 takes over room1’s queues, nothing is lost', async ({
  live
}, testInfo) => {
  await live.startInOwnRooms()
  await live.kill('consumer-1')
  await test.step('the Timeline shows consumer-2 taking over room1’s queues', async () => {
    await live.expectLiveEvents(testInfo, 'timeline after the takeover', [
      ['consumer-takeover', 'consumer-2', 'took over', 'of room1 for room2']
    ])
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
  })
})

test('room1 broker paused: producer-1 reroutes to broker-2, and back after Resume, nothing is lost', async ({
  live
}, testInfo) => {
  await live.startInOwnRooms()
  await test.step('pause broker-1 from its Actions menu', async () => {
    await live.act('broker-1', 'Pause')
    await live.expectState('broker-1', 'paused')
  })
  await test.step('producer-1 reroutes to broker-2 in room2', async () => {
    await live.expectRoute('producer-1', 'broker-2')
    await live.attachCanvas(testInfo, 'canvas after the failover')
  })
  await test.step('resume broker-1: producer-1 returns to it', async () => {
    await live.act('broker-1', 'Resume')
    await live.expectState('broker-1', 'up')
    await live.expectRoute('producer-1', 'broker-1')
  })
  await live.stopAndExpectNothingLost(testInfo)
})

test('room1 management node down: clients fall back to mgmt-2 and keep their room1 routes, nothing is lost', async ({
  live
}, testInfo) => {
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
  await live.stopAndExpectNothingLost(testInfo)
})
