import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { app, BrowserWindow, dialog, Menu, session } from 'electron'
import type { DialogPort } from '../services/engine/engine'
import type { Engine } from '../services/engine/engine'
import { findAppPaths } from '../services/app-paths'
import { createEngine } from '../services/engine/create-engine'
import type { MetricsEndpoint } from '../services/metrics/metrics-endpoint'
import { serveMetrics } from '../services/metrics/metrics-endpoint'
import type { EditMenuCommand } from '../../common/contract'
import { bindIpc } from './ipc'
import { buildMenu } from './menu'
import { choiceOf, UnsavedGuard, unsavedDialog } from './unsaved-changes'

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join('; ')

function electronDialogs(getWindow: () => BrowserWindow | null): DialogPort {
  return {
    async openFile(opts) {
      const win = getWindow()
      const options = {
        title: opts.title,
        filters: opts.filters,
        properties: ['openFile' as const]
      }
      const r = win
        ? await dialog.showOpenDialog(win, options)
        : await dialog.showOpenDialog(options)
      return r.canceled ? null : (r.filePaths[0] ?? null)
    },
    async saveFile(opts) {
      const win = getWindow()
      const r = win ? await dialog.showSaveDialog(win, opts) : await dialog.showSaveDialog(opts)
      return r.canceled ? null : (r.filePath ?? null)
    },
    async chooseDirectory(opts) {
      const win = getWindow()
      const options = {
        title: opts.title,
        properties: ['openDirectory' as const, 'createDirectory' as const]
      }
      const r = win
        ? await dialog.showOpenDialog(win, options)
        : await dialog.showOpenDialog(options)
      return r.canceled ? null : (r.filePaths[0] ?? null)
    }
  }
}

const here = dirname(fileURLToPath(import.meta.url))

let engine: Engine | null = null
let metricsEndpoint: MetricsEndpoint | null = null
let mainWindow: BrowserWindow | null = null
/** Set once the user agreed to lose (or saved) the document, so the next close goes through. */
let closeAllowed = false

/** Asks the window's renderer about unsaved changes; one guard per window. */
function guardFor(win: BrowserWindow): UnsavedGuard {
  return new UnsavedGuard({
    query(requestId, save) {
      if (win.isDestroyed() || win.webContents.isCrashed()) return false
      win.webContents.send('document:query', { requestId, save })
      return true
    },
    async choose(state, action) {
      const r = await dialog.showMessageBox(win, unsavedDialog(state, action))
      return choiceOf(r.response)
    }
  })
}

let guard: UnsavedGuard | null = null

/** Native edits act on a focused text field; the canvas gets the command through the renderer. */
function runEdit(command: EditMenuCommand): void {
  const contents = mainWindow?.webContents
  if (!contents || !engine) return
  if (command === 'select-all') contents.selectAll()
  else contents[command]()
  engine.events.emit('menu:command', { command })
}

async function createWindow(): Promise<void> {
  const paths = findAppPaths(app.getAppPath())
  // Tests and power users point the store elsewhere; otherwise Electron's userData convention.
  const dataDir = process.env.DRSTUDIO_DATA_DIR ?? app.getPath('userData')
  if (!engine && process.env.DRSTUDIO_METRICS) {
    // A bad address or a busy port is reported, and the app starts without metrics.
    metricsEndpoint = await serveMetrics(
      process.env.DRSTUDIO_METRICS,
      dataDir,
      process.stderr
    ).catch((e: unknown) => {
      process.stderr.write(`DRSTUDIO_METRICS: ${(e as Error).message}\n`)
      return null
    })
  }
  engine ??= createEngine({
    shell: 'electron',
    paths,
    dataDir,
    dialogs: electronDialogs(() => mainWindow),
    ...(metricsEndpoint ? { metrics: metricsEndpoint.metrics } : {})
  })

  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CSP] } })
  })
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) =>
    callback(false)
  )

  const win = new BrowserWindow({
    width: 1440,
    height: 900,
    title: 'DR Studio',
    show: false,
    webPreferences: {
      preload: join(here, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      spellcheck: false,
      disableBlinkFeatures: 'Auxclick'
    }
  })
  mainWindow = win
  closeAllowed = false
  const windowGuard = guardFor(win)
  guard = windowGuard
  win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }))

  const devUrl = process.env.ELECTRON_RENDERER_URL
  const pageUrl = devUrl ?? pathToFileURL(join(here, '../renderer/index.html')).href
  const trusted = devUrl
    ? [new URL(devUrl).origin]
    : [pathToFileURL(join(here, '../renderer')).href]
  win.webContents.on('will-navigate', (event, url) => {
    if (!trusted.some((o) => url.startsWith(o))) event.preventDefault()
  })
  // A crashed renderer answers nothing and holds nothing to save.
  win.webContents.on('render-process-gone', () => windowGuard.abandon())
  const unbind = bindIpc(engine, win, trusted, {
    'document:answer': async (answer) => {
      windowGuard.answer(answer)
      return { ok: true }
    }
  })
  win.on('close', (event) => {
    if (closeAllowed) return
    event.preventDefault()
    void windowGuard.confirm('close').then((ok) => {
      if (!ok || win.isDestroyed()) return
      closeAllowed = true
      win.close()
    })
  })
  win.on('closed', () => {
    unbind()
    windowGuard.abandon()
    if (mainWindow === win) mainWindow = null
    if (guard === windowGuard) guard = null
  })

  const current = engine
  Menu.setApplicationMenu(
    buildMenu({
      send: (command) => current.events.emit('menu:command', { command }),
      edit: runEdit,
      reload: () => {
        void windowGuard.confirm('reload').then((ok) => {
          if (ok && !win.isDestroyed()) win.webContents.reload()
        })
      }
    })
  )
  win.once('ready-to-show', () => win.show())
  await win.loadURL(pageUrl)
}

/**
 * Any failure while starting (engine, window, page load) ends here: a dialog that says what
 * failed, then exit 1. Without it a rejection inside createWindow left no window, no dialog and a
 * process that never ends.
 */
async function failStartup(err: unknown): Promise<void> {
  const message = err instanceof Error ? err.message : String(err)
  try {
    dialog.showErrorBox(
      'DR Studio could not start',
      `${message}\n\nStart it from a terminal (drstudio-app) to see the full log.`
    )
  } finally {
    await engine?.dispose().catch(() => undefined)
    app.exit(1)
  }
}

function openWindow(): void {
  createWindow().catch(failStartup)
}

app.enableSandbox()
app.on('web-contents-created', (_event, contents) => {
  contents.on('will-attach-webview', (event) => event.preventDefault())
})

app.whenReady().then(openWindow, failStartup)

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit()
})

app.on('activate', () => {
  if (BrowserWindow.getAllWindows().length === 0) openWindow()
})

let quitState: 'idle' | 'asking' | 'disposing' | 'done' = 'idle'
app.on('before-quit', (event) => {
  if (quitState === 'done') return
  event.preventDefault()
  if (quitState !== 'idle') return
  quitState = 'asking'
  void (async () => {
    // Ask about unsaved changes before stopping anything: a Cancel keeps the app as it was.
    const ok = guard && mainWindow && !closeAllowed ? await guard.confirm('quit') : true
    if (!ok) {
      quitState = 'idle'
      return
    }
    closeAllowed = true
    quitState = 'disposing'
    // Stop every JVM we started before the process goes away.
    await engine?.dispose().catch(() => undefined)
    await metricsEndpoint?.close().catch(() => undefined)
    quitState = 'done'
    app.quit()
  })()
})
