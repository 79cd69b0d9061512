import { listNodes, topicsOf } from '../../../../common/topology/model'
import { parseRoleSelector } from '../../../../common/scenario/selectors'
import type { Topology } from '../../../../common/topology/schema'
import type { WatchedReplica } from '../../controller/controller-watcher'
import { ControllerWatcher } from '../../controller/controller-watcher'
import type { LedgerPort } from '../../ledger/types'
import { RemotingRpc } from '../../remoting/remoting-rpc'
import type { ClusterPort } from '../../scenario/cluster'
import type { ClientPlan } from '../../scenario/plan'
import type { RunContext, RunNames } from './run-context'

// Controller mode in a run: the watcher that records leader, masters and SyncStateSets, timeline
// targets that name the current master or leader, and the replica offsets taken when a fault hits
// a master (for the RPO figures).

/** brokerName of every controller-mode group (replica brokers) of a topology. */
export function replicaGroups(topology: Topology): string[] {
  return [
    ...new Set(
      listNodes(topology).flatMap((n) =>
        n.kind === 'broker' && n.spec.role === 'replica' ? [n.spec.brokerName] : []
      )
    )
  ]
}

/** Replicas with the address they serve on now (the cluster's status), for the watcher. */
export function watchedReplicas(topology: Topology, cluster: ClusterPort): WatchedReplica[] {
  const specs = new Map(
    listNodes(topology).flatMap((n) =>
      n.kind === 'broker' && n.spec.role === 'replica' ? [[n.id, n.spec.brokerName] as const] : []
    )
  )
  return cluster
    .status()
    .nodes.filter((n) => specs.has(n.nodeId) && n.address)
    .map((n) => ({
      nodeId: n.nodeId,
      room: n.room,
      address: n.address!,
      group: specs.get(n.nodeId)!
    }))
}

/**
 * The watcher of a run on a controller-mode topology, started at once (its first poll records the
 * initial leader and masters); undefined for other topologies or clusters without controllers.
 */
export function startControllerWatch(input: {
  topology: Topology
  cluster: ClusterPort
  plans: readonly ClientPlan[]
  names: RunNames
  ledger: LedgerPort
  now: () => number
}): { watcher: ControllerWatcher; close(): Promise<void> } | undefined {
  const groups = replicaGroups(input.topology)
  const controllers = input.cluster.controllers
  if (groups.length === 0 || !controllers) return undefined
  const queues = new Map(topicsOf(input.topology).map((t) => [t.name, t.queues]))
  const topics = [...new Set(input.plans.map((p) => p.topic))].map((t) => ({
    topic: input.names.topicOf(t),
    queues: queues.get(t) ?? 4
  }))
  const rpc = new RemotingRpc({ connectTimeoutMs: 500, requestTimeoutMs: 1000 })
  const watcher = new ControllerWatcher(
    {
      controllers: () => controllers.call(input.cluster),
      replicas: () => watchedReplicas(input.topology, input.cluster),
      groups,
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
  ctx: Pick<RunContext, 'controllers' | 'loaded'>,
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
  ctx: Pick<RunContext, 'controllers' | 'loaded'>,
  hit: { nodes: readonly string[]; rooms: readonly string[] }
): { group: string; master: string }[] {
  const watcher = ctx.controllers
  if (!watcher) return []
  const roomOf = new Map(listNodes(ctx.loaded.topology).map((n) => [n.id, n.room]))
  return replicaGroups(ctx.loaded.topology).flatMap((group) => {
    const master = watcher.masterOf(group)
    if (!master) return []
    const inHit = hit.nodes.includes(master) || hit.rooms.includes(roomOf.get(master) ?? '')
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
