import type { PickState } from './pick'
import { pickByPolicy } from './pick'

/** A name server as the management node reports it (`GET /v1/nameservers`). */
export interface NameServerCandidate {
  id: string
  room: string
  address: string
  /** The management node's last probe said it answers; absent = assume yes. */
  available?: boolean
  latencyMs?: number | null
}

export type NameServerChoiceReason = 'same-room' | 'other-room' | 'last-resort'

export interface NameServerChoice {
  candidate: NameServerCandidate
  reason: NameServerChoiceReason
  cursor: number
}

export interface ChooseNameServerInput extends PickState {
  room: string
  candidates: readonly NameServerCandidate[]
  /** Ids this client saw fail recently; used only when nothing else is left. */
  failed?: ReadonlySet<string>
}

/**
 * Module 602 of the method: a name server of the client's own room first; otherwise one of the
 * other rooms' by policy. Unavailable or recently failed ones are skipped unless nothing else is
 * left (then the least bad is retried rather than giving up). Null only for an empty list.
 */
export function chooseNameServer(input: ChooseNameServerInput): NameServerChoice | null {
  const failed = input.failed ?? new Set<string>()
  const sorted = [...input.candidates].sort(
    (a, b) => a.room.localeCompare(b.room) || a.id.localeCompare(b.id)
  )
  const usable = sorted.filter((c) => c.available !== false && !failed.has(c.id))
  const latency = (c: NameServerCandidate): number | null | undefined => c.latencyMs
  const tiers: [NameServerCandidate[], NameServerChoiceReason][] = [
    [usable.filter((c) => c.room === input.room), 'same-room'],
    [usable.filter((c) => c.room !== input.room), 'other-room'],
    // Nothing healthy: prefer ones only we saw fail (the management node may lag) over ones it marks down.
    [sorted.filter((c) => c.available !== false), 'last-resort'],
    [sorted, 'last-resort']
  ]
  for (const [tier, reason] of tiers) {
    const picked = pickByPolicy(tier, input, latency)
    if (picked) return { candidate: picked.item, reason, cursor: picked.cursor }
  }
  return null
}
