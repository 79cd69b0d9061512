import type { ManagementNameServers } from './launch-discovery'
import type { ObservedChange } from '../attach/prober'
import type { RegistrationProbe } from './admin-ports'
import type { AttachedOptions } from './attached-nodes'
import type { ControllerProbe } from './controller-readiness'
import type { WriteProbe } from './write-probe'
import type { FindJavaOptions, JavaInfo } from './java'
import type { ServerTls } from './jvm'
import type { ManagementCommand } from './node-commands'
import type { NodeStatus } from './node-process'
import type { PortProbe } from './ports'
import type { ProcFs } from './procfs'
import type { ProcessSpawner } from './processes'
import type { Clock, NetProbe } from './readiness'
import type { locateRocketmqLib } from './rocketmq-lib'
import type { NetworkStatus, SandboxNetworkDeps } from './sandbox-network'

/** Progress line; `nodeId` is '' for sandbox-wide steps. */
export interface ProgressEvent {
  nodeId: string
  message: string
  at: number
}

export interface SandboxEvents extends Record<string, unknown> {
  'node-state': NodeStatus
  progress: ProgressEvent
  /** An attached node's observed state changed (up / slow / down): a run records it. */
  observed: ObservedChange
  /** Mode, links and active faults of the rooms' networks, on every change. */
  network: NetworkStatus
}

export interface SandboxStatus {
  running: boolean
  /** The engine's (recorder's) run id passed to start(), if any. */
  runId: number | null
  /** Folder of this run: `<dataDir>/sandbox/<stamp>-<runId>`. */
  runDir: string | null
  startedAt: number | null
  nodes: NodeStatus[]
}

export interface SandboxOptions {
  /** App data folder; runs live in `<dataDir>/sandbox/<runId>/<nodeId>/`. */
  dataDir: string
  /** Repository (or app resources) root: `.rocketmq/lib` and the management entry are found from it. */
  repoRoot?: string
  /** Settings override for the RocketMQ folder (a home with lib/, or lib itself). */
  rocketmqHome?: string
  /** Settings override for the JDK. */
  javaHome?: string
  /**
   * JVM class-data archives (class-archives.ts). Default: read them from beside the repo's own
   * jars when they exist; `write` makes this boot write them; `dir: null` turns them off.
   */
  classArchives?: { dir?: string | null; write?: boolean }
  /** RocketMQ's server TLS mode for the sandbox's JVMs (default `disabled`; bench:sandbox's baseline). */
  serverTls?: ServerTls
  env?: NodeJS.ProcessEnv
  spawner?: ProcessSpawner
  clock?: Clock
  portProbe?: PortProbe
  portRange?: [number, number]
  net?: NetProbe
  procFs?: ProcFs
  /** Tests inject a fake; the default runs `java -version`. */
  findJava?: (options: FindJavaOptions) => JavaInfo
  locateRocketmq?: typeof locateRocketmqLib
  registrationProbe?: RegistrationProbe
  /** Where brokers learn the name servers at launch (default: GET /v1/nameservers over HTTP). */
  managementNameServers?: ManagementNameServers
  /** Controller reads for readiness (leader elected, every controller-mode group has a master). */
  controllerProbe?: ControllerProbe
  /** The write a controller-mode group's master must acknowledge before Start calls it ready. */
  writeProbe?: WriteProbe
  managementCommand?: ManagementCommand
  /**
   * Rooms as separate networks (namespaces per room and node, link faults). Absent: every room on
   * loopback, as in unit tests; the shells pass the real lab.
   */
  network?: SandboxNetworkDeps
  /** How nodes of an operator's cluster are watched and faulted (default: remoting probes, no commands). */
  attached?: Partial<AttachedOptions>
  /** Ids of the client workers to give a place in each room's network (see workers/client-fleet). */
  workerIds?: (rooms: string[]) => { id: string; room: string }[]
  /** Per-node boot budget (default 90 s). */
  bootTimeoutMs?: number
  /**
   * SIGTERM → SIGKILL grace period on stop (default 30 s). A 5.x broker after POP traffic needs
   * ~11 s on 2 cores (its remoting event thread polls every 3 s, the POP merge and revive threads
   * finish a pass, the store waits 3 s), so 15 s cut some off mid-flush under load.
   */
  stopGraceMs?: number
  /** Heartbeat-based broker expiry (~10 s instead of 120 s); see brokerProperties. Default true. */
  fastBrokerExpiry?: boolean
  /** Old run folders kept on disk (default 3). */
  keepRuns?: number
  /** Measure broker registration in the background once brokers are up (default true). */
  trackRegistration?: boolean
  /** Kill children synchronously on exit/SIGINT/SIGTERM (default true). */
  installExitHandlers?: boolean
}
