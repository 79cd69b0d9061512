import type { FaultReport } from '../../../../common/scenario/schema'
import type { Clock, ManagementNodeRef, ManagementPort } from '../../clients/room-aware/ports'
import type { LedgerReader } from '../../ledger/ledger-reader'
import type { LedgerWriter } from '../../ledger/ledger-writer'
import type { RemotingRpc } from '../../remoting/remoting-rpc'
import type { ClusterPort } from '../../scenario/cluster'
import type { LoadedScenario } from '../../scenario/load-scenario'
import type { ClientPlan } from '../../scenario/plan'
import type { ControllerWatcher } from '../../controller/controller-watcher'
import type { ClientFleet } from '../../workers/client-fleet'
import type { WireNameServer } from '../../workers/protocol'

export type RunPhase = 'setup' | 'settle' | 'workload' | 'restore' | 'drain' | 'report' | 'done'

/** Progress of a run, for the app's timeline and the CLI's log. */
export interface RunProgress {
  runId: number | null
  phase: RunPhase
  message: string
  atMs: number
}

/** Admin calls a run makes itself (topic creation, readiness polling). */
export type AdminRemoting = Pick<
  RemotingRpc,
  'updateAndCreateTopic' | 'getRouteInfoByTopic' | 'close'
> &
  Partial<Pick<RemotingRpc, 'getMaxOffset'>>

/** A fault applied during a run (timeline step or operator action), for the report. */
export interface AppliedStep {
  report: FaultReport
  atAbs: number
  nodeKinds: string[]
}

/** How a run names its topics and groups. */
export interface RunNames {
  topicOf(base: string): string
  groupOf(base: string): string
}

/**
 * What a run may do to the cluster's topics: a sandbox run creates a fresh topic per run; on an
 * attached cluster DR Studio only uses existing topics unless the user asked it to create them.
 */
export type TopicPolicy = 'create' | 'require-existing'

/** Where clients find the cluster, resolved once at setup. */
export interface RunEndpoints {
  managementNodes: ManagementNodeRef[]
  nameServers: WireNameServer[]
}

/** Everything the phases share: one per run (scenario run or interactive session). */
export interface RunContext {
  runId: number
  loaded: LoadedScenario
  plans: ClientPlan[]
  fleet: ClientFleet
  ledger: LedgerWriter
  reader: LedgerReader
  cluster: ClusterPort
  management: ManagementPort
  admin: AdminRemoting
  clock: Clock
  /** Aborted when the run is cancelled or fails; every wait gives up at once. */
  signal: AbortSignal
  names: RunNames
  topicPolicy: TopicPolicy
  readyTimeoutMs: number
  endpoints: RunEndpoints
  /** Per run topic: each queue's end when the run began, where new consumer groups start. */
  startOffsets: Map<string, Record<string, number>>
  notes: string[]
  applied: AppliedStep[]
  progress(phase: RunPhase, message: string): void
  /** Every fault as it is recorded (timeline step, operator action, a worker dying). */
  onFault?: (fault: FaultReport) => void
  /** Controller-mode runs: the watcher of the quorum and the groups' masters (see controller-run). */
  controllers?: ControllerWatcher
}

/** Resolves after `ms`, or at once when the signal aborts. */
export { pause } from '../../clients/room-aware/ports'
