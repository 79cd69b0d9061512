import { create } from 'zustand'
import type { Topology } from '../../../common/topology'
import { serializeTopology } from '../../../common/topology'
import type { EventPayload } from '../../../common/contract'
import { bridge, invoke, invokeShell } from '../lib/bridge'
import { emptyTopology, normalizeDocument } from '../model/document'
import { selectDirty, useEditorStore } from './editor-store'
import { useLiveStore } from './live-store'
import { toast, useUiStore } from './ui-store'

export interface RecentFile {
  path: string
  name: string
  openedAt: number
}

interface Opened {
  path: string | null
  name: string
  document: unknown
  problems: unknown[]
}

export interface FileState {
  recent: RecentFile[]
  busy: boolean
  /** Asks for a local file in the browser shell; set by the hidden file input at mount. */
  pickLocalFile: (() => Promise<File | null>) | null
  openDefault(): Promise<void>
  newFile(): Promise<void>
  open(): Promise<void>
  openPath(path: string): Promise<void>
  openLocalFile(file: File): Promise<void>
  /** Opens a topology the engine built (Connect to cluster…) as an untitled document. */
  openDiscovered(opened: Opened): Promise<boolean>
  save(): Promise<boolean>
  saveAs(): Promise<boolean>
  refreshRecent(): Promise<void>
  setRecent(recent: RecentFile[]): void
  setPicker(pick: (() => Promise<File | null>) | null): void
}

const FILTERS = [{ name: 'DR Studio topology', extensions: ['json'] }]

function fileNameFor(doc: Topology): string {
  const base = doc.name.trim().replace(/[^A-Za-z0-9._-]+/g, '-') || 'topology'
  return base.endsWith('.json') ? base : `${base}.json`
}

