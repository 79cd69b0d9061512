import type { NodeAction, NodeStatus } from '../../../common/contract'
import type { NetworkStatusPayload } from '../../../common/contract/sandbox'
import type { NetworkFault } from '../../../common/scenario/schema'
import type { Topology } from '../../../common/topology'

export interface SandboxStatus {
  running: boolean
  runId: number | null
  /** Folder of the running sandbox (its logs, the workers' logs). */
  runDir?: string | null
  startedAt: number | null
  nodes: NodeStatus[]
}

/** What the engine needs from the sandbox orchestrator. */
export interface SandboxPort {
  /** runId is absent when a scenario run boots the sandbox (the scenario has its own run). */
  start(topology: Topology, runId?: number): Promise<SandboxStatus>
  /**
   * Stops every node; `force` kills the JVMs instead of shutting them down, for a sandbox whose
   * run is over (each Start boots a fresh run folder, so a graceful shutdown saves nothing).
   */
  stop(options?: { force?: boolean }): Promise<SandboxStatus>
  status(): SandboxStatus
  act(nodeId: string, action: NodeAction): Promise<NodeStatus>
  readLog(nodeId: string, tailBytes: number): { path: string; text: string }
  /** Resolves once every name server lists every broker (the real Sandbox has it). */
  waitForRegistration?(options?: { timeoutMs?: number }): Promise<unknown>
  /** Rooms as networks (the real Sandbox): status, faults, and where client workers run. */
  network?(): NetworkStatusPayload
  applyNetworkFault?(fault: NetworkFault): Promise<unknown>
  workerPrefix?(workerId: string): string[]
  /** Lets operator commands run on attached nodes (after the user confirmed). */
  allowOperatorActions?(allow: boolean): void
  /** The controller quorum of a controller-mode topology (the real Sandbox has it). */
  controllers?(): readonly { nodeId: string; room: string; address: string; selfId: string }[]
}
