import { create } from 'zustand'
import type { NodeKind, Problem, Topology } from '../../../common/topology'
import { autoLayout } from '../model/auto-layout'
import type { DocAction, Fragment } from '../model/document-reducer'
import { copyFragment, documentReducer } from '../model/document-reducer'
import {
  KIND_PREFIX,
  allIds,
  emptyTopology,
  findRoom,
  roomIdOf,
  uniqueId,
  withCompleteLayout
} from '../model/document'
import type { History } from '../model/history'
import { canRedo, canUndo, createHistory, pushState, redo, undo } from '../model/history'
import { documentProblems, problemsById } from '../model/problems'
import { toast } from './ui-store'

export interface EditorState {
  history: History<Topology>
  /** Server-side path of the open file; null for a new or browser-uploaded document. */
  filePath: string | null
  /** File name for the header when there is no path (upload or download name). */
  fileName: string
  /** The document as last opened or saved; dirty means the present is another object. */
  saved: Topology
  selection: string[]
  problems: Problem[]
  problemIndex: Map<string, { problem: Problem; field?: string }[]>
  clipboard: Fragment | null
  pasteCount: number
  /** Set once the first document is loaded; drives `data-app-state`. */
  loaded: boolean
  load(doc: Topology, opts: { path: string | null; fileName?: string }): void
  dispatch(action: DocAction, select?: string[]): boolean
  /** Records an already computed next document as one undo step. */
  commit(next: Topology, select?: string[]): boolean
  undo(): void
  redo(): void
  select(ids: string[]): void
  addRoom(): void
  addNode(kind: NodeKind, opts?: { roomId?: string; masterId?: string }): void
  deleteSelection(): void
  copySelection(): void
  cutSelection(): void
  paste(): void
  rename(from: string, to: string): boolean
  markSaved(doc: Topology, path: string | null, fileName?: string): void
  autoLayout(): Promise<void>
}

function derive(
  history: History<Topology>,
  prev?: Pick<EditorState, 'history' | 'problems' | 'problemIndex'>
) {
  if (prev && prev.history.present === history.present) {
    return { history, problems: prev.problems, problemIndex: prev.problemIndex }
  }
  const problems = documentProblems(history.present)
  return { history, problems, problemIndex: problemsById(history.present, problems) }
}

function keepExisting(doc: Topology, ids: string[]): string[] {
  const all = allIds(doc)
  return ids.filter((id) => all.has(id))
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path
}

const initial = emptyTopology()

/**
 * The open document, its undo history, selection and clipboard.
 *
 * Every edit goes through `dispatch`, which runs the pure document reducer and records one
 * undo step when the document changed.
 */
export const useEditorStore = create<EditorState>()((set, get) => ({
  ...derive(createHistory(initial)),
  filePath: null,
  fileName: 'untitled.json',
  saved: initial,
  selection: [],
  clipboard: null,
  pasteCount: 0,
  loaded: false,

  load(raw, { path, fileName }) {
    // Materialise default positions so later edits never move nodes placed by default.
    const doc = withCompleteLayout(raw)
    set({
      ...derive(createHistory(doc)),
      saved: doc,
      filePath: path,
      fileName: fileName ?? (path ? baseName(path) : `${doc.name}.json`),
      selection: [],
      pasteCount: 0,
      loaded: true
    })
  },

  dispatch(action, select) {
    return get().commit(documentReducer(get().history.present, action), select)
  },

  commit(next, select) {
    const s = get()
    if (next === s.history.present) return false
    const history = pushState(s.history, next)
    set({
      ...derive(history, s),
      selection: keepExisting(next, select ?? s.selection)
    })
    return true
  },

  undo() {
    const s = get()
    if (!canUndo(s.history)) return
    const history = undo(s.history)
    set({ ...derive(history, s), selection: keepExisting(history.present, s.selection) })
  },

  redo() {
    const s = get()
    if (!canRedo(s.history)) return
    const history = redo(s.history)
    set({ ...derive(history, s), selection: keepExisting(history.present, s.selection) })
  },

  select(ids) {
    const cur = get().selection
    if (cur.length === ids.length && cur.every((id, i) => id === ids[i])) return
    set({ selection: ids })
  },

  addRoom() {
    const doc = get().history.present
    const id = uniqueId(allIds(doc), 'room', '')
    get().dispatch({ type: 'add-room', id }, [id])
  },

  addNode(kind, opts = {}) {
    const { history, selection } = get()
    const doc = history.present
    const roomId =
      opts.roomId ??
      selection.map((id) => roomIdOf(doc, id)).find((r): r is string => !!r) ??
      doc.rooms[0]?.id
    if (!roomId || !findRoom(doc, roomId)) {
      toast('warning', 'Add a room first: nodes live inside rooms')
      return
    }
    const id = uniqueId(allIds(doc), KIND_PREFIX[kind])
    get().dispatch(
      {
        type: 'add-node',
        kind,
        roomId,
        id,
        ...(opts.masterId ? { masterId: opts.masterId } : {})
      },
      [id]
    )
  },

  deleteSelection() {
    const { selection } = get()
    if (selection.length) get().dispatch({ type: 'delete', ids: selection }, [])
  },

  copySelection() {
    const { history, selection } = get()
    const fragment = copyFragment(history.present, selection)
    if (fragment) set({ clipboard: fragment, pasteCount: 0 })
  },

  cutSelection() {
    get().copySelection()
    get().deleteSelection()
  },

  paste() {
    const { history, clipboard, selection, pasteCount } = get()
    if (!clipboard) return
    const doc = history.present
    const before = allIds(doc)
    const targetRoomId = selection.map((id) => roomIdOf(doc, id)).find((r): r is string => !!r)
    const step = 24 * (pasteCount + 1)
    const next = documentReducer(doc, {
      type: 'paste',
      fragment: clipboard,
      ...(targetRoomId && !clipboard.rooms.length ? { targetRoomId } : {}),
      offset: { x: step, y: step }
    })
    const added = [...allIds(next)].filter((id) => !before.has(id))
    // Select pasted rooms and loose nodes, not the members inside pasted rooms.
    const roots = added.filter(
      (id) => findRoom(next, id) || !added.includes(roomIdOf(next, id) ?? '')
    )
    set({ pasteCount: pasteCount + 1 })
    get().commit(next, roots)
  },

  rename(from, to) {
    return get().dispatch(
      { type: 'rename', from, to },
      get().selection.map((id) => (id === from ? to : id))
    )
  },

  markSaved(doc, path, fileName) {
    set({
      saved: doc,
      filePath: path,
      fileName: fileName ?? (path ? baseName(path) : get().fileName)
    })
  },

  async autoLayout() {
    const doc = get().history.present
    try {
      const positions = await autoLayout(doc)
      // The user may have edited meanwhile; ids that vanished are simply ignored by the reducer.
      const live = allIds(get().history.present)
      const keep = Object.fromEntries(Object.entries(positions).filter(([id]) => live.has(id)))
      get().dispatch({ type: 'set-layout', positions: keep })
    } catch (err) {
      toast('error', `Auto layout failed: ${(err as Error).message}`)
    }
  }
}))

/** The document being edited. */
export const selectDoc = (s: EditorState): Topology => s.history.present
export const selectDirty = (s: EditorState): boolean => s.history.present !== s.saved
export const selectCanUndo = (s: EditorState): boolean => canUndo(s.history)
export const selectCanRedo = (s: EditorState): boolean => canRedo(s.history)
