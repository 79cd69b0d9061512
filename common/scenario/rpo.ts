// The recovery point of controller-mode groups, in messages: what acknowledged data a master switch
// cost, counted from the run's own records:
//
// - lost with the old master (the RPO): acknowledged by a master the controllers later replaced,
//   and not in its successor's log, so never consumable after the switch (the old master truncates
//   it when it rejoins as a replica). That is a send at a queue offset at or past where the
//   successor's data of that queue ended when it took over, or one the old master acknowledged
//   after the successor had started (a split brain). The successor's end of a queue is the first
//   offset it assigned as master (from the acknowledged sends), or, when nothing was written to
//   that queue after the switch, the highest offset sampled from it around the switch; without
//   either, a send counts only if no consumer ever got it.
// - of those, never consumed: what this run's consumers missed too (a consumer that read the old
//   master before it died got the message; a replay or another group would not).
// - of those, unreplicated at the fault: acknowledged before the fault that took the master out,
//   i.e. the replication gap at that moment.
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
  /** The master epoch the controllers gave it (absent from older records). */
  epoch?: number | null
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
  /** Acknowledged by a replaced master, and not in its successor's log: never consumable after. */
  lostWithOldMaster: number
  /** Of those, the ones no consumer got before the switch either (this run's loss). */
  neverConsumed: number
  /** Of those, the ones acknowledged before the fault that took the master out. */
  unreplicatedAtFault: number
  /** Queues of a replaced master whose successor's takeover offset is unknown, with consumed sends. */
  unknownQueues: number
  lostKeys: string[]
  /** Who acknowledged what was lost: one entry per master term, most messages first. */
  lostBy: LostByMaster[]
}

/** The lost messages one master acknowledged in one term (split-brain attribution). */
export interface LostByMaster {
  /** Node id of the replica that acknowledged them as master, its room and its master epoch. */
  master: string
  room: string | null
  epoch: number | null
  messages: number
  /** Of those, acknowledged after its successor had become master: two masters at once. */
  afterSuccessor: number
  firstAckedAt: number
  lastAckedAt: number
  /** The first few by key. */
  keys: string[]
}

export interface RpoResult {
  lostWithOldMaster: number
  neverConsumed: number
  unreplicatedAtFault: number
  unknownQueues: number
  groups: GroupRpo[]
}

/** One master's time in office: from its election until the next change of master. */
export interface Term {
  master: string | null
  room: string | null
  epoch: number | null
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
    terms.push({ master: c.to, room: c.toRoom, epoch: c.epoch ?? null, start: c.at, end: Infinity })
  }
  return terms
}

/**
 * The term a send belongs to: the latest term of the replica in the send's room that began at or
 * before the acknowledgement (a replaced master that keeps acknowledging, cut off from the
 * controllers, is still in that term). Undefined when that replica was never master before.
 */
