import type { FaultReport } from '../../../../common/scenario/schema'
import type { RunPlan } from '../../../../common/scenario/run-plan'
import type { Clock, ManagementNodeRef, ManagementPort } from '../../clients/room-aware/ports'
import type { LedgerReader } from '../../ledger/ledger-reader'
import type { LedgerWriter } from '../../ledger/ledger-writer'
import type { RemotingRpc } from '../../remoting/remoting-rpc'
import type { ControllerWatcher } from '../../controller/controller-watcher'
import type { ClientFleet } from '../../workers/client-fleet'
import type { WireNameServer } from '../../worker-wire/protocol'
import type { ClusterPort } from './cluster-port'

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
  Partial<
    Pick<RemotingRpc, 'getMaxOffset' | 'getBrokerHaStatus' | 'updateAndCreateSubscriptionGroup'>
  >

/** A fault applied during a run (timeline step, operator action or observation), for the report. */
export interface AppliedStep {
  report: FaultReport
  atAbs: number
}

/** Where clients find the cluster, resolved once at setup. */
export interface RunEndpoints {
  managementNodes: ManagementNodeRef[]
  nameServers: WireNameServer[]
}

/** Everything the phases share: one per run (scenario run or live run). */
export interface RunContext {
  plan: RunPlan
  fleet: ClientFleet
  ledger: LedgerWriter
  reader: LedgerReader
  cluster: ClusterPort
  management: ManagementPort
  admin: AdminRemoting
  clock: Clock
  /** Aborted when the run is stopped, cancelled or fails; every wait gives up at once. */
  signal: AbortSignal
  readyTimeoutMs: number
  endpoints: RunEndpoints
  /** Per run topic: each queue's end when the run began, where new consumer groups start. */
  startOffsets: Map<string, Record<string, number>>
  notes: string[]
  applied: AppliedStep[]
  progress(phase: RunPhase, message: string): void
  /** Controller-mode runs: the watcher of the quorum and the groups' masters (see controller-run). */
  controllers?: ControllerWatcher
}

/** Resolves after `ms`, or at once when the signal aborts. */
export { pause } from '../../clients/room-aware/ports'
