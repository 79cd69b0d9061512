import { expect, test } from './fixtures'
import { FLOW_TIMEOUT_MS } from './pages/live-run'
import { ReplayPage } from './pages/replay'

// Issue 15: watching a run live (metrics on the canvas) and again afterwards (Runs ▸ Replay).
test.describe.configure({ timeout: FLOW_TIMEOUT_MS })

/** Steps of the playhead (1 s each) a client gets to fail over after the fault, at most. */
const MAX_STEPS_TO_FAILOVER = 15

test('live metrics change when broker-1 is killed: its TPS drops to 0, broker-2 takes the load', async ({
  live
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
  await test.step('after the kill: broker-1 stores nothing, broker-2 stores room1’s messages too', async () => {
    await live.expectRoute('producer-1', 'broker-2')
    await live.expectTps('broker-1', (tps) => tps === 0, 'drops to 0 TPS')
    await live.expectTps('broker-2', (tps) => tps > before * 1.5, `rises above ${before} TPS`)
    await live.attachCanvas(testInfo, 'canvas with live metrics after the kill')
  })
  await live.stop()
})

test('replays a recorded broker-kill run: producer-1’s edge moves at the fault', async ({
  live,
  page
}, testInfo) => {
  await live.startInOwnRooms()
  await live.kill('broker-1')
  await live.expectRoute('producer-1', 'broker-2')
  await live.stop()
  const replay = new ReplayPage(page, live.runId!)
  await replay.open()

  await test.step('at the kill mark broker-1 is killed and producer-1 still uses it', async () => {
    const kill = replay.mark(/kill broker-1 at /)
    await expect(kill).toHaveCount(1)
    await kill.click()
    await replay.expectState('broker-1', /killed|down/)
    await expect(replay.edge('producer-1', 'broker-1')).toBeAttached()
  })
  const atKill = await replay.seconds()

  await test.step('stepping on, producer-1’s edge moves to broker-2 within a few seconds', async () => {
    let steps = 0
    while ((await replay.edge('producer-1', 'broker-2').count()) === 0) {
      expect(steps, 'steps after the kill until producer-1 failed over').toBeLessThan(
        MAX_STEPS_TO_FAILOVER
      )
      await replay.press('ArrowRight')
      steps++
    }
    await expect(replay.edge('producer-1', 'broker-1')).toHaveCount(0)
    expect(await replay.seconds()).toBeGreaterThan(atKill)
    await live.attachCanvas(testInfo, 'replay after producer-1 failed over')
  })

  await test.step('the failover is marked, and Home goes back to before the fault', async () => {
    await expect(replay.mark(/producer-1 broker → broker-b at /).first()).toBeAttached()
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
    await expect(replay.bar.getByRole('button', { name: 'Pause' })).toBeVisible()
    await replay.press(' ')
    await expect(replay.bar.getByRole('button', { name: 'Play' })).toBeVisible()
  })
  await replay.exit()
})
