import type { MenuCommand } from '../../../common/contract'
import { EDIT_MENU_COMMANDS } from '../../../common/contract/app'
import { selectDoc, useEditorStore } from '../stores/editor-store'
import { useConnectStore } from '../stores/connect-store'
import { useExportStore } from '../stores/export-store'
import { useFileStore } from '../stores/file-store'
import { useRunsStore } from '../stores/runs-store'
import { useRunStore } from '../stores/run-store'
import { toast, useUiStore } from '../stores/ui-store'
import { allIds } from '../model/document'
import { invoke } from './bridge'

/** Every command the toolbar, keyboard and application menu can run, listed once. */
export type CommandId =
  | 'new'
  | 'open'
  | 'connect'
  | 'save'
  | 'save-as'
  | 'export'
  | 'about'
  | 'undo'
  | 'redo'
  | 'copy'
  | 'cut'
  | 'paste'
  | 'duplicate'
  | 'delete'
  | 'select-all'
  | 'deselect'
  | 'add-room'
  | 'add-node-menu'
  | 'auto-layout'
  | 'zoom-to-fit'
  | 'start'
  | 'stop'
  | 'shortcuts'
  | 'runs'

export interface CommandInfo {
  label: string
  /** Shown in tooltips and the shortcuts dialog. */
  keys?: string
}

export const COMMANDS: Record<CommandId, CommandInfo> = {
  new: { label: 'New', keys: 'Ctrl+Alt+N' },
  open: { label: 'Open', keys: 'Ctrl+O' },
  connect: { label: 'Connect to cluster…' },
  save: { label: 'Save', keys: 'Ctrl+S' },
  'save-as': { label: 'Save As', keys: 'Ctrl+Shift+S' },
  export: { label: 'Export', keys: 'Ctrl+E' },
  about: { label: 'About' },
  undo: { label: 'Undo', keys: 'Ctrl+Z' },
  redo: { label: 'Redo', keys: 'Ctrl+Shift+Z' },
  copy: { label: 'Copy', keys: 'Ctrl+C' },
  cut: { label: 'Cut', keys: 'Ctrl+X' },
  paste: { label: 'Paste', keys: 'Ctrl+V' },
  duplicate: { label: 'Duplicate', keys: 'Ctrl+D' },
  delete: { label: 'Delete', keys: 'Delete' },
  'select-all': { label: 'Select all', keys: 'Ctrl+A' },
  deselect: { label: 'Clear selection', keys: 'Escape' },
  'add-room': { label: 'Add room', keys: 'R' },
  'add-node-menu': { label: 'Add node', keys: 'N' },
  'auto-layout': { label: 'Auto layout', keys: 'Shift+L or Ctrl+L' },
  'zoom-to-fit': { label: 'Zoom to fit', keys: 'Shift+1 or Ctrl+0' },
  start: { label: 'Start', keys: 'Ctrl+Enter' },
  stop: { label: 'Stop', keys: 'Ctrl+Shift+Enter' },
  shortcuts: { label: 'Keyboard shortcuts', keys: '?' },
  runs: { label: 'Runs' }
}

/** Runs a command; the single entry point for buttons, shortcuts and the application menu. */
export function runCommand(id: CommandId): void {
  const editor = useEditorStore.getState()
  const files = useFileStore.getState()
  const ui = useUiStore.getState()
  switch (id) {
    case 'new':
      void files.newFile()
      return
    case 'open':
      void files.open()
      return
    case 'connect':
      useConnectStore.getState().setOpen(true)
      return
    case 'save':
      void files.save()
      return
    case 'save-as':
      void files.saveAs()
      return
    case 'export':
      useExportStore.getState().setOpen(true)
      return
    case 'about':
      invoke('app:info', {})
        .then((i) => toast('info', `DR Studio ${i.version} (${i.shell}, ${i.platform})`))
        .catch((e: Error) => toast('error', e.message))
      return
    case 'undo':
      editor.undo()
      return
    case 'redo':
      editor.redo()
      return
    case 'copy':
      editor.copySelection()
      return
    case 'cut':
      editor.cutSelection()
      return
    case 'paste':
      editor.paste()
      return
    case 'duplicate':
      editor.copySelection()
      editor.paste()
      return
    case 'delete':
      editor.deleteSelection()
      return
    case 'select-all':
      editor.select([...allIds(selectDoc(editor))])
      return
    case 'deselect':
      editor.select([])
      return
    case 'add-room':
      editor.addRoom()
      return
    case 'add-node-menu':
      ui.setAddMenuOpen(true)
      return
    case 'auto-layout':
      void editor.autoLayout().then(() => ui.requestFit())
      return
    case 'zoom-to-fit':
      ui.requestFit()
      return
    case 'start':
      void useRunStore.getState().start()
      return
    case 'stop':
      void useRunStore.getState().stop()
      return
    case 'shortcuts':
      ui.setShortcutsOpen(true)
      return
    case 'runs':
      useRunsStore.getState().setOpen(true)
      return
  }
}

