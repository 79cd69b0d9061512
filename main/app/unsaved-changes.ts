import type { DocumentAnswer } from '../../common/contract'

/** What is about to throw the renderer's document away. */
export type DiscardAction = 'close' | 'reload' | 'quit'
export type UnsavedChoice = 'save' | 'discard' | 'cancel'

export interface DocumentState {
  dirty: boolean
  fileName: string
}

/** Effects of the guard, so it tests without Electron. */
export interface UnsavedGuardPorts {
  /** Sends `document:query` to the renderer; false when there is no live renderer to ask. */
  query(requestId: number, save: boolean): boolean
  /** The native Save / Discard / Cancel dialog. */
  choose(state: DocumentState, action: DiscardAction): Promise<UnsavedChoice>
  setTimer?: (fn: () => void, ms: number) => unknown
  clearTimer?: (timer: unknown) => void
}

/**
 * A renderer that has not answered whether it is dirty within this time is hung; it could not
 * save either, so the close goes ahead rather than trapping the user in a window that never closes.
 */
export const ANSWER_TIMEOUT_MS = 3000

/** The verb for the dialog: "Save changes to x.json before closing?". */
const VERB: Record<DiscardAction, string> = {
  close: 'closing',
  reload: 'reloading',
  quit: 'quitting'
}

/** Message box options for the Save / Discard / Cancel question (button order = UnsavedChoice order). */
export function unsavedDialog(state: DocumentState, action: DiscardAction) {
  return {
    type: 'warning' as const,
    title: 'Unsaved changes',
    message: `Save changes to ${state.fileName} before ${VERB[action]}?`,
    detail: 'Your changes are lost if you discard them.',
    buttons: ['Save', 'Discard', 'Cancel'],
    defaultId: 0,
    cancelId: 2,
    noLink: true
  }
}

/** Maps the dialog's button index back to a choice; anything unexpected is Cancel (the safe one). */
export function choiceOf(response: number): UnsavedChoice {
  return response === 0 ? 'save' : response === 1 ? 'discard' : 'cancel'
}

/**
 * Asks the renderer whether its document has unsaved changes before the window closes, the app
 * quits or the page reloads, and shows the native dialog when it has. One question at a time:
 * a second close while the dialog is up waits for the same answer.
 */
export class UnsavedGuard {
  private nextId = 1
  private readonly pending = new Map<number, (state: DocumentState | null) => void>()
  private inFlight: Promise<boolean> | undefined
  private readonly setTimer: (fn: () => void, ms: number) => unknown
  private readonly clearTimer: (timer: unknown) => void

  constructor(
    private readonly ports: UnsavedGuardPorts,
    private readonly answerTimeoutMs = ANSWER_TIMEOUT_MS
  ) {
    this.setTimer = ports.setTimer ?? ((fn, ms) => setTimeout(fn, ms))
    this.clearTimer = ports.clearTimer ?? ((t) => clearTimeout(t as NodeJS.Timeout))
  }

  /** The renderer's `document:answer`; answers to questions nobody waits for are ignored. */
  answer(a: DocumentAnswer): void {
    const resolve = this.pending.get(a.requestId)
    if (!resolve) return
    this.pending.delete(a.requestId)
    resolve({ dirty: a.dirty, fileName: a.fileName })
  }

  /** The renderer is gone (crashed, window destroyed): nobody will answer, nothing can be saved. */
  abandon(): void {
    for (const resolve of this.pending.values()) resolve(null)
    this.pending.clear()
  }

  /** True when the action may go ahead: nothing unsaved, saved now, or the user chose Discard. */
  confirm(action: DiscardAction): Promise<boolean> {
    this.inFlight ??= this.decide(action).finally(() => (this.inFlight = undefined))
    return this.inFlight
  }

  private async decide(action: DiscardAction): Promise<boolean> {
    const state = await this.ask(false, this.answerTimeoutMs)
    if (!state?.dirty) return true
    const choice = await this.ports.choose(state, action)
    if (choice === 'cancel') return false
    if (choice === 'discard') return true
    // Saving may open Save As and wait on the user, so no timeout; a cancelled or failed save
    // answers dirty, which keeps the window. A renderer that died meanwhile has nothing to save.
    const after = await this.ask(true, null)
    return after === null || !after.dirty
  }

  private ask(save: boolean, timeoutMs: number | null): Promise<DocumentState | null> {
    const requestId = this.nextId++
    return new Promise((resolve) => {
      let timer: unknown
      this.pending.set(requestId, (state) => {
        if (timer !== undefined) this.clearTimer(timer)
        resolve(state)
      })
      if (!this.ports.query(requestId, save)) {
        this.pending.delete(requestId)
        resolve(null)
        return
      }
      if (timeoutMs !== null) {
        timer = this.setTimer(() => {
          if (!this.pending.delete(requestId)) return
          resolve(null)
        }, timeoutMs)
      }
    })
  }
}
