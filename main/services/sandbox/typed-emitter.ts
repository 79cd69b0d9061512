/** Listener signature for one event of an event map. */
export type Listener<T> = (payload: T) => void

/** A tiny typed emitter, so services can publish events without pulling in node:events typing holes. */
export class TypedEmitter<Events extends Record<string, unknown>> {
  private readonly listeners: { [K in keyof Events]?: Set<Listener<Events[K]>> } = {}

  /** Subscribes; returns the matching unsubscribe function. */
  on<K extends keyof Events>(event: K, listener: Listener<Events[K]>): () => void {
    const set = (this.listeners[event] ??= new Set())
    set.add(listener)
    return () => this.off(event, listener)
  }

  off<K extends keyof Events>(event: K, listener: Listener<Events[K]>): void {
    this.listeners[event]?.delete(listener)
  }

  /** Delivers synchronously; a throwing listener must not break the emitter's caller. */
  emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    for (const listener of [...(this.listeners[event] ?? [])]) {
      try {
        listener(payload)
      } catch {
        // listeners are observers; their failures are theirs
      }
    }
  }
}
