import { afterEach, describe, expect, it } from 'vitest'
import { RequestCode, ResponseCode } from './codes'
import { BadResponseError, RemoteError } from './errors'
import { parseFastjson } from './fastjson'
import { parseControllerPeers, RemotingRpc } from './remoting-rpc'
import { startStubServer, stubReply, type StubBehaviour, type StubServer } from './stub-server'
import { brokerReplicasInfoSchema, syncStateSetSchema } from './types'

// Bodies and headers as rocketmq-all-5.3.3's controller writes them: GetMetaDataResponseHeader
// fields as ext fields (null fields absent), SyncStateSet and BrokerReplicasInfo as fastjson.

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.()
})

async function stub(onRequest: StubBehaviour): Promise<{ s: StubServer; rpc: RemotingRpc }> {
  const s = await startStubServer(onRequest)
  const rpc = new RemotingRpc()
  cleanups.push(() => s.close())
  cleanups.push(() => rpc.close())
  return { s, rpc }
}

const SYNC_STATE_DATA =
  '{"replicasInfoTable":{"broker-a":{"inSyncReplicas":[{"alive":true,"brokerAddress":"127.0.0.1:30911","brokerId":3,"brokerName":"broker-a"}],' +
  '"masterAddress":"127.0.0.1:30911","masterBrokerId":3,"masterEpoch":2,"notInSyncReplicas":[{"alive":false,"brokerAddress":"127.0.0.1:30921",' +
  '"brokerId":1,"brokerName":"broker-a"},{"alive":true,"brokerAddress":"127.0.0.1:30931","brokerId":2,"brokerName":"broker-a"}],"syncStateSetEpoch":4}}}'

describe('controller bodies', () => {
  it('parse BrokerReplicasInfo with in-sync and not-in-sync replicas', () => {
    const t = brokerReplicasInfoSchema.parse(parseFastjson(SYNC_STATE_DATA)).replicasInfoTable
    expect(t['broker-a']).toEqual({
      masterBrokerId: 3,
      masterAddress: '127.0.0.1:30911',
      masterEpoch: 2,
      syncStateSetEpoch: 4,
      inSyncReplicas: [
        { brokerName: 'broker-a', brokerId: 3, brokerAddress: '127.0.0.1:30911', alive: true }
      ],
      notInSyncReplicas: [
        { brokerName: 'broker-a', brokerId: 1, brokerAddress: '127.0.0.1:30921', alive: false },
        { brokerName: 'broker-a', brokerId: 2, brokerAddress: '127.0.0.1:30931', alive: true }
      ]
    })
  })

  it('read a set without master (fastjson drops the null fields)', () => {
    const t = brokerReplicasInfoSchema.parse(
      parseFastjson(
        '{"replicasInfoTable":{"b":{"masterEpoch":3,"syncStateSetEpoch":5,"inSyncReplicas":[],"notInSyncReplicas":[]}}}'
      )
    ).replicasInfoTable
    expect(t.b).toMatchObject({ masterBrokerId: null, masterAddress: null, masterEpoch: 3 })
  })

  it('parse a SyncStateSet', () => {
    expect(
      syncStateSetSchema.parse(parseFastjson('{"syncStateSet":[2,1],"syncStateSetEpoch":7}'))
    ).toEqual({
      syncStateSet: [2, 1],
      syncStateSetEpoch: 7
    })
  })

  it('split the DLedger peer list ControllerManager writes', () => {
    expect(parseControllerPeers('n0:127.0.0.1:29878;n1:127.0.0.1:29888;')).toEqual([
      { id: 'n0', address: '127.0.0.1:29878' },
      { id: 'n1', address: '127.0.0.1:29888' }
    ])
    expect(parseControllerPeers(undefined)).toEqual([])
  })
})

