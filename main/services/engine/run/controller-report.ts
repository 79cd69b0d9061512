import { computeRpo } from '../../../../common/scenario/rpo'
import type { ControllerReport, Takeover } from '../../../../common/scenario/schema'
import type { ControllerSnapshot } from '../../ledger/run-snapshot'

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null)

/** Most replicas of each group acting as master at once (`masters-observed` events). */
export function maxMastersOf(events: ControllerSnapshot['events']): Record<string, number> {
  const out: Record<string, number> = {}
  for (const e of events) {
    if (e.kind !== 'masters-observed') continue
    const group = String(e.data.group)
    const n = Array.isArray(e.data.masters) ? e.data.masters.length : 0
    out[group] = Math.max(out[group] ?? 0, n)
  }
  return out
}

/**
 * The controller section of a report: a pure function of the run's controller snapshot (and the
 * topology's replica rooms, for faults that cut a room off).
 */
export function controllerReportOf(
  snap: ControllerSnapshot,
  t0: number,
  rooms: Readonly<Record<string, string>> = {}
): ControllerReport {
  const rpo = computeRpo({ sends: snap.sends, changes: snap.changes, samples: snap.samples })
  const maxMasters = maxMastersOf(snap.events)
  const elections = snap.events
    .filter((e) => e.kind === 'master-elected' && e.data.from !== null)
    .map((e) => ({
      atMs: e.atMs - t0,
      group: String(e.data.group),
      from: str(e.data.from),
      fromRoom: str(e.data.fromRoom),
      to: str(e.data.to),
      toRoom: str(e.data.toRoom),
      epoch: typeof e.data.epoch === 'number' ? e.data.epoch : 0
    }))
  const leaders = snap.events.filter((e) => e.kind === 'controller-leader-changed')
  return {
    rpo: {
      lostWithOldMaster: rpo.lostWithOldMaster,
      neverConsumed: rpo.neverConsumed,
      unreplicatedAtFault: rpo.unreplicatedAtFault,
      unknownQueues: rpo.unknownQueues,
      note:
        'lost with the old master: acknowledged by a master that was replaced, at queue offsets its successor ' +
        'did not have when it took over (its first offset as master, else its sampled max offset) or after the ' +
        'successor had started; never consumable after the switch. neverConsumed: of those, not consumed before ' +
        'the switch either. unreplicatedAtFault: of those, acknowledged before the fault' +
        (rpo.unknownQueues > 0
          ? `; ${rpo.unknownQueues} queue(s) had no successor offset, so only their never-consumed sends count`
          : '')
    },
    groups: rpo.groups.map((g) => ({
      group: g.group,
      switches: g.switches,
      maxMasters: maxMasters[g.group] ?? 0,
      lostWithOldMaster: g.lostWithOldMaster,
      neverConsumed: g.neverConsumed,
      unreplicatedAtFault: g.unreplicatedAtFault,
      lostKeys: g.lostKeys,
      lostBy: g.lostBy.map(({ firstAckedAt, lastAckedAt, ...m }) => ({
        ...m,
        firstAtMs: Math.round(firstAckedAt - t0),
        lastAtMs: Math.round(lastAckedAt - t0)
      }))
    })),
    // The first leader the watcher saw is not a change.
    leaderChanges: Math.max(0, leaders.length - 1),
    elections,
    takeovers: takeoversOf(snap.events, t0, rooms)
  }
}

// ---------------------------------------------------------------- takeovers

/** Faults that take a master out of service (a slow or lossy link does not). */
const TAKES_OUT: Record<string, string> = {
  kill: 'killed',
  stop: 'stopped',
  pause: 'paused',
  isolate: 'cut off (isolate)',
  partition: 'cut off (partition)',
  'observed-down': 'seen down'
}
/** Actions that bring a node back. */
const BRINGS_BACK = new Set(['start', 'restart', 'resume', 'observed-up'])

type Event = ControllerSnapshot['events'][number]

