import type { PickState } from './pick'
import { pickByPolicy } from './pick'

/** A broker set of a topic's route, reduced to what a room-aware client decides on. */
export interface BrokerCandidate {
  brokerName: string
  /** The broker's zone (machine room); null when it was started without one. */
  room: string | null
  /** Master address; undefined when the set has no master registered. */
  masterAddr: string | undefined
  writeQueues: number
  readQueues: number
  latencyMs?: number | null
}

export type BrokerChoiceReason = 'same-room' | 'other-room' | 'last-resort'

export interface BrokerChoice {
  broker: BrokerCandidate
  reason: BrokerChoiceReason
  cursor: number
}

export interface ChooseBrokerInput extends PickState {
  room: string
  brokers: readonly BrokerCandidate[]
  /** Brokers marked faulty, with when they were isolated. */
  isolated?: ReadonlyMap<string, number>
  /** Brokers already tried (and failed) within the current send. */
  exclude?: ReadonlySet<string>
}

/**
 * Module 603: a writable master of the client's own room first, otherwise one of another room's
 * by policy. Isolated brokers are skipped; when every candidate is isolated the one isolated last
 * is tried: it was healthy most recently (the one isolated longest is the likeliest to be dead, and
 * its probe lets it back the moment it answers). Brokers already tried in this send are never
 * chosen again. Null when nothing writable is left.
 */
export function chooseBroker(input: ChooseBrokerInput): BrokerChoice | null {
  const isolated = input.isolated ?? new Map<string, number>()
  const exclude = input.exclude ?? new Set<string>()
  const writable = [...input.brokers]
    .filter((b) => b.masterAddr !== undefined && b.writeQueues > 0 && !exclude.has(b.brokerName))
    .sort((a, b) => a.brokerName.localeCompare(b.brokerName))
  const healthy = writable.filter((b) => !isolated.has(b.brokerName))
  const latency = (b: BrokerCandidate): number | null | undefined => b.latencyMs
  const same = pickByPolicy(
    healthy.filter((b) => b.room === input.room),
    input,
    latency
  )
  if (same) return { broker: same.item, reason: 'same-room', cursor: same.cursor }
  const other = pickByPolicy(
    healthy.filter((b) => b.room !== input.room),
    input,
    latency
  )
  if (other) return { broker: other.item, reason: 'other-room', cursor: other.cursor }
  let latest: BrokerCandidate | undefined
  for (const b of writable) {
    if (!latest || isolated.get(b.brokerName)! > isolated.get(latest.brokerName)!) latest = b
  }
  return latest ? { broker: latest, reason: 'last-resort', cursor: input.cursor } : null
}

/** Round-robin over the write queues of the chosen broker. */
export function chooseQueue(
  writeQueues: number,
  cursor: number
): { queueId: number; cursor: number } {
  const n = Math.max(1, Math.trunc(writeQueues))
  const c = Math.abs(Math.trunc(cursor))
  return { queueId: c % n, cursor: c + 1 }
}
