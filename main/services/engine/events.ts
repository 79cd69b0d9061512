import type { EventChannel, EventPayload } from '../../../common/contract'

type Listener<C extends EventChannel> = (payload: EventPayload<C>) => void

/** Typed engine → shell event bus; each shell forwards every channel to its transport. */
export class EngineEvents {
  private readonly listeners = new Map<EventChannel, Set<(payload: unknown) => void>>()
  private readonly any = new Set<(channel: EventChannel, payload: unknown) => void>()

  on<C extends EventChannel>(channel: C, listener: Listener<C>): () => void {
    let set = this.listeners.get(channel)
    if (!set) this.listeners.set(channel, (set = new Set()))
    const fn = listener as (payload: unknown) => void
    set.add(fn)
    return () => set.delete(fn)
  }

  /** Every event, for transports that forward all channels. */
  onAny(listener: (channel: EventChannel, payload: unknown) => void): () => void {
    this.any.add(listener)
    return () => this.any.delete(listener)
  }

  emit<C extends EventChannel>(channel: C, payload: EventPayload<C>): void {
    for (const fn of this.listeners.get(channel) ?? []) fn(payload)
    for (const fn of this.any) fn(channel, payload)
  }
}