const strs = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []
const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`

/**
 * Time order, and a fault before anything else of its millisecond: a fault is stamped when its
 * action starts and written after it ends, so what the controllers did meanwhile sits before it
 * in insertion order, and even at its very millisecond it is a consequence.
 */
function inTimeOrder(events: readonly Event[]): Event[] {
  const rank = (e: Event): number => (e.kind === 'fault' ? 0 : 1)
  return [...events].sort((a, b) => a.atMs - b.atMs || rank(a) - rank(b) || a.id - b.id)
}

/** Rooms of replicas as the topology gives them, completed by what master-elected events say. */
function roomsOf(
  events: readonly Event[],
  given: Readonly<Record<string, string>>
): Map<string, string> {
  const rooms = new Map(Object.entries(given))
  for (const e of events) {
    if (e.kind !== 'master-elected') continue
    for (const [id, room] of [
      [e.data.from, e.data.fromRoom],
      [e.data.to, e.data.toRoom]
    ]) {
      if (typeof id === 'string' && typeof room === 'string' && !rooms.has(id)) rooms.set(id, room)
    }
  }
  return rooms
}

/** What each node is out of service by at a moment: its own fault, or a cut of its room. */
class Outages {
  private readonly nodes = new Map<string, string>()
  private readonly cuts = new Map<string, string>()

  constructor(private readonly rooms: ReadonlyMap<string, string>) {}

  apply(action: string, named: readonly string[]): void {
    if (action === 'heal') {
      if (named.length === 0) this.cuts.clear()
      for (const n of named) this.cuts.delete(n)
    } else if (action === 'isolate' || action === 'partition') {
      for (const n of named) this.cuts.set(n, TAKES_OUT[action]!)
    } else if (TAKES_OUT[action]) {
      for (const n of named) this.nodes.set(n, TAKES_OUT[action])
    } else if (BRINGS_BACK.has(action)) {
      for (const n of named) this.nodes.delete(n)
    }
  }

  of(id: string): string | undefined {
    return this.nodes.get(id) ?? this.cuts.get(id) ?? this.cuts.get(this.rooms.get(id) ?? '')
  }
}

/** A takeover found at its fault, before the controllers' answer is looked up. */
interface Hit {
  index: number
  atMs: number
  group: string
  fault: string
  master: string
  inSync: string[] | null
  /** The leader controller when it was taken out by the same fault. */
  leaderHit: string | null
  /** Other replicas of the set that were out at the fault, with how. */
  outOthers: [string, string][]
}

/** Walks the run once: every fault that took a group's master out, with the state at that moment. */
function hitsOf(sorted: readonly Event[], rooms: ReadonlyMap<string, string>): Hit[] {
  const master = new Map<string, string | null>()
  const inSync = new Map<string, string[]>()
  const outages = new Outages(rooms)
  let leader: string | null = null
  const hits: Hit[] = []
  sorted.forEach((e, index) => {
    const group = str(e.data.group) ?? ''
    if (e.kind === 'master-elected') master.set(group, str(e.data.to))
    else if (e.kind === 'sync-state-set-changed') inSync.set(group, strs(e.data.inSync))
    else if (e.kind === 'controller-leader-changed') leader = str(e.data.to)
    if (e.kind !== 'fault' || e.data.ok === false) return
    const action = String(e.data.action)
    const named = strs(e.data.nodes)
    outages.apply(action, named)
    if (!TAKES_OUT[action]) return
    for (const [g, m] of master) {
      if (!m || !(named.includes(m) || named.includes(rooms.get(m) ?? '\0'))) continue
      const set = inSync.get(g) ?? null
      hits.push({
        index,
        atMs: e.atMs,
        group: g,
        fault: action,
        master: m,
        inSync: set,
        leaderHit:
          leader && (named.includes(leader) || named.includes(rooms.get(leader) ?? '\0'))
            ? leader
            : null,
        outOthers: (set ?? []).flatMap((id) => {
          const how = id === m ? undefined : outages.of(id)
          return how ? [[id, how] as [string, string]] : []
        })
      })
    }
  })
  return hits
}

/** Why the controllers made no other replica master after a hit, from what the ledger shows. */
function whyNoNewMaster(hit: Hit, after: readonly Event[]): string {
  const { group, master } = hit
  const verb = TAKES_OUT[hit.fault] ?? hit.fault
  const elected = after.filter((e) => e.kind === 'master-elected' && e.data.group === group)
  let why: string
  const others = hit.inSync?.filter((id) => id !== master) ?? null
  if (hit.inSync === null || others === null) {
    why = `the controllers never reported the SyncStateSet of ${group} before its master ${master} was ${verb}`
  } else if (others.length === 0) {
    why =
      `no replica in the SyncStateSet of ${group} when its master ${master} was ${verb}; ` +
      `SyncStateSet was [${hit.inSync.join(', ')}]`
  } else if (hit.outOthers.length === others.length) {
    why =
      `every other replica in the SyncStateSet of ${group} was out when its master ${master} was ${verb}: ` +
      hit.outOthers.map(([id, how]) => `${id} ${how}`).join(', ')
  } else if (
    hit.leaderHit &&
    !after.some((e) => e.kind === 'controller-leader-changed' && str(e.data.to) !== null)
  ) {
    why = `the controllers had no leader: ${hit.leaderHit} was ${verb} with the master and no other controller took over`
  } else if (elected.length === 0) {
    why = `the controllers kept naming ${master} master of ${group} after it was ${verb}`
  } else {
    const alive = others.filter((id) => !hit.outOthers.some(([o]) => o === id))
    why =
      `the controllers named no other master although ${alive.join(', ')} ${alive.length > 1 ? 'were' : 'was'} ` +
      `in its SyncStateSet [${hit.inSync.join(', ')}]`
  }
  const none = elected.find((e) => str(e.data.to) === null)
  const back = elected.find((e) => str(e.data.to) === master)
  if (none) why += `; no master from ${secs(none.atMs - hit.atMs)} after the fault`
  if (back) why += `; ${master} was master again ${secs(back.atMs - hit.atMs)} after the fault`
  return why
}

/**
 * Every fault that took out a controller-mode group's master, and the first other replica the
 * controllers made master before the next such fault (or why none), from the run's controller
 * and fault events alone. `rooms` maps replica ids to rooms (the topology's); atMs from `t0`.
 */
export function takeoversOf(
  events: readonly Event[],
  t0: number,
  rooms: Readonly<Record<string, string>> = {}
): Takeover[] {
  const sorted = inTimeOrder(events)
  const roomOf = roomsOf(sorted, rooms)
  const hits = hitsOf(sorted, roomOf)
  return hits.map((hit) => {
    const next = hits.find((h) => h.group === hit.group && h.index > hit.index)?.index
    const after = sorted.slice(hit.index + 1, next)
    const elected = after.find(
      (e) =>
        e.kind === 'master-elected' &&
        e.data.group === hit.group &&
        str(e.data.to) !== null &&
        str(e.data.to) !== hit.master
    )
    const to = elected ? str(elected.data.to) : null
    return {
      group: hit.group,
      atMs: hit.atMs - t0,
      fault: hit.fault,
      master: hit.master,
      masterRoom: roomOf.get(hit.master) ?? null,
      inSync: hit.inSync,
      to,
      toRoom: elected ? (str(elected.data.toRoom) ?? roomOf.get(to!) ?? null) : null,
      afterMs: elected ? elected.atMs - hit.atMs : null,
      reason: elected ? null : whyNoNewMaster(hit, after)
    }
  })
}
