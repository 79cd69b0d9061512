import type { BrowserWindow, IpcMainInvokeEvent } from 'electron'
import { ipcMain } from 'electron'
import { REQUEST_CHANNELS } from '../../common/contract'
import { createDispatcher } from '../../common/contract/dispatch'
import type { Engine } from '../services/engine/engine'

/** Only our own renderer (the bundled page or the dev server) may call the engine. */
export function isTrustedSender(event: IpcMainInvokeEvent, trustedOrigins: string[]): boolean {
  const url = event.senderFrame?.url ?? ''
  return trustedOrigins.some((origin) => url.startsWith(origin))
}

/** Registers one ipcMain handler per contract channel and forwards every engine event to the window. */
export function bindIpc(engine: Engine, win: BrowserWindow, trustedOrigins: string[]): () => void {
  const dispatch = createDispatcher(engine.handlers)
  for (const channel of REQUEST_CHANNELS) {
    ipcMain.handle(channel, (event, payload: unknown) => {
      if (!isTrustedSender(event, trustedOrigins)) {
        throw new Error(
          `refused "${channel}" from untrusted frame ${event.senderFrame?.url ?? '?'}`
        )
      }
      return dispatch(channel, payload)
    })
  }
  const unsubscribe = engine.events.onAny((channel, payload) => {
    if (!win.isDestroyed()) win.webContents.send(channel, payload)
  })
  return () => {
    unsubscribe()
    for (const channel of REQUEST_CHANNELS) ipcMain.removeHandler(channel)
  }
}
