import { join } from 'node:path'
import type { ControllerMode } from '../../../common/topology/schema'
import { controllerModeSchema } from '../../../common/topology/schema'
import type { PropValue } from './prop-value'

// Properties of the controller quorum and of controller-mode brokers. Every key was checked against
// rocketmq-all-5.3.3: ControllerConfig (controller and embedded-in-namesrv), NamesrvConfig
// (enableControllerInNamesrv), BrokerConfig and MessageStoreConfig (broker side).

/** One member of the DLedger quorum as every controller and broker is told about it. */
export interface ControllerPeer {
  nodeId: string
  /** DLedger self id. DLedgerConfig splits each peer at its first '-', so ids must not contain one. */
  selfId: string
  host: string
  port: number
}

/** The quorum in document order, ids n0, n1, … (node ids like `ns-1` would break the peer list). */
export function controllerPeers(
  members: readonly { nodeId: string; host: string; port: number }[]
): ControllerPeer[] {
  return members.map((m, i) => ({ ...m, selfId: `n${i}` }))
}

/** controllerDLegerPeers: `n0-host:port;n1-host:port;…`. */
export function peersText(peers: readonly ControllerPeer[]): string {
  return peers.map((p) => `${p.selfId}-${p.host}:${p.port}`).join(';')
}

/** Broker-side controllerAddr: every controller, `;`-separated (the broker finds the leader). */
export function controllerAddrText(peers: readonly ControllerPeer[]): string {
  return peers.map((p) => `${p.host}:${p.port}`).join(';')
}

export interface ControllerConfigInput {
  self: ControllerPeer
  peers: readonly ControllerPeer[]
  nodeDir: string
  mode?: ControllerMode
  /** Scan for silent brokers every second instead of every 5 s (hung-master detection). */
  fastScan: boolean
}

/** The ControllerConfig keys shared by a standalone controller and one embedded in a name server. */
function quorumKeys(input: ControllerConfigInput): Record<string, PropValue> {
  const mode = input.mode ?? controllerModeSchema.parse({})
  return {
    controllerDLegerGroup: mode.group,
    controllerDLegerPeers: peersText(input.peers),
    controllerDLegerSelfId: input.self.selfId,
    controllerStorePath: join(input.nodeDir, 'controller-store'),
    // The DLedger entry file is 1 GiB by default; controller events are tiny.
    mappedFileSize: 16 * 1024 * 1024,
    enableElectUncleanMaster: mode.enableElectUncleanMaster,
    notifyBrokerRoleChanged: true,
    scanNotActiveBrokerInterval: input.fastScan ? 1000 : 5000,
    scanInactiveMasterInterval: SCAN_INACTIVE_MASTER_MS
  }
}

/**
 * controller.properties for `ControllerStartup -c`. Its remoting server is the DLedger server, which
 * listens on the peer port of its self id whatever listenPort says; listenPort is set to the same.
 */
export function controllerProperties(input: ControllerConfigInput): Record<string, PropValue> {
  return {
    listenPort: input.self.port,
    bindAddress: input.self.host,
    configStorePath: join(input.nodeDir, 'controller', 'controller.properties'),
    ...quorumKeys(input)
  }
}

/**
 * Extra namesrv.properties keys for a controller embedded in a name server. NamesrvStartup applies
 * the whole file to ControllerConfig too, so scanNotActiveBrokerInterval serves both.
 */
export function embeddedControllerProperties(
  input: ControllerConfigInput
): Record<string, PropValue> {
  return { enableControllerInNamesrv: true, ...quorumKeys(input) }
}

export interface ReplicaConfigInput {
  peers: readonly ControllerPeer[]
  mode?: ControllerMode
  electionPriority?: number
}

/** How often a controller-mode replica reports its offset to its master (RocketMQ: 5000). */
export const HA_REPORT_INTERVAL_MS = 1000

/**
 * How often a controller-mode broker asks which controller leads (RocketMQ: 10000). It heartbeats
 * only to the leader it last heard of, and a new leader elects a master for a group whose master
 * it never heard from only once the group's other replicas heartbeat to it: with the default, a
 * master killed with the leader controller left its group masterless for 12-13 s (three clean
 * clones, 2026-12-04), of which up to 10 s were brokers not knowing the new leader.
 */
export const CONTROLLER_METADATA_PERIOD_MS = 2000

/** How often a new leader controller looks for groups whose master is silent (RocketMQ: 5000). */
export const SCAN_INACTIVE_MASTER_MS = 2000

/**
 * broker.conf keys of a controller-mode replica: no fixed id or role (quick-start's brokerId=-1,
 * brokerRole=SLAVE; the controllers assign an id and elect the master), every controller's address,
 * and how writes are acknowledged. A master of a controller-mode set runs as SYNC_MASTER, so with
 * allAckInSyncStateSet=false and inSyncReplicas=1 it acknowledges before any replica has the write.
 */
export function replicaProperties(input: ReplicaConfigInput): Record<string, PropValue> {
  const mode = input.mode ?? controllerModeSchema.parse({})
  return {
    brokerId: -1,
    brokerRole: 'SLAVE',
    enableControllerMode: true,
    controllerAddr: controllerAddrText(input.peers),
    allAckInSyncStateSet: mode.allAckInSyncStateSet,
    inSyncReplicas: mode.inSyncReplicas,
    minInSyncReplicas: mode.minInSyncReplicas,
    enableAutoInSyncReplicas: mode.enableAutoInSyncReplicas,
    controllerHeartBeatTimeoutMills: mode.heartbeatTimeoutMs,
    // A replica that (re)joins a master reports its offset only after this interval (5 s by
    // default), and the master takes it into the SyncStateSet only on such a report: every rejoin
    // waited 5-10 s for nothing (AutoSwitchHAClient). The master still drops the HA connection
    // after haHousekeepingInterval (20 s) of silence, so a loaded host loses nothing here.
    haSendHeartbeatInterval: HA_REPORT_INTERVAL_MS,
    syncControllerMetadataPeriod: CONTROLLER_METADATA_PERIOD_MS,
    ...(input.electionPriority !== undefined
      ? { brokerElectionPriority: input.electionPriority }
      : {})
  }
}
