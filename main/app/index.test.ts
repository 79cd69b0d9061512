import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { FakeBrowserWindow, FakeElectron } from './test-fakes'
import { createFakeElectron, menuItem } from './test-fakes'

// The Electron shell's main process (index.ts) run against a fake of Electron's API, because the
// real binary cannot run on this machine kind. The module starts on import, so each test imports
// a fresh copy after setting up the fakes.

const h = vi.hoisted(() => ({
  electron: null as unknown,
  engine: null as unknown,
  createEngineError: null as Error | null
}))

// Vitest caches a mocked module across resetModules, so it delegates to this test's fake.
vi.mock('electron', () => {
  const current = () => h.electron as Record<string, unknown>
  return Object.fromEntries(
    ['app', 'BrowserWindow', 'dialog', 'Menu', 'session', 'ipcMain', 'shell'].map((name) => [
      name,
      new Proxy(function () {}, {
        get: (_t, key) => Reflect.get(current()[name] as object, key),
        set: (_t, key, value) => Reflect.set(current()[name] as object, key, value),
        construct: (_t, args) =>
          Reflect.construct(current()[name] as new (...a: unknown[]) => object, args),
        apply: (_t, self, args) => Reflect.apply(current()[name] as () => unknown, self, args)
      })
    ])
  )
})
vi.mock('../services/app-paths', () => ({
  findAppPaths: () => ({
    root: '/opt/drstudio',
    resourcesDir: '/opt/drstudio/resources',
    rendererDir: '/opt/drstudio/out/renderer',
    version: '0.0.0-test'
  })
}))
vi.mock('../services/engine/create-engine', () => ({
  createEngine: () => {
    if (h.createEngineError) throw h.createEngineError
    return h.engine
  }
}))

interface FakeEngine {
  handlers: Record<string, never>
  events: { emit: ReturnType<typeof vi.fn>; onAny: () => () => void }
  dispose: ReturnType<typeof vi.fn>
}

let electron: FakeElectron
let engine: FakeEngine

/** What the bundled page's frame URL looks like to ipc.ts (from source: main/renderer). */
const TRUSTED = {
  senderFrame: { url: `${pathToFileURL(join(import.meta.dirname, '../renderer')).href}/index.html` }
}

beforeEach(() => {
  vi.resetModules()
  delete process.env.ELECTRON_RENDERER_URL
  electron = createFakeElectron()
  engine = {
    handlers: {},
    events: { emit: vi.fn(), onAny: () => () => {} },
    dispose: vi.fn(async () => {})
  }
  h.electron = electron
  h.engine = engine
  h.createEngineError = null
})

afterEach(() => {
  vi.useRealTimers()
})

/** Imports the shell and lets whenReady settle; resolves with the window once it loaded its page. */
async function start(): Promise<FakeBrowserWindow> {
  await import('./index')
  electron.app.ready.resolve()
  await vi.waitFor(() => expect(electron.BrowserWindow.all[0]?.loadURL).toHaveBeenCalled())
  return electron.BrowserWindow.all[0]!
}

/** The renderer's reply to the n-th document:query, through the real ipc handler. */
async function answer(win: FakeBrowserWindow, n: number, dirty: boolean): Promise<void> {
  await vi.waitFor(() => expect(win.webContents.queries().length).toBeGreaterThan(n))
  const q = win.webContents.queries()[n]!
  await electron.ipcMain.handlers.get('document:answer')!(TRUSTED, {
    requestId: q.requestId,
    dirty,
    fileName: 'orders.json'
  })
}

/** Lets pending promise chains run (the guard, the dialog, the close). */
const settle = () => new Promise((r) => setTimeout(r, 10))

