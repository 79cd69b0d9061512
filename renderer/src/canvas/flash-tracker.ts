import { create } from 'zustand'
import { FLASH_MS, useLiveStore } from '../stores/live-store'
import { useReplayStore } from '../stores/replay-store'

const NONE: ReadonlySet<string> = new Set()

/**
 * Clients whose edges flash right now (a failover less than FLASH_MS ago). One timer for all edges
 * instead of one effect and timer per edge; edges select `ids.has(clientId)`.
 */
export const useFlashing = create<{ ids: ReadonlySet<string> }>()(() => ({ ids: NONE }))

let timer: ReturnType<typeof setTimeout> | null = null

/** Recomputes the flashing set from the live store and wakes up again at the next expiry. */
export function refreshFlashing(now = Date.now()): void {
  if (timer) clearTimeout(timer)
  timer = null
  // A replay flashes by its own clock (see the replay store).
  if (useReplayStore.getState().active) return
  const ids = new Set<string>()
  let next = Infinity
  for (const [clientId, at] of Object.entries(useLiveStore.getState().flashes)) {
    const left = at + FLASH_MS - now
    if (left <= 0) continue
    ids.add(clientId)
    next = Math.min(next, left)
  }
  const prev = useFlashing.getState().ids
  const same = prev.size === ids.size && [...ids].every((id) => prev.has(id))
  if (!same) useFlashing.setState({ ids: ids.size ? ids : NONE })
  if (next < Infinity) timer = setTimeout(() => refreshFlashing(), next)
}

useLiveStore.subscribe((s, prev) => {
  if (s.flashes !== prev.flashes) refreshFlashing()
})

useReplayStore.subscribe((s, prev) => {
  if (s.active && s.flashing !== prev.flashing) useFlashing.setState({ ids: s.flashing })
  else if (!s.active && prev.active) refreshFlashing()
})
