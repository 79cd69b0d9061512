import { create } from 'zustand'
import type { ConnectionState } from '../lib/ws-client'

export type ToastLevel = 'info' | 'success' | 'warning' | 'error'

export interface Toast {
  id: number
  level: ToastLevel
  message: string
  /** Failover toasts are grouped so a burst does not flood the screen. */
  kind?: 'failover'
}

export interface ConfirmRequest {
  title: string
  message: string
  confirmLabel: string
  /** An extra choice such as "Save first"; resolves to 'alternate'. */
  alternateLabel?: string
  resolve: (answer: 'confirm' | 'alternate' | 'cancel') => void
}

export interface LogView {
  nodeId: string
  path: string
  text: string
  loading: boolean
  error?: string
}

export interface NodeMenu {
  nodeId: string
  x: number
  y: number
  /** Where focus returns when the menu closes. */
  returnFocus?: HTMLElement | null
}

interface UiState {
  toasts: Toast[]
  confirm: ConfirmRequest | null
  log: LogView | null
  nodeMenu: NodeMenu | null
  addMenuOpen: boolean
  shortcutsOpen: boolean
  connection: ConnectionState
  /** Bumped to ask the canvas to fit the view (optionally to some ids). */
  fitRequest: { tick: number; ids?: string[] }
  toast(level: ToastLevel, message: string, kind?: Toast['kind']): void
  dismissToast(id: number): void
  ask(req: Omit<ConfirmRequest, 'resolve'>): Promise<'confirm' | 'alternate' | 'cancel'>
  answer(a: 'confirm' | 'alternate' | 'cancel'): void
  setLog(log: LogView | null): void
  openNodeMenu(menu: NodeMenu | null): void
  setAddMenuOpen(open: boolean): void
  setShortcutsOpen(open: boolean): void
  setConnection(s: ConnectionState): void
  requestFit(ids?: string[]): void
}

let nextToastId = 1
const MAX_TOASTS = 5
const TOAST_MS: Record<ToastLevel, number> = {
  info: 4000,
  success: 3000,
  warning: 6000,
  error: 9000
}

/** Transient UI: toasts, dialogs, menus and the connection indicator. */
export const useUiStore = create<UiState>()((set, get) => ({
  toasts: [],
  confirm: null,
  log: null,
  nodeMenu: null,
  addMenuOpen: false,
  shortcutsOpen: false,
  connection: 'open',
  fitRequest: { tick: 0 },
  toast(level, message, kind) {
    const id = nextToastId++
    set((s) => ({
      toasts: [...s.toasts, { id, level, message, ...(kind ? { kind } : {}) }].slice(-MAX_TOASTS)
    }))
    if (typeof window !== 'undefined') {
      window.setTimeout(() => get().dismissToast(id), kind === 'failover' ? 4000 : TOAST_MS[level])
    }
  },
  dismissToast(id) {
    set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) }))
  },
  ask(req) {
    get().confirm?.resolve('cancel')
    return new Promise((resolve) => set({ confirm: { ...req, resolve } }))
  },
  answer(a) {
    const c = get().confirm
    set({ confirm: null })
    c?.resolve(a)
  },
  setLog: (log) => set({ log }),
  openNodeMenu: (nodeMenu) => set({ nodeMenu }),
  setAddMenuOpen: (addMenuOpen) => set({ addMenuOpen }),
  setShortcutsOpen: (shortcutsOpen) => set({ shortcutsOpen }),
  setConnection: (connection) => set({ connection }),
  requestFit: (ids) =>
    set((s) => ({ fitRequest: { tick: s.fitRequest.tick + 1, ...(ids ? { ids } : {}) } }))
}))

/** Shortcut for store actions and non-React code. */
export function toast(level: ToastLevel, message: string): void {
  useUiStore.getState().toast(level, message)
}
