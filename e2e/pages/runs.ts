import type { Locator, Page } from '@playwright/test'

/** Opens Runs from the main toolbar; returns its dialog. */
export async function openRuns(page: Page): Promise<Locator> {
  await page
    .getByRole('toolbar', { name: 'Main toolbar' })
    .getByRole('button', { name: 'Runs', exact: true })
    .click()
  return page.getByRole('dialog', { name: 'Runs' })
}

/** Opens Runs and one run's scorecard in it; returns the dialog. */
export async function openRun(page: Page, runId: number): Promise<Locator> {
  const runs = await openRuns(page)
  await runs.getByRole('button', { name: `Open run ${runId}`, exact: true }).click()
  return runs
}
