/**
 * Collects items and hands them over once per animation frame.
 *
 * Engine events can arrive hundreds of times a second; stores then update (and React renders)
 * at most once per frame.
 */
export class FrameBatcher<T> {
  private items: T[] = []
  private scheduled = false

  constructor(
    private readonly flush: (items: T[]) => void,
    private readonly schedule: (fn: () => void) => void = defaultSchedule
  ) {}

  push(item: T): void {
    this.items.push(item)
    if (this.scheduled) return
    this.scheduled = true
    this.schedule(() => {
      this.scheduled = false
      const items = this.items
      this.items = []
      if (items.length) this.flush(items)
    })
  }
}

/** Flushes due this frame; run in ONE animation-frame callback so React renders once for all stores. */
let due: (() => void)[] = []

function flushDue(): void {
  const fns = due
  due = []
  for (const fn of fns) fn()
}

function defaultSchedule(fn: () => void): void {
  // rAF stops in background tabs; the timeout keeps state current there, at a lower rate.
  if (typeof requestAnimationFrame === 'function' && document.visibilityState === 'visible') {
    due.push(fn)
    if (due.length === 1) requestAnimationFrame(flushDue)
  } else setTimeout(fn, 100)
}
