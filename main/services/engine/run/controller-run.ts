import { parseRoleSelector } from '../../../../common/scenario/selectors'
import type { RunPlan } from '../../../../common/scenario/run-plan'
import type { WatchedReplica } from '../../controller/controller-watcher'
import { ControllerWatcher } from '../../controller/controller-watcher'
import type { LedgerPort } from '../../ledger/types'
import { RemotingRpc } from '../../remoting/remoting-rpc'
import type { ClusterPort } from './cluster-port'
import type { RunContext } from './run-context'

// Controller mode in a run: the watcher that records leader, masters and SyncStateSets, timeline
// targets that name the current master or leader, and the replica offsets taken when a fault hits
// a master (for the RPO figures).

/** Replicas with the address they serve on now (the cluster's status), for the watcher. */
export function watchedReplicas(plan: RunPlan, cluster: ClusterPort): WatchedReplica[] {
  const groups = new Set(plan.replicaGroups)
  return cluster.status().nodes.flatMap((n) => {
    const group = plan.brokerNameOf.get(n.nodeId)
    return group && groups.has(group) && n.address
      ? [{ nodeId: n.nodeId, room: n.room, address: n.address, group }]
      : []
  })
}

/**
 * The watcher of a run on a controller-mode topology, started at once (its first poll records the
 * initial leader and masters); undefined for other topologies or clusters without controllers.
 */
export function startControllerWatch(input: {
  plan: RunPlan
  cluster: ClusterPort
  ledger: LedgerPort
  now: () => number
}): { watcher: ControllerWatcher; close(): Promise<void> } | undefined {
  const { plan, cluster } = input
  const controllers = cluster.controllers
  if (plan.replicaGroups.length === 0 || !controllers) return undefined
  const topics = plan.topics.map((t) => ({ topic: t.name, queues: t.queues }))
  const rpc = new RemotingRpc({ connectTimeoutMs: 500, requestTimeoutMs: 1000 })
  const watcher = new ControllerWatcher(
    {
      controllers: () => controllers.call(cluster),
      replicas: () => watchedReplicas(plan, cluster),
      groups: plan.replicaGroups,
      topics: () => topics
    },
    { rpc, ledger: input.ledger, now: input.now }
  )
  void watcher.start()
  return {
    watcher,
    close: async () => {
      await watcher.stop()
      rpc.close()
    }
  }
}

/**
 * Timeline targets that name a role rather than a node: "master of group broker-a" (the replica
 * the controllers made master) and "leader controller". Resolved when the step runs; other
 * selectors pass through unchanged.
 */
export function resolveControllerTargets(
  ctx: Pick<RunContext, 'controllers'>,
  targets: readonly string[]
): { ok: true; targets: string[] } | { ok: false; error: string } {
  const out: string[] = []
  for (const t of targets) {
    const role = parseRoleSelector(t)
    if (role?.role === 'master') {
      const master = ctx.controllers?.masterOf(role.group)
      if (!master) {
        return {
          ok: false,
          error: `"${t}": the controllers report no master for ${role.group} now`
        }
      }
      out.push(master)
    } else if (role?.role === 'leader') {
      const leader = ctx.controllers?.leader()
      if (!leader) return { ok: false, error: `"${t}": no controller is leader now` }
      out.push(leader)
    } else out.push(t)
  }
  return { ok: true, targets: out }
}

/**
 * The groups whose master a fault takes out: the hit nodes, or nodes of the hit rooms. Read before
 * the fault is applied, since the view changes once the controllers react.
 */
export function mastersHit(
  ctx: Pick<RunContext, 'controllers' | 'plan'>,
  hit: { nodes: readonly string[]; rooms: readonly string[] }
): { group: string; master: string }[] {
  const watcher = ctx.controllers
  if (!watcher) return []
  return ctx.plan.replicaGroups.flatMap((group) => {
    const master = watcher.masterOf(group)
    if (!master) return []
    const inHit =
      hit.nodes.includes(master) || hit.rooms.includes(ctx.plan.roomOf.get(master) ?? '')
    return inHit ? [{ group, master }] : []
  })
}

/** Samples the surviving replicas of every group whose master the fault just hit. */
export async function sampleAfterFault(
  ctx: Pick<RunContext, 'controllers'>,
  hit: readonly { group: string; master: string }[]
): Promise<void> {
  const watcher = ctx.controllers
  if (!watcher || hit.length === 0) return
  await Promise.all(hit.map((h) => watcher.sample(h.group, 'fault', h.master)))
}
