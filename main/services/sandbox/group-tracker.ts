import type { ControllerEndpoint, ControllerProbe } from './controller-readiness'
import { findLeader } from './controller-readiness'
import { SandboxError } from './errors'
import type { GroupSample, GroupVerdict } from './group-readiness'
import { expectedInSync, groupPhase, readyDetail } from './group-readiness'
import type { NodeProcess } from './node-process'
import { seconds } from './node-process'
import type { Clock } from './readiness'
import type { WriteProbe } from './write-probe'

/** The side of a sandbox node the tracker reads and moves (NodeProcess has it). */
export type TrackedReplica = Pick<
  NodeProcess,
  | 'id'
  | 'node'
  | 'host'
  | 'port'
  | 'state'
  | 'detail'
  | 'readyInMs'
  | 'jvmUpAt'
  | 'logFile'
  | 'setState'
>

/** What the tracker reads through and reports to; the sandbox supplies its own clients. */
export interface GroupTrackerDeps {
  probe: () => ControllerProbe
  writes: () => WriteProbe
  controllers: () => readonly ControllerEndpoint[]
  /** Every node of the sandbox, to name the addresses the controllers report. */
  nodes: () => readonly Pick<NodeProcess, 'id' | 'host' | 'port'>[]
  clock: Clock
  progress: (nodeId: string, message: string) => void
  intervalMs?: number
}

export interface TrackOptions {
  timeoutMs: number
  signal: AbortSignal
  /**
   * Start: a replica that dies, or a group not ready in time, fails the boot. After a restart the
   * tracker gives up quietly instead, leaving the replica's state and saying so.
   */
  strict: boolean
}

const WAITING = new Set(['electing', 'syncing'])

/**
 * Moves controller-mode replicas from `electing` through `syncing` to `up` as their group gets
 * ready (see group-readiness.ts): each poll reads the leader controller's SyncStateSet data, then
 * sends one message to the master it names. Resolves once every given replica is ready.
 */
export async function trackGroups(
  deps: GroupTrackerDeps,
  replicas: readonly TrackedReplica[],
  opts: TrackOptions
): Promise<void> {
  const { clock } = deps
  // From each replica's JVM up (an early boot wave waits longer), else from now.
  const since = new Map(replicas.map((rt) => [rt.id, rt.jvmUpAt ?? clock.now()]))
  const deadline = clock.now() + opts.timeoutMs
  const said = new Map<string, string>()
  let pending = [...replicas]
  let last = new Map<string, GroupVerdict>()
  for (;;) {
    pending = stillWaiting(pending, opts.strict)
    if (pending.length === 0) return
    if (opts.signal.aborted) throw opts.signal.reason
    const samples = await sampleGroups(deps, groupsOf(pending))
    if (opts.signal.aborted) throw opts.signal.reason
    last = new Map()
    for (const sample of samples) {
      const members = pending.filter((rt) => groupOf(rt) === sample.group)
      const verdict = groupPhase(
        sample,
        expectedInSync(
          members.map((rt) => rt.id),
          sample.master
        )
      )
      last.set(sample.group, verdict)
      apply(deps, members, sample, verdict, since, said)
    }
    if (clock.now() >= deadline) return giveUp(deps, pending, last, opts)
    await clock.sleep(deps.intervalMs ?? 250)
  }
}

function groupOf(rt: TrackedReplica): string {
  return rt.node.kind === 'broker' ? rt.node.spec.brokerName : rt.id
}

function groupsOf(replicas: readonly TrackedReplica[]): string[] {
  return [...new Set(replicas.map(groupOf))]
}

/** Replicas still electing or syncing; at Start one that died instead fails the boot. */
function stillWaiting(replicas: readonly TrackedReplica[], strict: boolean): TrackedReplica[] {
  const out: TrackedReplica[] = []
  for (const rt of replicas) {
    if (WAITING.has(rt.state)) out.push(rt)
    else if (strict && rt.state !== 'up') {
      throw new SandboxError(
        'boot-exit',
        `Broker ${rt.id} went ${rt.state} while ${groupOf(rt)} was getting ready` +
          `${rt.detail ? ` (${rt.detail})` : ''}. Check its log: ${rt.logFile}`,
        { nodeId: rt.id }
      )
    }
  }
  return out
}

