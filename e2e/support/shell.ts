import type { ChildProcess } from 'node:child_process'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, ElectronApplication, Page } from '@playwright/test'
import { _electron, chromium } from '@playwright/test'

export interface LaunchedShell {
  kind: 'electron' | 'browser'
  page: Page
  dataDir: string
  close(): Promise<void>
}

const ROOT = process.cwd()
/** The app reads this kubeconfig, not the user's (the Scenarios panel lists its contexts). */
export const E2E_KUBECONFIG = join(ROOT, 'e2e', 'fixtures', 'kubeconfig.yaml')

/** The Electron binary, if this machine has one (never triggers electron's lazy download). */
export function electronBinary(): string | null {
  const pathFile = join(ROOT, 'node_modules', 'electron', 'path.txt')
  if (!existsSync(pathFile)) return null
  const exe = join(ROOT, 'node_modules', 'electron', 'dist', readFileSync(pathFile, 'utf8').trim())
  return existsSync(exe) ? exe : null
}

export function chromiumPath(): string {
  const path = process.env.DRSTUDIO_CHROMIUM ?? '/usr/bin/chromium'
  if (!existsSync(path)) {
    throw new Error(`no Chromium at ${path}: run \`npm run setup\` or set DRSTUDIO_CHROMIUM`)
  }
  return path
}

/** Starts `drstudio serve` on an ephemeral port and resolves with the tokened URL it prints. */
export function startBrowserShell(dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin', 'drstudio.js'), 'serve', '--port', '0'],
    {
      env: { ...process.env, DRSTUDIO_DATA_DIR: dataDir, KUBECONFIG: E2E_KUBECONFIG },
      stdio: ['ignore', 'pipe', 'pipe']
    }
  )
  return new Promise((resolve, reject) => {
    let out = ''
    const onData = (chunk: Buffer) => {
      out += chunk.toString()
      const m = /(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(out)
      if (m?.[1]) resolve({ url: m[1], child })
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', (c: Buffer) => (out += c.toString()))
    child.once('exit', (code) => reject(new Error(`drstudio serve exited with ${code}:\n${out}`)))
  })
}

/** KEEP_RUN_DIR=1 keeps the app's data (its SQLite ledger) to read after a failure. */
function removeDataDir(dataDir: string): void {
  if (process.env.KEEP_RUN_DIR) process.stderr.write(`kept the app's data in ${dataDir}\n`)
  else rmSync(dataDir, { recursive: true, force: true })
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return
  const exited = new Promise<void>((r) => child.once('exit', () => r()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
  await exited
  clearTimeout(timer)
}

/** Launches the app the way this machine allows and waits until the first topology is rendered. */
export async function launchShell(): Promise<LaunchedShell> {
  const dataDir = mkdtempSync(join(tmpdir(), 'drstudio-e2e-'))
  const exe = electronBinary()
  if (exe && process.env.DRSTUDIO_E2E_SHELL !== 'browser') {
    const app: ElectronApplication = await _electron.launch({
      executablePath: exe,
      args: [ROOT],
      env: {
        ...process.env,
        DRSTUDIO_DATA_DIR: dataDir,
        KUBECONFIG: E2E_KUBECONFIG
      } as Record<string, string>
    })
    const page = await app.firstWindow()
    await page.locator('body[data-app-state="ready"]').waitFor()
    return {
      kind: 'electron',
      page,
      dataDir,
      close: async () => {
        await app.close()
        removeDataDir(dataDir)
      }
    }
  }
  const { url, child } = await startBrowserShell(dataDir)
  let browser: Browser
  try {
    browser = await chromium.launch({
      executablePath: chromiumPath(),
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update'
      ]
    })
  } catch (err) {
    await stopChild(child)
    throw err
  }
  const context = await browser.newContext({
    viewport: { width: 1440, height: 900 },
    acceptDownloads: true,
    // No spec asserts motion; the app's reduced-motion path spares the flowing edges' repaints.
    // Measured on the controller spec, Chromium took about half a core with or without it.
    reducedMotion: 'reduce'
  })
  const page = await context.newPage()
  await page.goto(url)
  await page.locator('body[data-app-state="ready"]').waitFor()
  return {
    kind: 'browser',
    page,
    dataDir,
    close: async () => {
      await browser.close()
      await stopChild(child)
      removeDataDir(dataDir)
    }
  }
}

/**
 * Leaves the shared window as a fresh one: reloaded (unsaved changes discarded), the default
 * topology, no dialog open.
 */
export async function freshWindow(page: Page): Promise<void> {
  const accept = (dialog: { accept(): Promise<void> }) => void dialog.accept()
  page.on('dialog', accept)
  await page.reload()
  await page.locator('body[data-app-state="ready"]').waitFor()
  page.off('dialog', accept)
}
