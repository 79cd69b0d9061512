import { RequestCode } from './codes'
import type { CallOptions, RemotingInvoker } from './remoting-calls'
import { call, extInt, parseBody, toExtFields } from './remoting-calls'
import type { ReplicasInfo } from './types'
import { brokerReplicasInfoSchema, syncStateSetSchema } from './types'

/** CONTROLLER_GET_METADATA_INFO of one controller: the DLedger quorum as that controller sees it. */
export interface ControllerMetadata {
  group: string | null
  /** DLedger self id of the leader (`n0`…); null while the quorum has none. */
  leaderId: string | null
  /** The leader's controller address (its DLedger peer address, where brokers reach it). */
  leaderAddress: string | null
  isLeader: boolean
  peers: { id: string; address: string }[]
}

/** CONTROLLER_GET_REPLICA_INFO: one broker set's master and SyncStateSet (controller ids). */
export interface ReplicaInfo {
  masterBrokerId: number | null
  masterAddress: string | null
  masterEpoch: number
  syncStateSet: number[]
  syncStateSetEpoch: number
}

/** `n0:127.0.0.1:9878;n1:…;` (ControllerManager joins id and address with ':'). */
export function parseControllerPeers(text: string | undefined): { id: string; address: string }[] {
  return (text ?? '')
    .split(';')
    .map((p) => p.trim())
    .filter((p) => p.length > 0 && p.includes(':'))
    .map((p) => ({ id: p.slice(0, p.indexOf(':')), address: p.slice(p.indexOf(':') + 1) }))
}

/** CONTROLLER_GET_METADATA_INFO (1005): any controller answers with the quorum's leader. */
export async function getControllerMetadata(
  rpc: RemotingInvoker,
  controllerAddress: string,
  options: CallOptions = {}
): Promise<ControllerMetadata> {
  const res = await call(
    rpc,
    controllerAddress,
    { code: RequestCode.CONTROLLER_GET_METADATA_INFO },
    options
  )
  const f = res.extFields
  return {
    group: f.group ?? null,
    leaderId: f.controllerLeaderId || null,
    leaderAddress: f.controllerLeaderAddress || null,
    isLeader: f.isLeader === 'true',
    peers: parseControllerPeers(f.peers)
  }
}

/**
 * CONTROLLER_GET_REPLICA_INFO (1004), leader only: a follower answers CONTROLLER_NOT_LEADER (2007)
 * and a set the controllers never saw CONTROLLER_BROKER_METADATA_NOT_EXIST (2008), as RemoteErrors.
 */
export async function getReplicaInfo(
  rpc: RemotingInvoker,
  controllerAddress: string,
  brokerName: string,
  options: CallOptions = {}
): Promise<ReplicaInfo> {
  const res = await call(
    rpc,
    controllerAddress,
    {
      code: RequestCode.CONTROLLER_GET_REPLICA_INFO,
      extFields: toExtFields({ brokerName })
    },
    options
  )
  const set = parseBody(controllerAddress, res, syncStateSetSchema, 'SyncStateSet')
  const id = res.extFields.masterBrokerId
  const epoch = res.extFields.masterEpoch
  return {
    masterBrokerId: id === undefined || id === '' ? null : Number(id),
    masterAddress: res.extFields.masterAddress || null,
    masterEpoch: epoch === undefined ? 0 : extInt(controllerAddress, res, 'masterEpoch'),
    syncStateSet: [...set.syncStateSet].sort((a, b) => a - b),
    syncStateSetEpoch: set.syncStateSetEpoch
  }
}

/**
 * CONTROLLER_GET_SYNC_STATE_DATA (1006), leader only: every named broker set's master, epochs and
 * replicas split into in-sync and not, with whether the controllers think each is alive. Sets the
 * controllers do not know are absent from the result.
 */
export async function getSyncStateData(
  rpc: RemotingInvoker,
  controllerAddress: string,
  brokerNames: readonly string[],
  options: CallOptions = {}
): Promise<Record<string, ReplicasInfo>> {
  const res = await call(
    rpc,
    controllerAddress,
    {
      code: RequestCode.CONTROLLER_GET_SYNC_STATE_DATA,
      body: Buffer.from(JSON.stringify(brokerNames), 'utf8')
    },
    options
  )
  if (!res.body || res.body.length === 0) return {}
  return parseBody(controllerAddress, res, brokerReplicasInfoSchema, 'BrokerReplicasInfo')
    .replicasInfoTable
}
