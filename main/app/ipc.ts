import type { BrowserWindow, IpcMainInvokeEvent } from 'electron'
import { ipcMain } from 'electron'
import type { z } from 'zod'
import type { ShellRequestChannel } from '../../common/contract'
import { REQUEST_CHANNELS, SHELL_REQUEST_CHANNELS, shellRequests } from '../../common/contract'
import { ContractError, createDispatcher, describeIssues } from '../../common/contract/dispatch'
import type { Engine } from '../services/engine/engine'

/** Handlers of the requests the Electron main process answers itself (a mapped type, like Handlers). */
export type ShellHandlers = {
  [C in ShellRequestChannel]: (
    input: z.output<(typeof shellRequests)[C]['input']>
  ) => Promise<z.output<(typeof shellRequests)[C]['output']>>
}

/** Only our own renderer (the bundled page or the dev server) may call the engine. */
export function isTrustedSender(event: IpcMainInvokeEvent, trustedOrigins: string[]): boolean {
  const url = event.senderFrame?.url ?? ''
  return trustedOrigins.some((origin) => url.startsWith(origin))
}

function refuse(channel: string, event: IpcMainInvokeEvent): never {
  throw new Error(`refused "${channel}" from untrusted frame ${event.senderFrame?.url ?? '?'}`)
}

/**
 * Registers one ipcMain handler per contract channel (the engine's) and per shell channel (ours),
 * and forwards every engine event to the window.
 */
export function bindIpc(
  engine: Engine,
  win: BrowserWindow,
  trustedOrigins: string[],
  shell: ShellHandlers
): () => void {
  const dispatch = createDispatcher(engine.handlers)
  for (const channel of REQUEST_CHANNELS) {
    ipcMain.handle(channel, (event, payload: unknown) => {
      if (!isTrustedSender(event, trustedOrigins)) refuse(channel, event)
      return dispatch(channel, payload)
    })
  }
  for (const channel of SHELL_REQUEST_CHANNELS) {
    ipcMain.handle(channel, (event, payload: unknown) => {
      if (!isTrustedSender(event, trustedOrigins)) refuse(channel, event)
      const parsed = shellRequests[channel].input.safeParse(payload ?? {})
      if (!parsed.success) {
        throw new ContractError(
          channel,
          `invalid payload for "${channel}": ${describeIssues(parsed.error)}`
        )
      }
      return shell[channel](parsed.data)
    })
  }
  const unsubscribe = engine.events.onAny((channel, payload) => {
    if (!win.isDestroyed()) win.webContents.send(channel, payload)
  })
  return () => {
    unsubscribe()
    for (const channel of [...REQUEST_CHANNELS, ...SHELL_REQUEST_CHANNELS])
      ipcMain.removeHandler(channel)
  }
}
