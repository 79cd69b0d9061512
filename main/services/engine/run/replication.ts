import type { ReplicationTraffic } from '../../../../common/scenario/schema'
import type { HaRuntimeInfo } from '../../remoting/types'
import type { ClusterNode } from './cluster-port'
import type { RunContext } from './run-context'
import { PeriodicSweep } from '../periodic-sweep'

/** One non-master broker's replication state at an instant (GET_BROKER_HA_STATUS). */
export interface ReplicaSample {
  nodeId: string
  /** The HA address of the master it copies from (brokerIP2:haListenPort), if it has one. */
  masterHaAddress: string | null
  /** How far its own commit log reaches, in bytes. */
  maxOffset: number
}

/** What sampling needs: the brokers' HA status, read-only, failing when a broker is slow. */
export type HaStatusReader = (address: string) => Promise<HaRuntimeInfo>

const SAMPLE_TIMEOUT_MS = 2000

/**
 * Every answering broker that is not a master, with the master it copies from and its commit-log
 * reach. A broker that fails to answer is left out (its traffic is then not counted).
 */
export async function sampleReplicas(
  nodes: readonly ClusterNode[],
  read: HaStatusReader
): Promise<ReplicaSample[]> {
  const brokers = nodes.filter((n) => n.kind === 'broker' && n.state === 'up' && n.address)
  const answers = await Promise.all(
    brokers.map(async (n) => {
      const info = await read(n.address!).catch(() => null)
      if (!info || info.master || !info.haClientRuntimeInfo) return null
      return {
        nodeId: n.nodeId,
        masterHaAddress: info.haClientRuntimeInfo.masterAddr ?? null,
        maxOffset: info.haClientRuntimeInfo.maxOffset
      }
    })
  )
  return answers.filter((a): a is ReplicaSample => a !== null)
}

/** A broker's HA address: RocketMQ listens for slaves on listenPort + 1 unless told otherwise. */
function haAddressOf(address: string): string {
  const i = address.lastIndexOf(':')
  return `${address.slice(0, i)}:${Number(address.slice(i + 1)) + 1}`
}

/**
 * Replication between rooms: each replica's commit-log growth from `start` to `end`, attributed
 * to the master it named at the end (else at the start), summed per direction. A replica seen
 * only once, or whose log shrank (its store was wiped), is left out.
 */
export function replicationTraffic(
  start: readonly ReplicaSample[],
  end: readonly ReplicaSample[],
  nodes: readonly ClusterNode[]
): ReplicationTraffic[] {
  const byHa = new Map(
    nodes.filter((n) => n.kind === 'broker' && n.address).map((n) => [haAddressOf(n.address!), n])
  )
  const room = new Map(nodes.map((n) => [n.nodeId, n.room]))
  const before = new Map(start.map((s) => [s.nodeId, s]))
  const flows = new Map<string, ReplicationTraffic>()
  for (const e of end) {
    const s = before.get(e.nodeId)
    const master = byHa.get(e.masterHaAddress ?? '') ?? byHa.get(s?.masterHaAddress ?? '')
    const toRoom = room.get(e.nodeId)
    if (!s || !master || !toRoom || e.maxOffset < s.maxOffset) continue
    const bytes = e.maxOffset - s.maxOffset
    const k = `${master.room}\u0000${toRoom}`
    const f = flows.get(k) ?? { fromRoom: master.room, toRoom, bytes: 0, pairs: [] }
    f.bytes += bytes
    f.pairs.push({ master: master.nodeId, slave: e.nodeId, bytes })
    flows.set(k, f)
  }
  return [...flows.values()].sort(
    (a, b) => a.fromRoom.localeCompare(b.fromRoom) || a.toRoom.localeCompare(b.toRoom)
  )
}

/** Whether the run's topology has a broker that copies from a master (a slave or a replica). */
function hasReplicas(ctx: RunContext): boolean {
  return ctx.plan.loaded.topology.rooms.some((r) => r.brokers.some((b) => b.role !== 'master'))
}

/**
 * While a run lasts, what replication moved between rooms since the first read, every `intervalMs`
 * (the canvas's links show it live); null for a topology without replicas.
 */
export function liveReplication(
  ctx: RunContext,
  emit: (links: ReplicationTraffic[], atMs: number) => void,
  intervalMs = 2000
): PeriodicSweep | null {
  if (!hasReplicas(ctx)) return null
  // Each replica from the first read that saw it (a broker may answer only after the run began).
  const first = new Map<string, ReplicaSample>()
  return new PeriodicSweep(async () => {
    const now = await replicasOfRun(ctx)
    if (!now) return
    for (const r of now) if (!first.has(r.nodeId)) first.set(r.nodeId, r)
    emit(replicationTraffic([...first.values()], now, ctx.cluster.status().nodes), ctx.clock.now())
  }, intervalMs)
}

/**
 * The run's replicas now, or null when there is nothing to read: the topology has no slave or
 * replica, or the admin client cannot ask for HA status.
 */
export async function replicasOfRun(ctx: RunContext): Promise<ReplicaSample[] | null> {
  const read = ctx.admin.getBrokerHaStatus?.bind(ctx.admin)
  if (!read || !hasReplicas(ctx)) return null
  return sampleReplicas(ctx.cluster.status().nodes, (address) =>
    read(address, { timeoutMs: SAMPLE_TIMEOUT_MS })
  )
}