const recent = new Map<string, number>()

/**
 * Runs an application-menu command. The Electron menu and the page may both see an accelerator,
 * so the same command from the other source within 400 ms is dropped.
 */
export function runMenuCommand(
  command: MenuCommand | CommandId,
  source: 'menu' | 'keyboard'
): void {
  // The Edit menu already ran the native edit on a focused text field; the canvas must not also act.
  if (
    source === 'menu' &&
    (EDIT_MENU_COMMANDS as readonly string[]).includes(command) &&
    typeof document !== 'undefined' &&
    isEditable(document.activeElement)
  )
    return
  const now = Date.now()
  const other = recent.get(`${source === 'menu' ? 'keyboard' : 'menu'}:${command}`)
  recent.set(`${source}:${command}`, now)
  if (other !== undefined && now - other < 400) return
  runCommand(command)
}

function isEditable(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false
  return (
    target.isContentEditable ||
    target.tagName === 'INPUT' ||
    target.tagName === 'TEXTAREA' ||
    target.tagName === 'SELECT'
  )
}

/** Maps a key press to a command, or null. Exported for the shortcuts test. */
export function commandForKey(e: {
  key: string
  ctrlKey: boolean
  metaKey: boolean
  shiftKey: boolean
  altKey: boolean
}): CommandId | null {
  const mod = e.ctrlKey || e.metaKey
  const key = e.key.length === 1 ? e.key.toLowerCase() : e.key
  if (mod) {
    if (key === 'z') return e.shiftKey ? 'redo' : 'undo'
    if (key === 'y') return 'redo'
    if (key === 's') return e.shiftKey ? 'save-as' : 'save'
    if (key === 'o') return 'open'
    if (key === 'n' && e.altKey) return 'new'
    if (key === 'c') return 'copy'
    if (key === 'x') return 'cut'
    if (key === 'v') return 'paste'
    if (key === 'd') return 'duplicate'
    if (key === 'a') return 'select-all'
    if (key === 'Enter') return e.shiftKey ? 'stop' : 'start'
    // Same accelerators as the Electron application menu.
    if (key === '0') return 'zoom-to-fit'
    if (key === 'l') return 'auto-layout'
    if (key === 'e') return 'export'
    return null
  }
  if (e.altKey) return null
  if (key === 'Delete' || key === 'Backspace') return 'delete'
  if (key === 'Escape') return 'deselect'
  if (key === 'n') return 'add-node-menu'
  if (key === 'r') return 'add-room'
  if (key === 'l' && e.shiftKey) return 'auto-layout'
  if (key === '!' || (key === '1' && e.shiftKey)) return 'zoom-to-fit'
  if (key === '?') return 'shortcuts'
  return null
}

/** File commands also exist in the Electron menu, so they are deduplicated against it. */
const MENU_COMMANDS = new Set<CommandId>([
  'new',
  'open',
  'save',
  'save-as',
  'export',
  'zoom-to-fit',
  'auto-layout'
])

const FOCUS_TARGETED = new Set<CommandId>(['delete', 'copy', 'cut', 'duplicate', 'add-node-menu'])

/** Global keydown handler; text fields keep their own editing keys. */
export function handleGlobalKeyDown(e: KeyboardEvent): void {
  const id = commandForKey(e)
  if (!id) return
  const editable = isEditable(e.target)
  const mod = e.ctrlKey || e.metaKey
  // In a text field only the file and run shortcuts apply; Ctrl+Z etc. edit the field.
  if (editable && !(mod && ['save', 'save-as', 'open', 'new', 'start', 'stop'].includes(id))) return
  const ui = useUiStore.getState()
  if (ui.confirm || ui.log || ui.shortcutsOpen) return
  if (useRunsStore.getState().open || useExportStore.getState().open) return
  if (useConnectStore.getState().open) return
  if (id === 'deselect' && (ui.addMenuOpen || ui.nodeMenu)) return
  e.preventDefault()
  // Keyboard users act on the focused node even if they never pressed Enter to select it.
  const focused =
    e.target instanceof HTMLElement ? e.target.closest<HTMLElement>('.react-flow__node') : null
  if (focused?.dataset.id && FOCUS_TARGETED.has(id)) {
    const docId = focused.dataset.id.replace(/~\d+$/, '')
    const editor = useEditorStore.getState()
    if (!editor.selection.includes(docId)) editor.select([docId])
  }
  if (MENU_COMMANDS.has(id)) runMenuCommand(id, 'keyboard')
  else runCommand(id)
}