/** Browser shell save: hands the JSON to the browser as a download. */
function download(doc: Topology, fileName: string): void {
  const url = URL.createObjectURL(new Blob([serializeTopology(doc)], { type: 'application/json' }))
  const a = document.createElement('a')
  a.href = url
  a.download = fileName
  a.style.display = 'none'
  document.body.append(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

function loadOpened(opened: Opened, fileName?: string): boolean {
  const doc = normalizeDocument(opened.document)
  if (!doc) {
    toast('error', `${opened.path ?? opened.name} is not a DR Studio topology (no "rooms" array)`)
    return false
  }
  useEditorStore.getState().load(doc, {
    path: opened.path,
    ...(fileName ? { fileName } : {})
  })
  useLiveStore.getState().reset()
  useUiStore.getState().requestFit()
  if (opened.problems.length) {
    toast(
      'warning',
      `Opened with ${opened.problems.length} problem${opened.problems.length > 1 ? 's' : ''}; see Problems`
    )
  }
  return true
}

/**
 * Asks before unsaved changes are thrown away; "Save" saves first.
 * Resolves true when the caller may go on.
 */
async function confirmDiscard(action: string): Promise<boolean> {
  if (!selectDirty(useEditorStore.getState())) return true
  const answer = await useUiStore.getState().ask({
    title: 'Discard unsaved changes?',
    message: `${useEditorStore.getState().fileName} has unsaved changes. ${action} will discard them.`,
    confirmLabel: 'Discard changes',
    alternateLabel: 'Save first'
  })
  if (answer === 'alternate') return useFileStore.getState().save()
  return answer === 'confirm'
}

/** File commands (New, Open, Save, Save As, recent files) over either transport. */
export const useFileStore = create<FileState>()((set, get) => ({
  recent: [],
  busy: false,
  pickLocalFile: null,

  async openDefault() {
    try {
      loadOpened(await invoke('topology:default', {}))
    } catch (err) {
      toast('error', `Could not load the default topology: ${(err as Error).message}`)
      useEditorStore.getState().load(emptyTopology(), { path: null })
    }
  },

  async newFile() {
    if (!(await confirmDiscard('Creating a new topology'))) return
    useEditorStore.getState().load(emptyTopology(), { path: null, fileName: 'untitled.json' })
    useLiveStore.getState().reset()
  },

  async open() {
    if (!(await confirmDiscard('Opening another file'))) return
    if (bridge.transport === 'browser') {
      const file = await get().pickLocalFile?.()
      if (file) await get().openLocalFile(file)
      return
    }
    try {
      const res = await invoke('dialog:open-file', { title: 'Open topology', filters: FILTERS })
      if (res.unsupported) {
        const file = await get().pickLocalFile?.()
        if (file) await get().openLocalFile(file)
      } else if (res.path) await get().openPath(res.path)
    } catch (err) {
      toast('error', `Open failed: ${(err as Error).message}`)
    }
  },

  async openPath(path) {
    set({ busy: true })
    try {
      loadOpened(await invoke('topology:open', { path }))
    } catch (err) {
      toast('error', `Could not open ${path}: ${(err as Error).message}`)
    } finally {
      set({ busy: false })
    }
  },

  async openLocalFile(file) {
    set({ busy: true })
    try {
      const text = await file.text()
      loadOpened(await invoke('topology:parse', { text, name: file.name }), file.name)
    } catch (err) {
      toast('error', `Could not open ${file.name}: ${(err as Error).message}`)
    } finally {
      set({ busy: false })
    }
  },

  async openDiscovered(opened) {
    if (!(await confirmDiscard('Opening the discovered cluster'))) return false
    return loadOpened(opened, `${opened.name.replace(/[^A-Za-z0-9._-]+/g, '-') || 'cluster'}.json`)
  },

  async save() {
    const { filePath } = useEditorStore.getState()
    if (!filePath) return get().saveAs()
    return saveTo(filePath)
  },

  async saveAs() {
    const editor = useEditorStore.getState()
    const doc = editor.history.present
    const suggested = editor.filePath ? editor.fileName : fileNameFor(doc)
    if (bridge.transport !== 'browser') {
      try {
        const res = await invoke('dialog:save-file', {
          title: 'Save topology as',
          defaultPath: suggested,
          filters: FILTERS
        })
        if (!res.unsupported) return res.path ? saveTo(res.path) : false
      } catch (err) {
        toast('error', `Save failed: ${(err as Error).message}`)
        return false
      }
    }
    download(doc, suggested)
    editor.markSaved(doc, null, suggested)
    toast('success', `Downloaded ${suggested}`)
    return true
  },

  async refreshRecent() {
    try {
      set({ recent: await invoke('recent:list', {}) })
    } catch {
      set({ recent: [] })
    }
  },

  setRecent: (recent) => set({ recent }),
  setPicker: (pickLocalFile) => set({ pickLocalFile })
}))

async function saveTo(path: string): Promise<boolean> {
  const doc = useEditorStore.getState().history.present
  useFileStore.setState({ busy: true })
  try {
    const res = await invoke('topology:save', { path, document: doc })
    useEditorStore.getState().markSaved(doc, res.path)
    toast('success', `Saved ${res.path}`)
    return true
  } catch (err) {
    toast('error', `Could not save ${path}: ${(err as Error).message}`)
    return false
  } finally {
    useFileStore.setState({ busy: false })
  }
}

/** Used by "Open recent": same discard check as Open. */
export async function openRecent(path: string): Promise<void> {
  if (await confirmDiscard('Opening another file')) await useFileStore.getState().openPath(path)
}

/**
 * Answers the Electron main process before a close, quit or reload: whether the document has
 * unsaved changes and, when asked to, saves it first (Save As when it has no path yet). The main
 * process shows the native Save / Discard / Cancel dialog and goes ahead only when nothing stays
 * unsaved; a cancelled or failed save answers `dirty: true`, which keeps the window.
 */
export async function answerDocumentQuery(query: EventPayload<'document:query'>): Promise<void> {
  if (query.save) await useFileStore.getState().save()
  const editor = useEditorStore.getState()
  await invokeShell('document:answer', {
    requestId: query.requestId,
    dirty: selectDirty(editor),
    fileName: editor.fileName
  })
}
