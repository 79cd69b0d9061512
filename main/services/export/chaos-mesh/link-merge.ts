import type { NetworkFault } from '../../../../common/scenario/schema'
import { directedPairs } from '../../network/faults'

// Chaos Mesh keeps one traffic-control state per pod: a second NetworkChaos on the same pods
// replaces the first instead of adding to it (chaos-mesh#3631, #3634). So the export never emits
// two objects for one pair of endpoints: it folds every fault active on the pair into one state,
// the way DR Studio's own link model does (later faults override the fields they name), and emits
// the objects that carry that combined state.

/** A room or a server node, as a fault names it. */
export type Endpoint = { kind: 'room' | 'node'; id: string }

/** What one direction of a pair does to packets while faults are active. */
export interface DirectedState {
  blocked: boolean
  latencyMs?: number
  jitterMs?: number
  lossPct?: number
  bandwidthMbit?: number
}

/** A fault between two endpoints (every network action but isolate and heal). */
export type PairFault = Extract<
  NetworkFault,
  { action: 'partition' | 'delay' | 'loss' | 'bandwidth' }
>

/** One Chaos Mesh object's worth of a pair's state; `to` drops/shapes packets from → to only. */
export type PairChaos =
  | { action: 'partition'; from: string; to: string; direction: 'to' | 'both' }
  | {
      action: 'netem'
      from: string
      to: string
      direction: 'to' | 'both'
      delay?: { latencyMs: number; jitterMs: number }
      lossPct?: number
    }
  | { action: 'bandwidth'; from: string; to: string; direction: 'to' | 'both'; mbit: number }

/** A pair's state before faults (a configured room link), a→b and b→a. */
export interface PairBase {
  ab: DirectedState
  ba: DirectedState
}

/** The key of an unordered pair: its ends sorted, so either order names the same pair. */
export function pairKey(x: string, y: string): string {
  return [x, y].sort().join('~')
}

/** The two directed states of the pair {a, b} after applying `faults` in order (a→b, b→a). */
export function pairStates(
  a: string,
  b: string,
  faults: readonly PairFault[],
  base: PairBase = { ab: { blocked: false }, ba: { blocked: false } }
): { ab: DirectedState; ba: DirectedState } {
  const ab: DirectedState = { ...base.ab }
  const ba: DirectedState = { ...base.ba }
  for (const f of faults) {
    for (const [src, dst] of directedPairs(f.target, f.peer, f.direction)) {
      const d = src === a && dst === b ? ab : src === b && dst === a ? ba : null
      if (!d) continue
      if (f.action === 'partition') d.blocked = true
      if (f.action === 'delay') Object.assign(d, { latencyMs: f.latencyMs, jitterMs: f.jitterMs })
      if (f.action === 'loss') d.lossPct = f.lossPct
      if (f.action === 'bandwidth') d.bandwidthMbit = f.mbit
    }
  }
  return { ab, ba }
}

function netemOf(
  d: DirectedState
): Pick<Extract<PairChaos, { action: 'netem' }>, 'delay' | 'lossPct'> | null {
  if (d.blocked) return null // dropped anyway: a cut wins over any shaping
  const delay =
    d.latencyMs !== undefined && (d.latencyMs > 0 || (d.jitterMs ?? 0) > 0)
      ? { latencyMs: d.latencyMs, jitterMs: d.jitterMs ?? 0 }
      : undefined
  const lossPct = d.lossPct !== undefined && d.lossPct > 0 ? d.lossPct : undefined
  if (!delay && lossPct === undefined) return null
  return { ...(delay ? { delay } : {}), ...(lossPct !== undefined ? { lossPct } : {}) }
}

function bandwidthOf(d: DirectedState): number | null {
  return d.blocked || d.bandwidthMbit === undefined ? null : d.bandwidthMbit
}

/**
 * One family of objects for a pair: a single `both` object when the two directions agree, else one
 * `to` object per direction that needs it.
 */
function perDirection<T>(
  a: string,
  b: string,
  ab: T | null,
  ba: T | null,
  make: (from: string, to: string, direction: 'to' | 'both', value: T) => PairChaos
): PairChaos[] {
  if (ab !== null && ba !== null && JSON.stringify(ab) === JSON.stringify(ba)) {
    return [make(a, b, 'both', ab)]
  }
  return [
    ...(ab !== null ? [make(a, b, 'to', ab)] : []),
    ...(ba !== null ? [make(b, a, 'to', ba)] : [])
  ]
}

/**
 * The Chaos Mesh objects that carry a pair's combined state: partitions (iptables), one netem
 * object carrying delay and loss together, and bandwidth (a separate tc kind, tbf). Pure.
 */
export function mergePair(a: string, b: string, ab: DirectedState, ba: DirectedState): PairChaos[] {
  return [
    ...perDirection(a, b, ab.blocked || null, ba.blocked || null, (from, to, direction) => ({
      action: 'partition',
      from,
      to,
      direction
    })),
    ...perDirection(a, b, netemOf(ab), netemOf(ba), (from, to, direction, v) => ({
      action: 'netem',
      from,
      to,
      direction,
      ...v
    })),
    ...perDirection(a, b, bandwidthOf(ab), bandwidthOf(ba), (from, to, direction, mbit) => ({
      action: 'bandwidth',
      from,
      to,
      direction,
      mbit
    }))
  ]
}

/**
 * Every pair's objects for the faults active at one moment on top of the configured links (`base`,
 * keyed by pairKey): configured pairs first, then pairs in order of first mention.
 */
export function mergeFaults(
  faults: readonly PairFault[],
  base: ReadonlyMap<string, PairBase> = new Map()
): PairChaos[] {
  const pairs = new Map<string, [string, string]>()
  for (const key of base.keys()) pairs.set(key, key.split('~') as [string, string])
  for (const f of faults) {
    const key = pairKey(f.target, f.peer)
    if (!pairs.has(key)) pairs.set(key, key.split('~') as [string, string])
  }
  return [...pairs].flatMap(([key, [a, b]]) => {
    const onPair = faults.filter((f) => pairKey(f.target, f.peer) === key)
    const { ab, ba } = pairStates(a, b, onPair, base.get(key))
    return mergePair(a, b, ab, ba)
  })
}
