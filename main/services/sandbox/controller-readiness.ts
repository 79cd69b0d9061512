import type { ControllerMetadata } from '../remoting/remoting-rpc'
import { RemotingRpc } from '../remoting/remoting-rpc'
import type { ReplicasInfo } from '../remoting/types'
import { SandboxError } from './errors'
import type { Clock } from './readiness'

/** A controller of the quorum as the sandbox and the run see it. */
export interface ControllerEndpoint {
  /** The topology node that runs it: a standalone controller, or the name server embedding it. */
  nodeId: string
  room: string
  /** host:port brokers reach it on (its DLedger peer address). */
  address: string
  /** DLedger self id (n0, n1, …). */
  selfId: string
  embedded: boolean
}

/** The two controller reads readiness needs; a port so sandbox unit tests need no controllers. */
export interface ControllerProbe {
  metadata(address: string): Promise<ControllerMetadata>
  /** Leader only. */
  syncStateData(
    leaderAddress: string,
    brokerNames: readonly string[]
  ): Promise<Record<string, ReplicasInfo>>
  close?(): void
}

/** CONTROLLER_GET_METADATA_INFO and CONTROLLER_GET_SYNC_STATE_DATA through DR Studio's remoting client. */
export function remotingControllerProbe(
  client: RemotingRpc = new RemotingRpc({ connectTimeoutMs: 1000, requestTimeoutMs: 2000 })
): ControllerProbe {
  return {
    metadata: (address) => client.getControllerMetadata(address, { timeoutMs: 2000 }),
    syncStateData: (leader, names) => client.getSyncStateData(leader, names, { timeoutMs: 2000 }),
    close: () => client.close()
  }
}

interface WaitInput {
  probe: ControllerProbe
  controllers: readonly ControllerEndpoint[]
  clock: Clock
  timeoutMs: number
  intervalMs?: number
  signal?: AbortSignal
}

/** Asks every controller who leads; the first answer naming a leader wins. */
export async function findLeader(
  probe: ControllerProbe,
  controllers: readonly ControllerEndpoint[]
): Promise<{ leader: ControllerEndpoint; metadata: ControllerMetadata } | null> {
  const answers = await Promise.all(
    controllers.map((c) => probe.metadata(c.address).catch(() => null))
  )
  for (const m of answers) {
    if (!m?.leaderAddress) continue
    const leader = controllers.find((c) => c.address === m.leaderAddress)
    if (leader) return { leader, metadata: m }
  }
  return null
}

/** Readiness of the quorum: some controller reports an elected leader. */
export async function waitForControllerLeader(input: WaitInput): Promise<ControllerEndpoint> {
  const deadline = input.clock.now() + input.timeoutMs
  for (;;) {
    const found = await findLeader(input.probe, input.controllers)
    if (found) return found.leader
    if (input.signal?.aborted) throw input.signal.reason
    if (input.clock.now() >= deadline) {
      throw new SandboxError(
        'boot-timeout',
        `The controllers (${input.controllers.map((c) => `${c.nodeId} ${c.address}`).join(', ')}) elected no leader within ` +
          `${Math.round(input.timeoutMs / 1000)} s. A quorum needs a majority of them up and reaching each other's ` +
          'DLedger ports; check their logs (logs/rocketmqlogs/ in each node folder).'
      )
    }
    await input.clock.sleep(input.intervalMs ?? 250)
  }
}

/**
 * Readiness of the controller-mode groups: every one has an elected master. Returns each group's
 * replica info as the leader last reported it.
 */
export async function waitForMasters(
  input: WaitInput & { groups: readonly string[] }
): Promise<Record<string, ReplicasInfo>> {
  const deadline = input.clock.now() + input.timeoutMs
  let last: Record<string, ReplicasInfo> = {}
  let why = 'no controller named a leader'
  for (;;) {
    const found = await findLeader(input.probe, input.controllers)
    if (found) {
      try {
        last = await input.probe.syncStateData(found.leader.address, input.groups)
        const missing = input.groups.filter((g) => !last[g]?.masterAddress)
        if (missing.length === 0) return last
        why = `no master yet for ${missing.join(', ')}`
      } catch (e) {
        why = `leader ${found.leader.nodeId}: ${(e as Error).message}`
      }
    }
    if (input.signal?.aborted) throw input.signal.reason
    if (input.clock.now() >= deadline) {
      throw new SandboxError(
        'boot-timeout',
        `The controller-mode broker groups have no master after ${Math.round(input.timeoutMs / 1000)} s (${why}). ` +
          "Check the brokers' logs for registration with the controllers (controllerAddr) and their controller's log."
      )
    }
    await input.clock.sleep(input.intervalMs ?? 250)
  }
}

/**
 * Brokers in two boot waves: every broker except the controller-mode replicas that a preferred
 * (lower electionPriority) replica of their group outranks, then those. The controllers make the
 * first replica that registers master, so booting the preferred one first puts the initial master
 * where the topology asks; later elections follow the priorities by themselves.
 */
export function electionWaves<T extends { node: { kind: string; spec: unknown } }>(
  brokers: readonly T[]
): [T[], T[]] {
  const prio = (b: T): number | undefined => {
    const spec = b.node.spec as { role?: string; brokerName?: string; electionPriority?: number }
    return b.node.kind === 'broker' && spec.role === 'replica' ? spec.electionPriority : undefined
  }
  const best = new Map<string, number>()
  for (const b of brokers) {
    const p = prio(b)
    const name = (b.node.spec as { brokerName?: string }).brokerName ?? ''
    if (p !== undefined) best.set(name, Math.min(p, best.get(name) ?? Infinity))
  }
  const later = (b: T): boolean => {
    const p = prio(b)
    const name = (b.node.spec as { brokerName?: string }).brokerName ?? ''
    return p !== undefined && p > best.get(name)!
  }
  return [brokers.filter((b) => !later(b)), brokers.filter(later)]
}
