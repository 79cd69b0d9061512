import { pausedBrokerSweep } from '../common/scenario/test-sweep'
import { recordFinishedRun } from './support/recorded-run'
import { expect, test } from './fixtures'
import { openRun } from './pages/runs'
import { freshWindow } from './support/shell'

/**
 * What-if sweeps in the app (issue 24). The Scenarios panel offers a sweep of any built-in
 * scenario: the engine checks the values before anything boots and the dialog says what to fix.
 * Runs shows a sweep as one comparison in the scorecard of each of its runs. The recorded run is a
 * real transactional run on RocketMQ with a sweep summary written into its report (a stand-in for
 * the summary: test/integration/scenario.test.ts makes a real sweep on a paused broker and checks
 * what it stores; this spec proves what the app shows of it).
 */
test.beforeAll(async ({ shell }) => {
  // The shared window as a fresh one: whatever the spec before left open is closed.
  await freshWindow(shell.page)
})

test('the Scenarios panel offers a sweep, refuses a bad value naming it; Runs shows a sweep as one table', async ({
  page,
  shell
}) => {
  await test.step('Scenarios ▸ Sweep…: a bad value is refused by the engine before anything boots', async () => {
    const panel = page.getByRole('region', { name: 'Scenarios' })
    await panel.getByRole('button', { name: 'Scenarios' }).click()
    await panel.getByRole('button', { name: 'Sweep room1-broker-paused' }).click()
    const dialog = page.getByRole('dialog', { name: 'Sweep room1-broker-paused' })
    await expect(dialog.getByRole('combobox', { name: 'Vary' })).toBeFocused()
    await expect(dialog.getByRole('combobox', { name: 'Vary' })).toHaveValue(
      'client.requestTimeout'
    )
    const values = dialog.getByRole('textbox', { name: 'Values' })
    await values.fill('400ms')
    await dialog.getByRole('button', { name: 'Start sweep' }).click()
    await expect(dialog.getByRole('alert')).toHaveText(
      'give two or more values, separated by commas'
    )
    await values.fill('400ms, soon')
    await values.press('Enter')
    await expect(dialog.getByRole('alert')).toContainText(
      '"soon" is not a value of client.requestTimeout'
    )
    await expect(page.getByRole('status', { name: 'Scenario progress' })).toHaveCount(0)
    await page.keyboard.press('Escape')
    await expect(dialog).toHaveCount(0)
    await panel.getByRole('button', { name: 'Scenarios' }).click()
  })

  await test.step('Runs: a run of a sweep shows every setting side by side, the best starred', async () => {
    const runId = recordFinishedRun(shell.dataDir, (report) => {
      report.sweep = pausedBrokerSweep(0)
    })
    const runs = await openRun(page, runId)
    const sweep = runs.getByRole('table', { name: 'Sweep' })
    await expect(
      sweep.getByRole('row', {
        name: 'requestTimeout=400ms 403.3 ms * 0 * 21 * 20.3 % * 402.7 ms *'
      })
    ).toBeVisible()
    await expect(
      sweep.getByRole('row', { name: 'requestTimeout=1500ms 1501.7 ms 0 * 75 20.3 % * 1503.7 ms' })
    ).toBeVisible()
    await expect(runs.getByRole('list', { name: 'Sweep verdict' })).toContainText(
      'trade-off: requestTimeout=400ms is best on every figure'
    )
    await page.keyboard.press('Escape')
  })
})