describe('RemotingRpc controller reads', () => {
  it('CONTROLLER_GET_METADATA_INFO reads the leader from the header ext fields', async () => {
    const { s, rpc } = await stub((cmd, socket) =>
      stubReply(socket, cmd, 0, {
        extFields: {
          group: 'drstudio',
          controllerLeaderId: 'n1',
          controllerLeaderAddress: '127.0.0.1:29888',
          isLeader: 'false',
          peers: 'n0:127.0.0.1:29878;n1:127.0.0.1:29888;'
        }
      })
    )
    expect(await rpc.getControllerMetadata(s.address)).toEqual({
      group: 'drstudio',
      leaderId: 'n1',
      leaderAddress: '127.0.0.1:29888',
      isLeader: false,
      peers: [
        { id: 'n0', address: '127.0.0.1:29878' },
        { id: 'n1', address: '127.0.0.1:29888' }
      ]
    })
    expect(s.received[0]).toMatchObject({
      code: RequestCode.CONTROLLER_GET_METADATA_INFO,
      extFields: {}
    })
  })

  it('a quorum without leader leaves the leader fields out: null', async () => {
    const { s, rpc } = await stub((cmd, socket) =>
      stubReply(socket, cmd, 0, { extFields: { group: 'drstudio', isLeader: 'false', peers: '' } })
    )
    expect(await rpc.getControllerMetadata(s.address)).toMatchObject({
      leaderId: null,
      leaderAddress: null,
      peers: []
    })
  })

  it('CONTROLLER_GET_REPLICA_INFO sends the broker name and reads master and SyncStateSet', async () => {
    const { s, rpc } = await stub((cmd, socket) =>
      stubReply(socket, cmd, 0, {
        extFields: { masterBrokerId: '2', masterAddress: '127.0.0.1:30921', masterEpoch: '3' },
        body: '{"syncStateSet":[3,2],"syncStateSetEpoch":5}'
      })
    )
    expect(await rpc.getReplicaInfo(s.address, 'broker-a')).toEqual({
      masterBrokerId: 2,
      masterAddress: '127.0.0.1:30921',
      masterEpoch: 3,
      syncStateSet: [2, 3],
      syncStateSetEpoch: 5
    })
    expect(s.received[0]).toMatchObject({
      code: RequestCode.CONTROLLER_GET_REPLICA_INFO,
      extFields: { brokerName: 'broker-a' }
    })
  })

  it('a follower answers CONTROLLER_NOT_LEADER, which surfaces as a RemoteError', async () => {
    const { s, rpc } = await stub((cmd, socket) =>
      stubReply(socket, cmd, ResponseCode.CONTROLLER_NOT_LEADER, {
        remark: 'The controller is not in leader state'
      })
    )
    const err = await rpc.getReplicaInfo(s.address, 'broker-a').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(RemoteError)
    expect(err).toMatchObject({ responseCode: 2007 })
  })

  it('CONTROLLER_GET_SYNC_STATE_DATA sends the names as a JSON list and reads every set', async () => {
    const { s, rpc } = await stub((cmd, socket) =>
      stubReply(socket, cmd, 0, { body: SYNC_STATE_DATA })
    )
    const t = await rpc.getSyncStateData(s.address, ['broker-a', 'broker-b'])
    expect(Object.keys(t)).toEqual(['broker-a'])
    expect(t['broker-a']!.masterAddress).toBe('127.0.0.1:30911')
    expect(s.received[0]?.code).toBe(RequestCode.CONTROLLER_GET_SYNC_STATE_DATA)
    expect(JSON.parse(s.received[0]!.body!.toString('utf8'))).toEqual(['broker-a', 'broker-b'])
  })

  it('an empty body (no known set) is an empty table; a wrong one names the field', async () => {
    const { s, rpc } = await stub((cmd, socket) => stubReply(socket, cmd, 0))
    expect(await rpc.getSyncStateData(s.address, ['x'])).toEqual({})
    const bad = await stub((cmd, socket) =>
      stubReply(socket, cmd, 0, { body: '{"replicasInfoTable":{"b":{"masterEpoch":"two"}}}' })
    )
    await expect(bad.rpc.getSyncStateData(bad.s.address, ['b'])).rejects.toThrow(BadResponseError)
    await expect(bad.rpc.getSyncStateData(bad.s.address, ['b'])).rejects.toThrow(/masterEpoch/)
  })
})
