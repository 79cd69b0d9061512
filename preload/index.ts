import { contextBridge, ipcRenderer } from 'electron'
import { isEventChannel, isRequestChannel, isShellRequestChannel } from '../common/contract'
import type { DrStudioBridge } from './bridge-types'

/** The only surface the sandboxed renderer gets: invoke and on, for contract (and shell) channels only. */
const bridge: DrStudioBridge = {
  shell: 'electron',
  invoke(channel, payload) {
    if (!isRequestChannel(channel) && !isShellRequestChannel(channel))
      return Promise.reject(new Error(`unknown request channel "${channel}"`))
    return ipcRenderer.invoke(channel, payload)
  },
  on(channel, listener) {
    if (!isEventChannel(channel)) throw new Error(`unknown event channel "${channel}"`)
    const wrapped = (_event: Electron.IpcRendererEvent, payload: unknown) => listener(payload)
    ipcRenderer.on(channel, wrapped)
    return () => {
      ipcRenderer.removeListener(channel, wrapped)
    }
  }
}

contextBridge.exposeInMainWorld('drstudio', bridge)