export function termOfSend(
  terms: readonly Term[],
  send: Pick<RpoSend, 'room' | 'ackedAt'>
): Term | undefined {
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
    if (s.trigger === 'elected' && (s.master !== successor.master || s.at >= successor.end))
      continue
    const r = s.replicas.find((x) => x.nodeId === successor.master)
    for (const [k, v] of Object.entries(r?.offsets ?? {}))
      sampled.set(k, Math.max(v, sampled.get(k) ?? -1))
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

/** The next term with a master other than the one at `index`: who took over from it. */
function successorOf(terms: readonly Term[], index: number): Term | undefined {
  const t = terms.slice(index + 1).find((x) => x.master !== null)
  return t && t.master !== terms[index]!.master ? t : undefined
}

/**
 * Whether a send of a replaced term survived the switch: false when its successor lacks it (or it
 * was acknowledged once the successor already wrote: a split brain), undefined when unknowable.
 */
function survived(
  s: RpoSend,
  successor: Term | undefined,
  takeover: Map<string, number> | undefined
): boolean | undefined {
  if (!successor) return s.consumed ? undefined : false
  if (s.ackedAt >= successor.start) return false
  const end = takeover?.get(queueKey(s.topic, s.queueId))
  if (end === undefined) return s.consumed ? undefined : false
  return s.queueOffset < end
}

function groupRpo(group: string, input: RpoInput): GroupRpo {
  const terms = termsOf(input.changes, group)
  const sends = input.sends.filter((s) => s.group === group)
  const listKeys = input.listKeys ?? 20
  const successors = terms.map((_, i) => successorOf(terms, i))
  const takeovers = successors.map((succ) =>
    succ ? takeoverOffsets({ successor: succ, group, sends, samples: input.samples }) : undefined
  )
  const lostKeys: string[] = []
  let lost = 0
  let neverConsumed = 0
  const unknown = new Set<string>()
  const gone = new Set<string>()
  const byTerm = new Map<Term, LostByMaster>()
  for (const s of sends) {
    const term = termOfSend(terms, s)
    if (!term || term.end === Infinity) continue
    const i = terms.indexOf(term)
    const ok = survived(s, successors[i], takeovers[i])
    if (ok === undefined) unknown.add(`${i}|${queueKey(s.topic, s.queueId)}`)
    if (ok !== false) continue
    gone.add(s.key)
    attribute(byTerm, term, s, successors[i])
    lost++
    if (!s.consumed) neverConsumed++
    if (lostKeys.length < listKeys) lostKeys.push(s.key)
  }
  // Of those, what the failed master had acknowledged before the fault (the replication gap).
  const unreplicated = new Set<string>()
  for (const sample of input.samples) {
    if (sample.group !== group || sample.trigger !== 'fault' || !sample.master) continue
    const i = terms.findLastIndex((t) => t.master === sample.master && t.start <= sample.at)
    if (i < 0) continue
    for (const s of sends) {
      if (s.ackedAt > sample.at || !gone.has(s.key) || termOfSend(terms, s) !== terms[i]) continue
      unreplicated.add(s.key)
    }
  }
  return {
    group,
    switches: Math.max(0, terms.length - 1),
    lostWithOldMaster: lost,
    neverConsumed,
    unreplicatedAtFault: unreplicated.size,
    unknownQueues: unknown.size,
    lostKeys,
    lostBy: [...byTerm.values()].sort((a, b) => b.messages - a.messages)
  }
}

/** Counts a lost send against the master term that acknowledged it. */
function attribute(
  byTerm: Map<Term, LostByMaster>,
  term: Term,
  s: RpoSend,
  successor: Term | undefined
): void {
  let e = byTerm.get(term)
  if (!e) {
    e = {
      master: term.master ?? '?',
      room: term.room,
      epoch: term.epoch,
      messages: 0,
      afterSuccessor: 0,
      firstAckedAt: s.ackedAt,
      lastAckedAt: s.ackedAt,
      keys: []
    }
    byTerm.set(term, e)
  }
  e.messages++
  if (successor && s.ackedAt >= successor.start) e.afterSuccessor++
  e.firstAckedAt = Math.min(e.firstAckedAt, s.ackedAt)
  e.lastAckedAt = Math.max(e.lastAckedAt, s.ackedAt)
  if (e.keys.length < 5) e.keys.push(s.key)
}

/** The RPO figures of every controller-mode group that had sends or master changes. */
export function computeRpo(input: RpoInput): RpoResult {
  const names = [
    ...new Set([...input.changes.map((c) => c.group), ...input.sends.map((s) => s.group)])
  ].sort()
  const groups = names.map((g) => groupRpo(g, input))
  return {
    lostWithOldMaster: groups.reduce((n, g) => n + g.lostWithOldMaster, 0),
    neverConsumed: groups.reduce((n, g) => n + g.neverConsumed, 0),
    unreplicatedAtFault: groups.reduce((n, g) => n + g.unreplicatedAtFault, 0),
    unknownQueues: groups.reduce((n, g) => n + g.unknownQueues, 0),
    groups
  }
}
