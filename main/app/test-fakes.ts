// Test double of the slice of Electron's main-process API the shell uses; index.test.ts mocks
// 'electron' with it, so the shell's startup, close, quit and reload paths run without the binary.
import type { MenuItemConstructorOptions } from 'electron'
import type { Mock } from 'vitest'
import { vi } from 'vitest'

type Listener = (...args: unknown[]) => void

class Emitter {
  private readonly listeners = new Map<string, Listener[]>()
  on(event: string, fn: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), fn])
    return this
  }
  once(event: string, fn: Listener): this {
    const wrapped: Listener = (...args) => {
      this.off(event, wrapped)
      fn(...args)
    }
    return this.on(event, wrapped)
  }
  off(event: string, fn: Listener): this {
    this.listeners.set(
      event,
      (this.listeners.get(event) ?? []).filter((l) => l !== fn)
    )
    return this
  }
  emit(event: string, ...args: unknown[]): void {
    for (const l of this.listeners.get(event) ?? []) l(...args)
  }
  count(event: string): number {
    return (this.listeners.get(event) ?? []).length
  }
}

/** An event whose default can be prevented, like Electron's. */
export function preventable(): { defaultPrevented: boolean; preventDefault(): void } {
  return {
    defaultPrevented: false,
    preventDefault() {
      this.defaultPrevented = true
    }
  }
}

export class FakeWebContents extends Emitter {
  sent: { channel: string; payload: unknown }[] = []
  crashed = false
  send = vi.fn((channel: string, payload: unknown) => this.sent.push({ channel, payload }))
  setWindowOpenHandler = vi.fn()
  reload = vi.fn()
  undo = vi.fn()
  redo = vi.fn()
  cut = vi.fn()
  copy = vi.fn()
  paste = vi.fn()
  selectAll = vi.fn()
  isCrashed = () => this.crashed
  /** Queries the renderer received, in order. */
  queries(): { requestId: number; save: boolean }[] {
    return this.sent
      .filter((s) => s.channel === 'document:query')
      .map((s) => s.payload as { requestId: number; save: boolean })
  }
}

export class FakeBrowserWindow extends Emitter {
  static all: FakeBrowserWindow[] = []
  static loadError: Error | null = null
  static getAllWindows = () => FakeBrowserWindow.all.filter((w) => !w.destroyed)
  webContents = new FakeWebContents()
  destroyed = false
  shown = false
  constructor(readonly options: unknown) {
    super()
    FakeBrowserWindow.all.push(this)
  }
  loadURL = vi.fn(async (_url: string) => {
    if (FakeBrowserWindow.loadError) throw FakeBrowserWindow.loadError
  })
  show = () => (this.shown = true)
  isDestroyed = () => this.destroyed
  /** Like Electron: 'close' may be prevented; otherwise the window goes and 'closed' follows. */
  close = (): void => {
    if (this.destroyed) return
    const event = preventable()
    this.emit('close', event)
    if (event.defaultPrevented) return
    this.destroyed = true
    this.emit('closed')
  }
}

export interface FakeElectron {
  app: Emitter & {
    ready: { resolve: () => void; reject: (e: Error) => void }
    whenReady: () => Promise<void>
    enableSandbox: Mock<() => void>
    getAppPath: () => string
    getPath: (name: string) => string
    exit: Mock<(code?: number) => void>
    quit: Mock<() => void>
  }
  BrowserWindow: typeof FakeBrowserWindow
  dialog: {
    showErrorBox: ReturnType<typeof vi.fn>
    showMessageBox: ReturnType<typeof vi.fn>
    showOpenDialog: ReturnType<typeof vi.fn>
    showSaveDialog: ReturnType<typeof vi.fn>
  }
  Menu: {
    template: MenuItemConstructorOptions[] | null
    buildFromTemplate: (t: MenuItemConstructorOptions[]) => unknown
    setApplicationMenu: ReturnType<typeof vi.fn>
  }
  session: {
    defaultSession: {
      webRequest: { onHeadersReceived: () => void }
      setPermissionRequestHandler: () => void
    }
  }
  ipcMain: {
    handlers: Map<string, (event: unknown, payload: unknown) => unknown>
    handle: (channel: string, fn: (event: unknown, payload: unknown) => unknown) => void
    removeHandler: (channel: string) => void
  }
  shell: { openExternal: ReturnType<typeof vi.fn> }
}

/** A fresh fake; `app.ready` settles whenReady(). */
export function createFakeElectron(): FakeElectron {
  FakeBrowserWindow.all = []
  FakeBrowserWindow.loadError = null
  let ready!: { resolve: () => void; reject: (e: Error) => void }
  const readyPromise = new Promise<void>((resolve, reject) => (ready = { resolve, reject }))
  readyPromise.catch(() => undefined)
  const app = Object.assign(new Emitter(), {
    ready,
    whenReady: () => readyPromise,
    enableSandbox: vi.fn(),
    getAppPath: () => '/opt/drstudio/resources/app.asar',
    getPath: () => '/tmp/drstudio-fake-userdata',
    exit: vi.fn<(code?: number) => void>(),
    quit: vi.fn<() => void>()
  })
  // Like Electron: quit() asks 'before-quit' (preventable), then closes every window.
  app.quit.mockImplementation(() => {
    const event = preventable()
    app.emit('before-quit', event)
    if (event.defaultPrevented) return
    for (const w of FakeBrowserWindow.getAllWindows()) w.close()
  })
  const handlers = new Map<string, (event: unknown, payload: unknown) => unknown>()
  const Menu: FakeElectron['Menu'] = {
    template: null,
    buildFromTemplate: (t) => {
      Menu.template = t
      return { template: t }
    },
    setApplicationMenu: vi.fn()
  }
  return {
    app,
    BrowserWindow: FakeBrowserWindow,
    dialog: {
      showErrorBox: vi.fn(),
      showMessageBox: vi.fn(async () => ({ response: 2 })),
      showOpenDialog: vi.fn(),
      showSaveDialog: vi.fn()
    },
    Menu,
    session: {
      defaultSession: {
        webRequest: { onHeadersReceived: () => {} },
        setPermissionRequestHandler: () => {}
      }
    },
    ipcMain: {
      handlers,
      handle: (channel, fn) => {
        if (handlers.has(channel)) throw new Error(`second handler for ${channel}`)
        handlers.set(channel, fn)
      },
      removeHandler: (channel) => void handlers.delete(channel)
    },
    shell: { openExternal: vi.fn() }
  }
}

/** Finds a menu item by its top-level menu label and item label. */
export function menuItem(
  template: MenuItemConstructorOptions[] | null,
  menu: string,
  label: string
): MenuItemConstructorOptions {
  const top = template?.find((m) => m.label === menu)
  const items = (top?.submenu ?? []) as MenuItemConstructorOptions[]
  const item = items.find((i) => i.label === label)
  if (!item) throw new Error(`no menu item ${menu} ▸ ${label}`)
  return item
}
