import type { MenuItemConstructorOptions } from 'electron'
import { Menu, shell } from 'electron'
import type { EditMenuCommand, MenuCommand } from '../../common/contract'

/** What the menu's items do; index.ts wires them to the window, the engine and the guard. */
export interface MenuHandlers {
  /** A `menu:command` for the renderer, so buttons and menus share one code path. */
  send(command: MenuCommand): void
  /** Edit menu: the native edit on a focused text field, plus the command for the canvas. */
  edit(command: EditMenuCommand): void
  /** View ▸ Reload, after the unsaved-changes check. */
  reload(): void
}

/**
 * Edit items with our own click instead of Electron's roles: a role only runs the native edit
 * (webContents.undo() and co.), which does nothing for the canvas, so Edit ▸ Undo (and, where the
 * menu sees the key first, Ctrl+Z) never reached the canvas's own undo. On Linux and Windows the
 * accelerators are shown but not registered, so the key press goes to the page, where text fields
 * edit natively and the canvas runs its command. macOS cannot unregister them; there the click is
 * right whichever of menu and page sees the key: the native edit only touches a focused text field,
 * and the renderer ignores the command while one has focus.
 */
function editItem(
  label: string,
  accelerator: string,
  command: EditMenuCommand,
  handlers: MenuHandlers,
  isMac: boolean
): MenuItemConstructorOptions {
  return { label, accelerator, registerAccelerator: isMac, click: () => handlers.edit(command) }
}

/** The application menu as a template (built by buildMenu; tests read it). */
export function menuTemplate(
  handlers: MenuHandlers,
  platform: NodeJS.Platform = process.platform
): MenuItemConstructorOptions[] {
  const isMac = platform === 'darwin'
  const send = (command: MenuCommand) => () => handlers.send(command)
  return [
    ...(isMac ? [{ role: 'appMenu' as const }] : []),
    {
      label: 'File',
      submenu: [
        { label: 'New', accelerator: 'CmdOrCtrl+N', click: send('new') },
        { label: 'Open…', accelerator: 'CmdOrCtrl+O', click: send('open') },
        { label: 'Connect to Cluster…', click: send('connect') },
        { type: 'separator' },
        { label: 'Save', accelerator: 'CmdOrCtrl+S', click: send('save') },
        { label: 'Save As…', accelerator: 'CmdOrCtrl+Shift+S', click: send('save-as') },
        { label: 'Export…', accelerator: 'CmdOrCtrl+E', click: send('export') },
        { type: 'separator' },
        isMac ? { role: 'close' } : { role: 'quit' }
      ]
    },
    {
      label: 'Edit',
      submenu: [
        editItem('Undo', 'CmdOrCtrl+Z', 'undo', handlers, isMac),
        editItem('Redo', 'CmdOrCtrl+Shift+Z', 'redo', handlers, isMac),
        { type: 'separator' },
        editItem('Cut', 'CmdOrCtrl+X', 'cut', handlers, isMac),
        editItem('Copy', 'CmdOrCtrl+C', 'copy', handlers, isMac),
        editItem('Paste', 'CmdOrCtrl+V', 'paste', handlers, isMac),
        editItem('Select All', 'CmdOrCtrl+A', 'select-all', handlers, isMac)
      ]
    },
    {
      label: 'View',
      submenu: [
        { label: 'Zoom to Fit', accelerator: 'CmdOrCtrl+0', click: send('zoom-to-fit') },
        { label: 'Auto Layout', accelerator: 'CmdOrCtrl+L', click: send('auto-layout') },
        { type: 'separator' },
        // Not role 'reload': that reloads at once and drops unsaved changes.
        { label: 'Reload', accelerator: 'CmdOrCtrl+R', click: () => handlers.reload() },
        { role: 'toggleDevTools' },
        { type: 'separator' },
        { role: 'togglefullscreen' }
      ]
    },
    {
      label: 'Help',
      submenu: [
        { label: 'About DR Studio', click: send('about') },
        {
          label: 'Apache RocketMQ documentation',
          click: () => void shell.openExternal('https://rocketmq.apache.org/docs/')
        }
      ]
    }
  ]
}

/** Application menu; every item becomes a `menu:command` event so buttons and menus share one code path. */
export function buildMenu(handlers: MenuHandlers): Menu {
  return Menu.buildFromTemplate(menuTemplate(handlers))
}
