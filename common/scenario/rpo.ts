// The recovery point of controller-mode groups, in messages: what acknowledged data a master switch
// cost. Two figures, both counted from the run's own records:
//
// - lost with the old master: acknowledged sends that were never consumed and were acknowledged by
//   a master the controllers later replaced. Its data past the successor's end is truncated when it
//   rejoins as a replica, so "never consumed" is final (this is the RPO of the run).
// - unreplicated at the fault: sends the failed master acknowledged before the fault at queue
//   offsets its successor did not have when it took over. The successor's takeover offset of a
//   queue is the first offset it assigned as master (from the acknowledged sends), or, when nothing
//   was written to that queue after the switch, the highest offset sampled from it around the switch.
//
// Sends are attributed to replicas by room (DR Studio's controller-mode groups have one replica per
// room; the send records the room of the broker that acknowledged it).

/** An acknowledged send to a controller-mode group. */
export interface RpoSend {
  key: string
  topic: string
  /** brokerName of the group. */
  group: string
  /** Room of the replica that acknowledged it. */
  room: string | null
  queueId: number
  queueOffset: number
  ackedAt: number
  consumed: boolean
}

/** A `master-elected` event: the group's master changed to `to` (null = none) at `at`. */
export interface MasterChange {
  group: string
  at: number
  to: string | null
  toRoom: string | null
}

/** A `replica-offsets` event: consume-queue max offsets (`topic|queueId` → next offset). */
export interface OffsetSample {
  group: string
  at: number
  trigger: 'fault' | 'elected'
  /** The master that was hit (fault) or elected (elected). */
  master: string | null
  replicas: { nodeId: string; offsets: Record<string, number> | null }[]
}

export interface RpoInput {
  sends: readonly RpoSend[]
  changes: readonly MasterChange[]
  samples: readonly OffsetSample[]
  /** How many lost keys to list per group. */
  listKeys?: number
}

export interface GroupRpo {
  group: string
  /** Times the controllers moved the master to another replica (or to none). */
  switches: number
  lostWithOldMaster: number
  unreplicatedAtFault: number
  /** Queues of a faulted master whose successor's takeover offset is unknown (not counted). */
  unknownQueues: number
  lostKeys: string[]
}

export interface RpoResult {
  lostWithOldMaster: number
  unreplicatedAtFault: number
  unknownQueues: number
  groups: GroupRpo[]
}

/** One master's time in office: from its election until the next change of master. */
export interface Term {
  master: string | null
  room: string | null
  start: number
  /** When the next master (or none) took over; Infinity while it is still master. */
  end: number
}

/** A group's terms in time order; a change that names the same master again continues its term. */
export function termsOf(changes: readonly MasterChange[], group: string): Term[] {
  const terms: Term[] = []
  for (const c of [...changes].filter((x) => x.group === group).sort((a, b) => a.at - b.at)) {
    const last = terms[terms.length - 1]
    if (last && last.master === c.to) continue
    if (last) last.end = c.at
    terms.push({ master: c.to, room: c.toRoom, start: c.at, end: Infinity })
  }
  return terms
}

/**
 * The term a send belongs to: the latest term of the replica in the send's room that began at or
 * before the acknowledgement (a replaced master that keeps acknowledging, cut off from the
 * controllers, is still in that term). Undefined when that replica was never master before.
 */
export function termOfSend(terms: readonly Term[], send: Pick<RpoSend, 'room' | 'ackedAt'>): Term | undefined {
  let found: Term | undefined
  for (const t of terms) {
    if (t.master !== null && t.room === send.room && t.start <= send.ackedAt) found = t
  }
  return found
}

const queueKey = (topic: string, queueId: number): string => `${topic}|${queueId}`

/**
 * Where the successor's data of each queue ended when it took over: the first offset it
 * acknowledged as master (exact), else the highest offset sampled from it (a faulted-master sample
 * while it was a replica, or its own sample right after the election).
 */
export function takeoverOffsets(input: {
  successor: Term
  group: string
  sends: readonly RpoSend[]
  samples: readonly OffsetSample[]
}): Map<string, number> {
  const out = new Map<string, number>()
  const { successor, group } = input
  const sampled = new Map<string, number>()
  for (const s of input.samples) {
    if (s.group !== group) continue
    // Samples taken after the successor started writing may include its new writes; a queue it
    // wrote to is decided by its first acknowledged offset below, one it never wrote to is clean.
    if (s.trigger === 'elected' && (s.master !== successor.master || s.at >= successor.end)) continue
    const r = s.replicas.find((x) => x.nodeId === successor.master)
    for (const [k, v] of Object.entries(r?.offsets ?? {})) sampled.set(k, Math.max(v, sampled.get(k) ?? -1))
  }
  const first = new Map<string, number>()
  for (const s of input.sends) {
    if (s.group !== group || s.room !== successor.room) continue
    if (s.ackedAt < successor.start || s.ackedAt >= successor.end) continue
    const k = queueKey(s.topic, s.queueId)
    first.set(k, Math.min(s.queueOffset, first.get(k) ?? Infinity))
  }
  for (const [k, v] of sampled) out.set(k, v)
  for (const [k, v] of first) out.set(k, v)
  return out
}

function groupRpo(group: string, input: RpoInput): GroupRpo {
  const terms = termsOf(input.changes, group)
  const sends = input.sends.filter((s) => s.group === group)
  const listKeys = input.listKeys ?? 20
  const lostKeys: string[] = []
  let lost = 0
  for (const s of sends) {
    if (s.consumed) continue
    const term = termOfSend(terms, s)
    if (!term || term.end === Infinity) continue
    lost++
    if (lostKeys.length < listKeys) lostKeys.push(s.key)
  }
  let unreplicated = 0
  let unknown = 0
  const counted = new Set<string>()
  for (const sample of input.samples) {
    if (sample.group !== group || sample.trigger !== 'fault' || !sample.master) continue
    const at = terms.findLastIndex((t) => t.master === sample.master && t.start <= sample.at)
    const failed = terms[at]
    // The election may be recorded just before the sample (the watcher polls while the kill ends).
    const successor = terms.slice(at + 1).find((t) => t.master !== null)
    if (!failed || !successor || successor.master === failed.master) continue
    const takeover = takeoverOffsets({ successor, group, sends, samples: input.samples })
    const missing = new Set<string>()
    for (const s of sends) {
      if (counted.has(s.key) || s.room !== failed.room || s.ackedAt > sample.at) continue
      if (termOfSend(terms, s) !== failed) continue
      const end = takeover.get(queueKey(s.topic, s.queueId))
      if (end === undefined) {
        missing.add(queueKey(s.topic, s.queueId))
        continue
      }
      if (s.queueOffset >= end) {
        counted.add(s.key)
        unreplicated++
      }
    }
    unknown += missing.size
  }
  return {
    group,
    switches: Math.max(0, terms.length - 1),
    lostWithOldMaster: lost,
    unreplicatedAtFault: unreplicated,
    unknownQueues: unknown,
    lostKeys
  }
}

/** The RPO figures of every controller-mode group that had sends or master changes. */
export function computeRpo(input: RpoInput): RpoResult {
  const names = [...new Set([...input.changes.map((c) => c.group), ...input.sends.map((s) => s.group)])].sort()
  const groups = names.map((g) => groupRpo(g, input))
  return {
    lostWithOldMaster: groups.reduce((n, g) => n + g.lostWithOldMaster, 0),
    unreplicatedAtFault: groups.reduce((n, g) => n + g.unreplicatedAtFault, 0),
    unknownQueues: groups.reduce((n, g) => n + g.unknownQueues, 0),
    groups
  }
}