describe('startup failures end in a dialog and exit 1', () => {
  async function expectStartupFailure(cause: string): Promise<void> {
    await vi.waitFor(() => expect(electron.app.exit).toHaveBeenCalledWith(1))
    expect(electron.dialog.showErrorBox).toHaveBeenCalledTimes(1)
    const [title, body] = electron.dialog.showErrorBox.mock.calls[0]!
    expect(title).toBe('DR Studio could not start')
    expect(body).toContain(cause)
  }

  it('a page that fails to load inside createWindow', async () => {
    electron.BrowserWindow.loadError = new Error('ERR_FILE_NOT_FOUND (-6) loading index.html')
    await import('./index')
    electron.app.ready.resolve()
    await expectStartupFailure('ERR_FILE_NOT_FOUND')
    // The engine already existed; it is disposed, so no JVM or database outlives the exit.
    expect(engine.dispose).toHaveBeenCalled()
  })

  it('an engine that cannot be created (e.g. the database is locked)', async () => {
    h.createEngineError = new Error('database is locked: /data/drstudio.db')
    await import('./index')
    electron.app.ready.resolve()
    await expectStartupFailure('database is locked')
  })

  it('whenReady itself rejecting', async () => {
    await import('./index')
    electron.app.ready.reject(new Error('GPU process could not start'))
    await expectStartupFailure('GPU process could not start')
  })

  it('a healthy start shows the window and neither a dialog nor an exit', async () => {
    const win = await start()
    win.emit('ready-to-show')
    expect(win.shown).toBe(true)
    await settle()
    expect(electron.dialog.showErrorBox).not.toHaveBeenCalled()
    expect(electron.app.exit).not.toHaveBeenCalled()
  })
})

describe('closing the window asks about unsaved changes', () => {
  it('a clean document closes without a dialog', async () => {
    const win = await start()
    win.close()
    expect(win.destroyed).toBe(false)
    await answer(win, 0, false)
    await vi.waitFor(() => expect(win.destroyed).toBe(true))
    expect(win.webContents.queries()[0]!.save).toBe(false)
    expect(electron.dialog.showMessageBox).not.toHaveBeenCalled()
  })

  it('unsaved changes: the native dialog names the file; Cancel keeps the window', async () => {
    const win = await start()
    electron.dialog.showMessageBox.mockResolvedValue({ response: 2 })
    win.close()
    await answer(win, 0, true)
    await vi.waitFor(() => expect(electron.dialog.showMessageBox).toHaveBeenCalled())
    const [parent, options] = electron.dialog.showMessageBox.mock.calls[0]!
    expect(parent).toBe(win)
    expect(options).toMatchObject({
      message: 'Save changes to orders.json before closing?',
      buttons: ['Save', 'Discard', 'Cancel'],
      cancelId: 2
    })
    await settle()
    expect(win.destroyed).toBe(false)
  })

  it('Discard closes without saving', async () => {
    const win = await start()
    electron.dialog.showMessageBox.mockResolvedValue({ response: 1 })
    win.close()
    await answer(win, 0, true)
    await vi.waitFor(() => expect(win.destroyed).toBe(true))
    expect(win.webContents.queries()).toHaveLength(1)
  })

  it('Save asks the renderer to save and closes once it is clean', async () => {
    const win = await start()
    electron.dialog.showMessageBox.mockResolvedValue({ response: 0 })
    win.close()
    await answer(win, 0, true)
    await vi.waitFor(() => expect(win.webContents.queries()).toHaveLength(2))
    expect(win.webContents.queries()[1]!.save).toBe(true)
    expect(win.destroyed).toBe(false)
    await answer(win, 1, false)
    await vi.waitFor(() => expect(win.destroyed).toBe(true))
  })

  it('a Save the user cancels (Save As dismissed) keeps the window', async () => {
    const win = await start()
    electron.dialog.showMessageBox.mockResolvedValue({ response: 0 })
    win.close()
    await answer(win, 0, true)
    await answer(win, 1, true)
    await settle()
    expect(win.destroyed).toBe(false)
  })

  it('a second close while the dialog is up asks once', async () => {
    const win = await start()
    let respond!: (r: { response: number }) => void
    electron.dialog.showMessageBox.mockReturnValue(new Promise((r) => (respond = r)))
    win.close()
    await answer(win, 0, true)
    await vi.waitFor(() => expect(electron.dialog.showMessageBox).toHaveBeenCalled())
    win.close()
    await settle()
    expect(win.webContents.queries()).toHaveLength(1)
    respond({ response: 1 })
    await vi.waitFor(() => expect(win.destroyed).toBe(true))
    expect(electron.dialog.showMessageBox).toHaveBeenCalledTimes(1)
  })

  it('a renderer that never answers does not trap the window', async () => {
    const win = await start()
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    win.close()
    expect(win.webContents.queries()).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(3000)
    vi.useRealTimers()
    await vi.waitFor(() => expect(win.destroyed).toBe(true))
  })

  it('a crashed renderer is not asked; the window closes', async () => {
    const win = await start()
    win.webContents.crashed = true
    win.close()
    await vi.waitFor(() => expect(win.destroyed).toBe(true))
    expect(win.webContents.queries()).toEqual([])
  })

  it('only our own page may answer', async () => {
    const win = await start()
    win.close()
    await vi.waitFor(() => expect(win.webContents.queries()).toHaveLength(1))
    const handler = electron.ipcMain.handlers.get('document:answer')!
    expect(() =>
      handler(
        { senderFrame: { url: 'https://evil.example/' } },
        { requestId: 1, dirty: false, fileName: 'x' }
      )
    ).toThrow(/refused "document:answer" from untrusted frame/)
    expect(() => handler(TRUSTED, { requestId: 'one' })).toThrow(
      /invalid payload for "document:answer": requestId: .*expected number/
    )
    await settle()
    expect(win.destroyed).toBe(false)
  })
})

