import { afterEach, describe, expect, it } from 'vitest'
import { RequestCode, ResponseCode } from './codes'
import { BadResponseError, RemoteError } from './errors'
import { RemotingRpc } from './remoting-rpc'
import { startStubServer, stubReply, type StubBehaviour, type StubServer } from './stub-server'
import { kvTableSchema, topicListSchema } from './types'
import { parseFastjson } from './fastjson'

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

describe('TopicList and KVTable bodies', () => {
  it('parse what 5.3.3 writes (fastjson, brokerAddr absent or set)', () => {
    expect(topicListSchema.parse(parseFastjson('{"topicList":["TBW102","payments"]}'))).toEqual({
      topicList: ['TBW102', 'payments'],
      brokerAddr: undefined
    })
    expect(
      topicListSchema.parse(parseFastjson('{"brokerAddr":"10.0.0.1:10911","topicList":[]}'))
    ).toEqual({ topicList: [], brokerAddr: '10.0.0.1:10911' })
    expect(
      kvTableSchema.parse(parseFastjson('{"table":{"brokerVersionDesc":"V5_3_3","runtime":"x"}}'))
        .table.brokerVersionDesc
    ).toBe('V5_3_3')
    expect(kvTableSchema.parse({}).table).toEqual({})
  })
})

describe('UPDATE_AND_CREATE_SUBSCRIPTIONGROUP', () => {
  it('sends the group as a SubscriptionGroupConfig JSON body, FIFO when asked', async () => {
    const { s, rpc } = await stub((cmd, socket) => stubReply(socket, cmd, 0))
    await rpc.updateAndCreateSubscriptionGroup(s.address, {
      groupName: 'g-grpc-r3',
      consumeMessageOrderly: true
    })
    expect(s.received[0]?.code).toBe(RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP)
    expect(JSON.parse(s.received[0]!.body!.toString('utf8'))).toEqual({
      groupName: 'g-grpc-r3',
      consumeEnable: true,
      consumeMessageOrderly: true
    })
  })

  it("fails with the broker's answer when it refuses", async () => {
    const { s, rpc } = await stub((cmd, socket) =>
      stubReply(socket, cmd, ResponseCode.SYSTEM_ERROR, { remark: 'no permission' })
    )
    await expect(
      rpc.updateAndCreateSubscriptionGroup(s.address, { groupName: 'g' })
    ).rejects.toBeInstanceOf(RemoteError)
  })
})

describe('RemotingRpc admin reads', () => {
  it('GET_ALL_TOPIC_LIST_FROM_NAMESERVER returns the names and sends no ext fields', async () => {
    const { s, rpc } = await stub((cmd, socket) =>
      stubReply(socket, cmd, 0, { body: '{"topicList":["a","%RETRY%g","b"]}' })
    )
    expect(await rpc.getAllTopicListFromNameserver(s.address)).toEqual(['a', '%RETRY%g', 'b'])
    expect(s.received[0]?.code).toBe(RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER)
    expect(s.received[0]?.extFields).toEqual({})
  })

  it('a name server with enableAllTopicList=false answers SYSTEM_ERROR "disable"', async () => {
    const { s, rpc } = await stub((cmd, socket) =>
      stubReply(socket, cmd, ResponseCode.SYSTEM_ERROR, { remark: 'disable' })
    )
    const err = await rpc.getAllTopicListFromNameserver(s.address).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(RemoteError)
    expect(err).toMatchObject({ responseCode: 1, remark: 'disable' })
  })

  it('a topic list that is not a TopicList is a BadResponseError naming the field', async () => {
    const { s, rpc } = await stub((cmd, socket) =>
      stubReply(socket, cmd, 0, { body: '{"topicList":"oops"}' })
    )
    await expect(rpc.getAllTopicListFromNameserver(s.address)).rejects.toThrow(BadResponseError)
    await expect(rpc.getAllTopicListFromNameserver(s.address)).rejects.toThrow(/topicList/)
  })

  it('GET_KV_CONFIG sends namespace and key; QUERY_NOT_FOUND is undefined', async () => {
    const { s, rpc } = await stub((cmd, socket) => {
      if (cmd.extFields.key === 'present') {
        stubReply(socket, cmd, 0, { extFields: { value: 'v1' } })
      } else {
        stubReply(socket, cmd, ResponseCode.QUERY_NOT_FOUND, { remark: 'No config item' })
      }
    })
    expect(await rpc.getKvConfig(s.address, { namespace: 'NS', key: 'present' })).toBe('v1')
    expect(await rpc.getKvConfig(s.address, { namespace: 'NS', key: 'absent' })).toBeUndefined()
    expect(s.received[0]).toMatchObject({
      code: RequestCode.GET_KV_CONFIG,
      extFields: { namespace: 'NS', key: 'present' }
    })
  })

  it('GET_BROKER_RUNTIME_INFO returns the KV table', async () => {
    const { s, rpc } = await stub((cmd, socket) =>
      stubReply(socket, cmd, 0, { body: '{"table":{"msgPutTotalTodayNow":"12"}}' })
    )
    expect(await rpc.getBrokerRuntimeInfo(s.address)).toEqual({ msgPutTotalTodayNow: '12' })
    expect(s.received[0]?.code).toBe(RequestCode.GET_BROKER_RUNTIME_INFO)
  })
  it('GET_BROKER_HA_STATUS reads a slave’s master and commit-log reach (a stand-in broker)', async () => {
    const { s, rpc } = await stub((cmd, socket) =>
      stubReply(socket, cmd, 0, {
        body: '{"haClientRuntimeInfo":{"activated":true,"lastReadTimestamp":1,"masterAddr":"127.0.0.1:20912","maxOffset":4096,"transferredByteInSecond":0},"haConnectionInfo":[],"inSyncSlaveNums":0,"master":false,"masterCommitLogMaxOffset":0}'
      })
    )
    expect(await rpc.getBrokerHaStatus(s.address)).toMatchObject({
      master: false,
      haClientRuntimeInfo: { masterAddr: '127.0.0.1:20912', maxOffset: 4096 }
    })
    expect(s.received[0]?.code).toBe(RequestCode.GET_BROKER_HA_STATUS)
  })
})
