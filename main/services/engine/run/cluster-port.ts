import type { FaultAction, NetworkFault } from '../../../../common/scenario/schema'
import type { LedgerEventData } from '../../../../common/scenario/events'
import type { ObservedChange } from '../../attach/prober'

export type ChaosObjectEvent = LedgerEventData['chaos-object']

/** A server node as a run sees it (the sandbox's NodeStatus satisfies this). */
export interface ClusterNode {
  nodeId: string
  kind: string
  room: string
  state: string
  /** host:port (a management node's HTTP port). */
  address?: string
  /** An operator's node: restored only when DR Studio took it down (`restorable`). */
  attached?: boolean
  restorable?: boolean
}

/**
 * What a run needs from a running deployment: the sandbox, or a wrapper over an attached
 * cluster whose nodes it can (or cannot) act on.
 */
export interface ClusterPort {
  status(): { nodes: ClusterNode[] }
  act(nodeId: string, action: FaultAction): Promise<unknown>
  /** Network faults between rooms and nodes (the sandbox when rooms are namespaces). */
  applyNetworkFault?(step: NetworkFault): Promise<unknown>
  /**
   * Node state changes while a run records them, and an attached node's observed state (the
   * sandbox watches the operator's nodes); returns the unsubscribe.
   */
  watch?(fns: {
    nodeState?: (s: ClusterNode & { detail?: string }) => void
    observed?: (c: ObservedChange) => void
    /** A Kubernetes run's fault object took effect or healed (kubernetes/chaos-network.ts). */
    chaos?: (e: ChaosObjectEvent) => void
  }): () => void
  /** Whether network faults are available, and why not. */
  network?(): { mode: string; faultsDisabled: string | null; faults: readonly unknown[] }
  /** CPU seconds a node's process has used so far; null when it is not running or not ours. */
  cpuSeconds?(nodeId: string): number | null
  /** The controller quorum (controller mode): node, room, and the address brokers reach it on. */
  controllers?(): readonly { nodeId: string; room: string; address: string; selfId: string }[]
}

/** States a node must be brought out of before a scenario, and how. */
export function restoreAction(state: string): FaultAction | null {
  if (state === 'paused') return 'resume'
  if (['killed', 'stopped', 'down', 'failed'].includes(state)) return 'start'
  return null
}
