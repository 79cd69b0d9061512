/** What the preload exposes as `window.drstudio`; the renderer types its Electron transport with it. */
export interface DrStudioBridge {
  shell: 'electron'
  invoke(channel: string, payload: unknown): Promise<unknown>
  on(channel: string, listener: (payload: unknown) => void): () => void
}
