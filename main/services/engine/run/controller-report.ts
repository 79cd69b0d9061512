import { computeRpo } from '../../../../common/scenario/rpo'
import type { ControllerReport } from '../../../../common/scenario/schema'
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

/** The controller section of a report: a pure function of the run's controller snapshot. */
export function controllerReportOf(snap: ControllerSnapshot, t0: number): ControllerReport {
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
      lostKeys: g.lostKeys
    })),
    // The first leader the watcher saw is not a change.
    leaderChanges: Math.max(0, leaders.length - 1),
    elections
  }
}
