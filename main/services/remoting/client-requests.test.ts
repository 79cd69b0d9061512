import { describe, expect, it } from 'vitest'
import { lockBatchMq, unlockBatchMq } from './client-requests'
import type { DecodedCommand } from './codec'
import type { RemotingRequest } from './connection'
import type { RemotingInvoker } from './remoting-calls'

function broker(reply: Partial<DecodedCommand>): { rpc: RemotingInvoker; sent: RemotingRequest[] } {
  const sent: RemotingRequest[] = []
  const rpc: RemotingInvoker = {
    invoke: async (_address, req) => {
      sent.push(req)
      return {
        code: 0,
        language: 'JAVA',
        version: 1,
        opaque: 1,
        flag: 1,
        extFields: {},
        serializeType: 0,
        ...reply
      }
    },
    invokeOneway: async () => {}
  }
  return { rpc, sent }
}

const input = {
  consumerGroup: 'G',
  clientId: '127.0.0.1@c1@room1',
  queues: [
    { topic: 'T', brokerName: 'broker-a', queueId: 0 },
    { topic: 'T', brokerName: 'broker-a', queueId: 3 }
  ]
}

describe('queue locks (LOCK_BATCH_MQ / UNLOCK_BATCH_MQ)', () => {
  it('asks for this broker’s locks with the group, client id and queues, and reads the granted ones', async () => {
    // As fastjson writes it: keys unordered, the set as an array.
    const body = Buffer.from(
      '{"lockOKMQSet":[{"brokerName":"broker-a","queueId":3,"topic":"T"}]}',
      'utf8'
    )
    const { rpc, sent } = broker({ body })
    const granted = await lockBatchMq(rpc, '127.0.0.1:10911', input)
    expect(sent[0]!.code).toBe(41)
    expect(JSON.parse(Buffer.from(sent[0]!.body as Buffer).toString('utf8'))).toEqual({
      consumerGroup: 'G',
      clientId: '127.0.0.1@c1@room1',
      onlyThisBroker: true,
      mqSet: input.queues
    })
    expect(granted).toEqual([{ topic: 'T', brokerName: 'broker-a', queueId: 3 }])
  })

  it('reads an answer without a set as no lock granted', async () => {
    const { rpc } = broker({ body: Buffer.from('{}', 'utf8') })
    expect(await lockBatchMq(rpc, 'a:1', input)).toEqual([])
  })

  it('names the broker when the answer is not a lock body', async () => {
    const { rpc } = broker({ body: Buffer.from('{"lockOKMQSet":[{"queueId":"x"}]}', 'utf8') })
    await expect(lockBatchMq(rpc, '127.0.0.1:10911', input)).rejects.toThrow(
      /127\.0\.0\.1:10911.*LockBatchResponseBody/
    )
  })

  it('refuses a failed unlock with the broker’s code', async () => {
    const { rpc, sent } = broker({ code: 1, remark: 'boom' })
    await expect(unlockBatchMq(rpc, 'a:1', input)).rejects.toThrow(/boom|1/)
    expect(sent[0]!.code).toBe(42)
  })
})
