// When a controller-mode group (brokers of role `replica`) is ready: decisions only, no I/O. The
// tracker (group-tracker.ts) reads the leader controller and sends the write probe, then asks here.
//
// Ready means: the master the leader controller names acknowledged a write, and the SyncStateSet
// it reported just before holds every replica the sandbox expects. Expected are the replicas the
// sandbox is waiting on (at Start every replica of the group it runs; after a restart the one that
// restarted) and the master. With synchronous acknowledgement (allAckInSyncStateSet true) the write
// then went through the whole set. With asynchronous acknowledgement (allAckInSyncStateSet false,
// the -async topologies) the master acknowledges alone, so the write only proves that a master
// acts; the same SyncStateSet is still expected, because only a replica in it can be elected
// (enableElectUncleanMaster false): a group whose set is short at Start is one kill away from
// having no master at all.

/** The write probe's outcome on the master the controllers named. */
export type WriteOutcome =
  | { kind: 'acked' }
  /** Stored by the master, not confirmed by its SyncStateSet in time (FLUSH_SLAVE_TIMEOUT…). */
  | { kind: 'unconfirmed'; status: string }
  /** Not stored: the broker refused it (not acting as master yet) or did not answer. */
  | { kind: 'refused'; reason: string }

/** electing: no master acts yet; syncing: a master acts, its SyncStateSet is short; ready. */
export type ReadinessPhase = 'electing' | 'syncing' | 'ready'

/** One poll of a group: what the leader controller said and what the write probe got. */
export interface GroupSample {
  group: string
  /** Node id of the master the leader names; null when it names none. */
  master: string | null
  /** Node ids in the SyncStateSet, as the leader reported it before the write. */
  inSync: readonly string[]
  /** The probe sent to the master; null when there was no master to send it to. */
  write: WriteOutcome | null
  /** Set when the controllers could not be read at all (no leader, or the leader did not answer). */
  unread?: string
}

/** The phase of a group, and what the sandbox still waits for (a progress line). */
export interface GroupVerdict {
  phase: ReadinessPhase
  waitingFor: string
}

const list = (ids: readonly string[]): string => (ids.length ? ids.join(', ') : 'nobody')

/** Replicas that must be in the SyncStateSet: the awaited ones and the master, once, sorted. */
export function expectedInSync(awaited: readonly string[], master: string | null): string[] {
  return [...new Set([...awaited, ...(master ? [master] : [])])].sort()
}

/** Decides a group's phase from one poll; `expected` comes from `expectedInSync`. */
export function groupPhase(sample: GroupSample, expected: readonly string[]): GroupVerdict {
  const { group, master, write } = sample
  if (sample.unread !== undefined) {
    return { phase: 'electing', waitingFor: `the controllers: ${sample.unread}` }
  }
  if (master === null || write === null) {
    return {
      phase: 'electing',
      waitingFor: `the controllers to elect a master of ${group}`
    }
  }
  if (write.kind === 'refused') {
    return {
      phase: 'electing',
      waitingFor: `${master}, which the controllers named master of ${group}, to accept a write (${write.reason})`
    }
  }
  const missing = expected.filter((id) => !sample.inSync.includes(id))
  const set = `SyncStateSet of ${group} (now ${list(sample.inSync)})`
  if (write.kind === 'unconfirmed') {
    return {
      phase: 'syncing',
      waitingFor:
        `${master} to have a write confirmed by its replicas (it stored one: ${write.status})` +
        (missing.length ? `, and ${list(missing)} to join the ${set}` : '')
    }
  }
  if (missing.length > 0) {
    return {
      phase: 'syncing',
      waitingFor: `${list(missing)} to join the ${set}; master ${master} acknowledges writes`
    }
  }
  return {
    phase: 'ready',
    waitingFor: `nothing: master ${master} acknowledged a write with ${list(sample.inSync)} in sync`
  }
}

/** The detail a replica keeps once its group is ready: how long it took and on what evidence. */
export function readyDetail(sample: GroupSample, readyInMs: number): string {
  return (
    `${sample.group} ready in ${(readyInMs / 1000).toFixed(1)} s: master ${sample.master} ` +
    `acknowledged a write with ${list(sample.inSync)} in its SyncStateSet`
  )
}
