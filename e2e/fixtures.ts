import { test as base } from '@playwright/test'
import { LiveRunPage } from './pages/live-run'
import type { LaunchedShell } from './support/shell'
import { launchShell } from './support/shell'

/**
 * One app per worker: Electron where its binary exists, otherwise the browser shell in Chromium.
 * With `workers: 1` every spec file shares it (a failed test gets a fresh worker, so a fresh app);
 * specs leave the window as they found it.
 */
export const test = base.extend<
  { page: LaunchedShell['page']; live: LiveRunPage },
  { shell: LaunchedShell }
>({
  shell: [
    // Playwright requires a destructuring pattern for fixture dependencies, even when there are none.
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const shell = await launchShell()
      await use(shell)
      await shell.close()
    },
    { scope: 'worker', timeout: 120_000 }
  ],
  page: async ({ shell }, use) => {
    await use(shell.page)
  },
  /** The default topology running in the sandbox (Start/Stop, node actions, live edges, Runs). */
  live: async ({ page }, use) => {
    await use(new LiveRunPage(page))
  }
})

export { expect } from '@playwright/test'
