import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { recordFinishedRun } from './support/recorded-run'
import { expect, test } from './fixtures'
import { openRun, openRuns } from './pages/runs'

/**
 * Runs ▸ Export ▸ HTML (issue 24): a recorded run (a real transactional run on RocketMQ, put in the
 * app's data folder as the app records one) is saved as one HTML file, which opens in Chromium from
 * disk with nothing fetched and reads by roles, on a phone's width too.
 */
test('exports a run as a self-contained HTML report that reads by roles, on a phone too', async ({
  page,
  shell
}, testInfo) => {
  const runId = recordFinishedRun(shell.dataDir)
  const path = testInfo.outputPath(`drstudio-run-${runId}.html`)

  await test.step('Runs ▸ Open ▸ HTML downloads the report', async () => {
    const runs = await openRun(page, runId)
    const downloading = page.waitForEvent('download')
    await runs.getByRole('button', { name: `Export run ${runId} as HTML`, exact: true }).click()
    const download = await downloading
    expect(download.suggestedFilename()).toBe(`drstudio-run-${runId}.html`)
    await download.saveAs(path)
    await page.keyboard.press('Escape')
  })

  await test.step('the file opens from disk, fetches nothing and reads by roles', async () => {
    const report = await page.context().newPage()
    const requests: string[] = []
    report.on('request', (r) => requests.push(r.url()))
    await report.setViewportSize({ width: 390, height: 844 })
    await report.goto(pathToFileURL(path).href)
    await expect(
      report.getByRole('heading', { level: 1, name: 'transactional-room1-brokers-down' })
    ).toBeVisible()
    await expect(report.getByText('PASSED', { exact: true })).toBeVisible()
    for (const section of ['Topology', 'Gates', 'Faults', 'Failovers', 'Traffic', 'Ledger']) {
      await expect(report.getByRole('heading', { level: 2, name: section })).toBeVisible()
    }
    await expect(report.getByRole('img', { name: /^Topology two-rooms: 2 rooms/ })).toBeVisible()
    await expect(
      report.getByRole('img', { name: 'Acknowledged sends per producer (messages/s)' })
    ).toBeVisible()
    const gates = report.getByRole('region', { name: 'Gates' }).getByRole('table')
    await expect(gates.getByRole('row', { name: /lost messages pass 0 0/ })).toBeVisible()
    const faults = report.getByRole('region', { name: 'Faults' }).getByRole('table')
    await expect(faults.getByRole('row', { name: /6\.0 kill all brokers of room1/ })).toBeVisible()
    await expect(report.locator('script')).toHaveCount(0)
    expect(requests.filter((u) => !u.startsWith('file:'))).toEqual([])
    // Nothing wider than the phone but the tables, which scroll inside their own box.
    const overflow = await report.evaluate(() => {
      const root = (
        globalThis as unknown as {
          document: { documentElement: { scrollWidth: number; clientWidth: number } }
        }
      ).document.documentElement
      return root.scrollWidth - root.clientWidth
    })
    expect(overflow).toBeLessThanOrEqual(0)
    // UPDATE_DOCS=1 refreshes the README's screenshot; otherwise it stays with the test's output.
    const shot = process.env.UPDATE_DOCS
      ? join(process.cwd(), 'docs', 'report-html-phone.png')
      : testInfo.outputPath('report-html-phone.png')
    await report.screenshot({ path: shot, fullPage: false })
    await testInfo.attach('HTML report on a phone', { path: shot, contentType: 'image/png' })
    await report.close()
  })
  expect(readFileSync(path, 'utf8')).toContain('<!doctype html>')
})

/**
 * Runs ▸ Compare (issue 24): two recorded runs of the same scenario, the second failed with more
 * duplicates, side by side: the figures that differ are marked, and both runs' send rates share one
 * axis whose zero is each run's first fault.
 */
test('compares two runs side by side, the differing figures marked, plots aligned at the first fault', async ({
  page,
  shell
}) => {
  const a = recordFinishedRun(shell.dataDir)
  const b = recordFinishedRun(shell.dataDir, (report) => {
    report.passed = false
    const totals = report.totals as { duplicates: number }
    totals.duplicates += 40
  })
  const runs = await openRuns(page)
  const compare = runs.getByRole('button', { name: /^Compare/ })
  await expect(compare).toBeDisabled()
  await runs.getByRole('checkbox', { name: `Select run ${a} to compare` }).check()
  // Keyboard too: Space ticks the focused box.
  await runs.getByRole('checkbox', { name: `Select run ${b} to compare` }).focus()
  await page.keyboard.press('Space')
  await expect(compare).toHaveAccessibleName('Compare 2 runs')
  await compare.click()
  const table = runs.getByRole('table', { name: `Runs ${a}, ${b} side by side` })
  await expect(
    table.getByRole('row', { name: /^verdict \(differs\) PASSED FAILED$/ })
  ).toBeVisible()
  await expect(table.getByRole('row', { name: /^duplicates \(differs\) \d+ \d+$/ })).toBeVisible()
  await expect(table.getByRole('row', { name: /^lost 0 0$/ })).toBeVisible()
  await expect(
    runs.getByRole('img', {
      name: new RegExp(`^Send rate per run for run ${a}, run ${b}; faults: first fault: kill`)
    })
  ).toBeVisible()
  await runs.getByRole('button', { name: 'All runs' }).click()
  await expect(runs.getByRole('table', { name: 'Past runs' })).toBeVisible()
  await page.keyboard.press('Escape')
})
