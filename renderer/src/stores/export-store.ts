import { create } from 'zustand'
import { bridge, invoke } from '../lib/bridge'
import { selectDoc, useEditorStore } from './editor-store'
import { toast } from './ui-store'

export interface ExportState {
  open: boolean
  outDir: string
  busy: boolean
  error: string | null
  setOpen(open: boolean): void
  setOutDir(dir: string): void
  chooseDirectory(): Promise<void>
  exportNow(): Promise<void>
}

const OUT_DIR_KEY = 'drstudio.exportDir'

function rememberedDir(): string {
  try {
    return window.localStorage.getItem(OUT_DIR_KEY) ?? ''
  } catch {
    return ''
  }
}

/** File › Export: the output folder dialog and the `topology:export` call. */
export const useExportStore = create<ExportState>()((set, get) => ({
  open: false,
  outDir: '',
  busy: false,
  error: null,
  setOpen(open) {
    set({ open, error: null, ...(open && !get().outDir ? { outDir: rememberedDir() } : {}) })
  },

  setOutDir(outDir) {
    set({ outDir, error: null })
  },

  async chooseDirectory() {
    try {
      const r = await invoke('dialog:choose-directory', {
        title: 'Export production configuration to'
      })
      if (r.path) set({ outDir: r.path, error: null })
    } catch (err) {
      set({ error: (err as Error).message })
    }
  },

  async exportNow() {
    const outDir = get().outDir.trim()
    if (!outDir) {
      set({ error: 'Choose an output folder' })
      return
    }
    set({ busy: true, error: null })
    try {
      const document = selectDoc(useEditorStore.getState())
      const r = await invoke('topology:export', { document, outDir })
      try {
        window.localStorage.setItem(OUT_DIR_KEY, outDir)
      } catch {
        // Remembering the folder is a convenience only.
      }
      set({ open: false })
      toast(
        'success',
        `Exported ${r.files.length} file${r.files.length === 1 ? '' : 's'} to ${r.outDir}`
      )
    } catch (err) {
      set({ error: (err as Error).message })
    } finally {
      set({ busy: false })
    }
  }
}))

/** Whether the folder is typed (browser shell) or picked with a native dialog (Electron). */
export function nativeDirectoryPicker(): boolean {
  return bridge.transport === 'electron'
}
