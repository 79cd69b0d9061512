import type { SelectionPolicy } from '../../../../common/topology/schema'

/** Inputs every policy may use; the caller owns the cursor so the function stays pure. */
export interface PickState {
  policy: SelectionPolicy
  /** Round-robin position; the pick returns the next one. */
  cursor: number
  /** A number in [0, 1) drawn by the caller, for `random`. */
  random: number
}

/**
 * Picks one of `items` (already in a stable order) by policy. least-latency takes the lowest
 * known latency (unknown counts as slowest) and breaks ties by order.
 */
export function pickByPolicy<T extends NonNullable<unknown>>(
  items: readonly T[],
  state: PickState,
  latencyOf: (item: T) => number | null | undefined = () => undefined
): { item: T; cursor: number } | undefined {
  if (items.length === 0) return undefined
  switch (state.policy) {
    case 'random': {
      const r = Math.min(Math.max(state.random, 0), 0.999999999)
      return { item: items[Math.floor(r * items.length)]!, cursor: state.cursor }
    }
    case 'round-robin': {
      const c = Math.abs(Math.trunc(state.cursor))
      return { item: items[c % items.length]!, cursor: c + 1 }
    }
    case 'least-latency': {
      let best = items[0]!
      let bestLatency = latencyOf(best) ?? Infinity
      for (const it of items.slice(1)) {
        const l = latencyOf(it) ?? Infinity
        if (l < bestLatency) {
          best = it
          bestLatency = l
        }
      }
      return { item: best, cursor: state.cursor }
    }
  }
}
