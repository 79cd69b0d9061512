import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { app, BrowserWindow, dialog, Menu, session } from 'electron'
import type { DialogPort } from '../services/engine/engine'
import type { Engine } from '../services/engine/engine'
import { findAppPaths } from '../services/app-paths'
import { createEngine } from '../services/engine/create-engine'
import { bindIpc } from './ipc'
import { buildMenu } from './menu'

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
let mainWindow: BrowserWindow | null = null

async function createWindow(): Promise<void> {
  const paths = findAppPaths(app.getAppPath())
  // Tests and power users point the store elsewhere; otherwise Electron's userData convention.
  const dataDir = process.env.DRSTUDIO_DATA_DIR ?? app.getPath('userData')
  engine ??= createEngine({
    shell: 'electron',
    paths,
    dataDir,
    dialogs: electronDialogs(() => mainWindow)
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
  win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }))

  const devUrl = process.env.ELECTRON_RENDERER_URL
  const pageUrl = devUrl ?? pathToFileURL(join(here, '../renderer/index.html')).href
  const trusted = devUrl
    ? [new URL(devUrl).origin]
    : [pathToFileURL(join(here, '../renderer')).href]
  win.webContents.on('will-navigate', (event, url) => {
    if (!trusted.some((o) => url.startsWith(o))) event.preventDefault()
  })
  const unbind = bindIpc(engine, win, trusted)
  win.on('closed', () => {
    unbind()
    mainWindow = null
  })

  const current = engine
  Menu.setApplicationMenu(buildMenu((command) => current.events.emit('menu:command', { command })))
  win.once('ready-to-show', () => win.show())
  await win.loadURL(pageUrl)
}

app.enableSandbox()
app.on('web-contents-created', (_event, contents) => {
  contents.on('will-attach-webview', (event) => event.preventDefault())
})

app.whenReady().then(createWindow, (err: unknown) => {
  dialog.showErrorBox('DR Studio could not start', (err as Error).message)
  app.exit(1)
})

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit()
})

app.on('activate', () => {
  if (BrowserWindow.getAllWindows().length === 0) void createWindow()
})

let quitting = false
app.on('before-quit', (event) => {
  // Stop every JVM we started before the process goes away.
  if (quitting || !engine) return
  event.preventDefault()
  quitting = true
  void engine.dispose().finally(() => app.quit())
})
