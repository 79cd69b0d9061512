import type { MenuItemConstructorOptions } from 'electron'
import { Menu, shell } from 'electron'
import type { MenuCommand } from '../../common/contract'

/** Application menu; every item becomes a `menu:command` event so buttons and menus share one code path. */
export function buildMenu(send: (command: MenuCommand) => void): Menu {
  const isMac = process.platform === 'darwin'
  const template: MenuItemConstructorOptions[] = [
    ...(isMac ? [{ role: 'appMenu' as const }] : []),
    {
      label: 'File',
      submenu: [
        { label: 'New', accelerator: 'CmdOrCtrl+N', click: () => send('new') },
        { label: 'Open…', accelerator: 'CmdOrCtrl+O', click: () => send('open') },
        { label: 'Connect to Cluster…', click: () => send('connect') },
        { type: 'separator' },
        { label: 'Save', accelerator: 'CmdOrCtrl+S', click: () => send('save') },
        { label: 'Save As…', accelerator: 'CmdOrCtrl+Shift+S', click: () => send('save-as') },
        { label: 'Export…', accelerator: 'CmdOrCtrl+E', click: () => send('export') },
        { type: 'separator' },
        isMac ? { role: 'close' } : { role: 'quit' }
      ]
    },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [
        { label: 'Zoom to Fit', accelerator: 'CmdOrCtrl+0', click: () => send('zoom-to-fit') },
        { label: 'Auto Layout', accelerator: 'CmdOrCtrl+L', click: () => send('auto-layout') },
        { type: 'separator' },
        { role: 'reload' },
        { role: 'toggleDevTools' },
        { type: 'separator' },
        { role: 'togglefullscreen' }
      ]
    },
    {
      label: 'Help',
      submenu: [
        { label: 'About DR Studio', click: () => send('about') },
        {
          label: 'Apache RocketMQ documentation',
          click: () => void shell.openExternal('https://rocketmq.apache.org/docs/')
        }
      ]
    }
  ]
  return Menu.buildFromTemplate(template)
}
