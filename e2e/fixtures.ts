import { test as base } from '@playwright/test'
import type { LaunchedShell } from './support/shell'
import { launchShell } from './support/shell'

/** One app per spec file: Electron where its binary exists, otherwise the browser shell in Chromium. */
export const test = base.extend<{ page: LaunchedShell['page'] }, { shell: LaunchedShell }>({
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
  }
})

export { expect } from '@playwright/test'