/** One read of the leader, then one write per group that has a master (in parallel). */
async function sampleGroups(deps: GroupTrackerDeps, groups: string[]): Promise<GroupSample[]> {
  const probe = deps.probe()
  const found = await findLeader(probe, deps.controllers())
  let data: Awaited<ReturnType<ControllerProbe['syncStateData']>> = {}
  let unread: string | undefined
  if (!found) unread = 'no controller names a leader'
  else {
    try {
      data = await probe.syncStateData(found.leader.address, groups)
    } catch (e) {
      unread = `leader ${found.leader.nodeId} did not answer (${(e as Error).message})`
    }
  }
  const byAddress = new Map(deps.nodes().map((rt) => [`${rt.host}:${rt.port}`, rt.id]))
  const idOf = (address: string): string => byAddress.get(address) ?? address
  return Promise.all(
    groups.map(async (group): Promise<GroupSample> => {
      if (unread !== undefined) return { group, master: null, inSync: [], write: null, unread }
      const info = data[group]
      const address = info?.masterAddress ?? null
      return {
        group,
        master: address ? idOf(address) : null,
        inSync: (info?.inSyncReplicas ?? []).map((r) => idOf(r.brokerAddress)).sort(),
        write: address ? await deps.writes().send(address, group) : null
      }
    })
  )
}

/** Sets the replicas' state and says what changed; ready ones go up with the time it took. */
function apply(
  deps: GroupTrackerDeps,
  members: readonly TrackedReplica[],
  sample: GroupSample,
  verdict: GroupVerdict,
  since: ReadonlyMap<string, number>,
  said: Map<string, string>
): void {
  const now = deps.clock.now()
  // A replica killed or stopped while the poll was in flight keeps what happened to it.
  const live = members.filter((rt) => WAITING.has(rt.state))
  if (live.length === 0) return
  if (verdict.phase === 'ready') {
    let longest = 0
    for (const rt of live) {
      const ms = now - (since.get(rt.id) ?? now)
      longest = Math.max(longest, ms)
      rt.readyInMs = ms
      rt.setState('up', readyDetail(sample, ms))
    }
    deps.progress('', readyDetail(sample, longest))
    said.delete(sample.group)
    return
  }
  const detail = `waiting for ${verdict.waitingFor}`
  for (const rt of live) {
    if (rt.state !== verdict.phase || rt.detail !== detail) rt.setState(verdict.phase, detail)
  }
  const line = `${sample.group} ${verdict.phase}: waiting for ${verdict.waitingFor}`
  if (said.get(sample.group) !== line) {
    said.set(sample.group, line)
    deps.progress('', line)
  }
}

/** At Start a group not ready in time fails the boot; after a restart the replica keeps its state. */
function giveUp(
  deps: GroupTrackerDeps,
  pending: readonly TrackedReplica[],
  last: ReadonlyMap<string, GroupVerdict>,
  opts: TrackOptions
): void {
  const waited = seconds(opts.timeoutMs)
  const why = groupsOf(pending)
    .map(
      (g) =>
        `${g} ${last.get(g)?.phase ?? 'electing'}, waiting for ${last.get(g)?.waitingFor ?? 'the controllers'}`
    )
    .join('; ')
  if (opts.strict) {
    throw new SandboxError(
      'boot-timeout',
      `Controller-mode groups not ready after ${waited}: ${why}. A master is ready once it ` +
        'acknowledges a write, a replica once it caught up over the master’s HA port and the ' +
        "controllers added it to the SyncStateSet; check the brokers' logs " +
        `(${pending.map((rt) => rt.logFile).join(', ')}) and the controllers'.`
    )
  }
  for (const rt of pending.filter((x) => WAITING.has(x.state))) {
    rt.setState(rt.state, `${rt.detail ?? ''} (DR Studio stopped waiting after ${waited})`.trim())
  }
  deps.progress('', `stopped waiting after ${waited}: ${why}`)
}
