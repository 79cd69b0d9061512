import { create } from 'zustand'
import type { NetworkStatusPayload } from '../../../common/contract'
import type { BlockMode, NetworkFaultInput } from '../../../common/scenario/schema'
import { invoke } from '../lib/bridge'
import type { NetworkDialogRequest } from '../model/network-menu'
import { describeNetworkFault } from '../model/network-text'
import { toast } from './ui-store'

/** What a network menu is about: a room, or the link between two rooms. */
export type NetworkSubject = { kind: 'room'; room: string } | { kind: 'link'; a: string; b: string }

export interface NetworkMenuRequest {
  subject: NetworkSubject
  x: number
  y: number
  returnFocus?: HTMLElement | SVGElement | null
}

export interface NetworkState {
  /** The sandbox's rooms as networks (null until the engine answered once). */
  status: NetworkStatusPayload | null
  /** A fault or heal is on its way to the engine. */
  pending: boolean
  /** Drop or reject for cuts chosen straight from a menu (dialogs have their own choice). */
  blockMode: BlockMode
  menu: NetworkMenuRequest | null
  dialog: NetworkDialogRequest | null
  refresh(): Promise<void>
  /** `network:status` answers and `sandbox:network` events. */
  applyStatus(status: NetworkStatusPayload): void
  /** Applies faults in order; stops at the first the engine refuses. Resolves true if all applied. */
  act(faults: readonly NetworkFaultInput[]): Promise<boolean>
  setBlockMode(mode: BlockMode): void
  openMenu(menu: NetworkMenuRequest | null): void
  openDialog(dialog: NetworkDialogRequest | null): void
}

function describe(f: NetworkFaultInput): string {
  return describeNetworkFault(f as Record<string, unknown>) ?? f.action
}

/** The rooms' networks as the sandbox reports them, and the canvas's network menus and dialogs. */
export const useNetworkStore = create<NetworkState>()((set, get) => ({
  status: null,
  pending: false,
  blockMode: 'drop',
  menu: null,
  dialog: null,

  async refresh() {
    try {
      get().applyStatus(await invoke('network:status', {}))
    } catch {
      // An engine without the network channel yet has no network to show.
    }
  },

  applyStatus(status) {
    const prev = get().status
    // Said once per change: what is missing and how to grant it (e.g. rooms fell back to loopback).
    if (status.notice && status.notice !== prev?.notice) toast('warning', status.notice)
    set({ status })
  },

  async act(faults) {
    if (get().pending) return false
    set({ pending: true })
    try {
      for (const fault of faults) {
        try {
          get().applyStatus(await invoke('network:action', { fault }))
        } catch (err) {
          toast('error', `${describe(fault)} failed: ${(err as Error).message}`)
          return false
        }
      }
      toast('info', faults.map(describe).join('; '))
      return true
    } finally {
      set({ pending: false })
    }
  },

  setBlockMode: (blockMode) => set({ blockMode }),
  openMenu: (menu) => set({ menu }),
  openDialog: (dialog) => set({ dialog })
}))
