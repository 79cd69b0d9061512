/** Undo as a list of document states (Excalidraw): past, the present, and what undo put aside. */
export interface History<T> {
  past: T[]
  present: T
  future: T[]
}

/** Enough for a long editing session without holding every drag of the day. */
export const HISTORY_LIMIT = 200

export function createHistory<T>(present: T): History<T> {
  return { past: [], present, future: [] }
}

/** Records a new present; an unchanged state (same reference) is not an undo step. */
export function pushState<T>(h: History<T>, next: T, limit = HISTORY_LIMIT): History<T> {
  if (Object.is(next, h.present)) return h
  const past = [...h.past, h.present]
  if (past.length > limit) past.splice(0, past.length - limit)
  return { past, present: next, future: [] }
}

export function undo<T>(h: History<T>): History<T> {
  if (!h.past.length) return h
  return {
    past: h.past.slice(0, -1),
    present: h.past[h.past.length - 1]!,
    future: [h.present, ...h.future]
  }
}

export function redo<T>(h: History<T>): History<T> {
  if (!h.future.length) return h
  return { past: [...h.past, h.present], present: h.future[0]!, future: h.future.slice(1) }
}

export function canUndo<T>(h: History<T>): boolean {
  return h.past.length > 0
}

export function canRedo<T>(h: History<T>): boolean {
  return h.future.length > 0
}

/** Wraps a pure reducer so every state-changing action becomes one undo step. */
export function withHistory<T, A>(
  reducer: (state: T, action: A) => T,
  limit = HISTORY_LIMIT
): (h: History<T>, action: A) => History<T> {
  return (h, action) => pushState(h, reducer(h.present, action), limit)
}