describe('View ▸ Reload and quitting ask too', () => {
  it('Reload with unsaved changes asks; Cancel does not reload, a clean page reloads', async () => {
    const win = await start()
    electron.dialog.showMessageBox.mockResolvedValue({ response: 2 })
    const reload = menuItem(electron.Menu.template, 'View', 'Reload')
    expect(reload.role).toBeUndefined()
    expect(reload.accelerator).toBe('CmdOrCtrl+R')
    reload.click!(undefined as never, undefined, undefined as never)
    await answer(win, 0, true)
    await vi.waitFor(() => expect(electron.dialog.showMessageBox).toHaveBeenCalled())
    expect(electron.dialog.showMessageBox.mock.calls[0]![1]).toMatchObject({
      message: 'Save changes to orders.json before reloading?'
    })
    await settle()
    expect(win.webContents.reload).not.toHaveBeenCalled()
    reload.click!(undefined as never, undefined, undefined as never)
    await answer(win, 1, false)
    await vi.waitFor(() => expect(win.webContents.reload).toHaveBeenCalledTimes(1))
  })

  it('Quit asks before stopping the engine; Cancel keeps everything running', async () => {
    const win = await start()
    electron.dialog.showMessageBox.mockResolvedValue({ response: 2 })
    electron.app.quit()
    await answer(win, 0, true)
    await vi.waitFor(() => expect(electron.dialog.showMessageBox).toHaveBeenCalled())
    expect(electron.dialog.showMessageBox.mock.calls[0]![1]).toMatchObject({
      message: 'Save changes to orders.json before quitting?'
    })
    await settle()
    expect(engine.dispose).not.toHaveBeenCalled()
    expect(win.destroyed).toBe(false)

    electron.dialog.showMessageBox.mockResolvedValue({ response: 1 })
    electron.app.quit()
    await answer(win, 1, true)
    await vi.waitFor(() => expect(win.destroyed).toBe(true))
    expect(engine.dispose).toHaveBeenCalledTimes(1)
    // The window's close did not ask a second time.
    expect(win.webContents.queries()).toHaveLength(2)
  })
})

describe('Edit menu', () => {
  it('runs the native edit (text fields) and sends the command (canvas), without roles', async () => {
    const win = await start()
    for (const [label, command, native] of [
      ['Undo', 'undo', 'undo'],
      ['Redo', 'redo', 'redo'],
      ['Cut', 'cut', 'cut'],
      ['Copy', 'copy', 'copy'],
      ['Paste', 'paste', 'paste'],
      ['Select All', 'select-all', 'selectAll']
    ] as const) {
      const item = menuItem(electron.Menu.template, 'Edit', label)
      expect(item.role).toBeUndefined()
      item.click!(undefined as never, undefined, undefined as never)
      expect(win.webContents[native]).toHaveBeenCalledTimes(1)
      expect(engine.events.emit).toHaveBeenLastCalledWith('menu:command', { command })
    }
  })

  it('leaves Ctrl+Z/C/V to the page on Linux and Windows (accelerators shown, not registered)', async () => {
    const { menuTemplate } = await import('./menu')
    const handlers = { send: () => {}, edit: () => {}, reload: () => {} }
    for (const platform of ['linux', 'win32'] as const) {
      const edit = menuItem(menuTemplate(handlers, platform), 'Edit', 'Undo')
      expect(edit).toMatchObject({ accelerator: 'CmdOrCtrl+Z', registerAccelerator: false })
    }
    expect(menuItem(menuTemplate(handlers, 'darwin'), 'Edit', 'Copy').registerAccelerator).toBe(
      true
    )
  })
})
