import { RequestCode, ResponseCode } from './codes'
import type { RemotingRequest } from './connection'
import type { HeartbeatInput } from './message'
import { buildHeartbeatBody } from './message'
import type { CallOptions, RemotingInvoker } from './remoting-calls'
import { call, expectCode, extInt, parseBody, toExtFields } from './remoting-calls'
import type { MessageQueueRef } from './types'
import { lockBatchResponseSchema } from './types'

/** Identifies one queue of one broker set for a consumer group. */
export interface ConsumerQueueInput {
  brokerName: string
  consumerGroup: string
  topic: string
  queueId: number
}

/**
 * QUERY_CONSUMER_OFFSET (14); undefined when nothing was committed. Pass setZeroIfNotFound=false
 * to get that reliably: otherwise the broker answers 0 while the queue's head is still in memory.
 */
export async function queryConsumerOffset(
  rpc: RemotingInvoker,
  brokerAddress: string,
  input: ConsumerQueueInput & { setZeroIfNotFound?: boolean },
  options: CallOptions = {}
): Promise<number | undefined> {
  const req: RemotingRequest = {
    code: RequestCode.QUERY_CONSUMER_OFFSET,
    extFields: toExtFields({
      consumerGroup: input.consumerGroup,
      topic: input.topic,
      queueId: input.queueId,
      setZeroIfNotFound: input.setZeroIfNotFound,
      bname: input.brokerName
    })
  }
  const res = await rpc.invoke(brokerAddress, req, options.timeoutMs)
  if (res.code === ResponseCode.QUERY_NOT_FOUND) return undefined
  expectCode(brokerAddress, req, res, [ResponseCode.SUCCESS])
  return extInt(brokerAddress, res, 'offset')
}

/** UPDATE_CONSUMER_OFFSET (15); `oneway` mirrors the Java client, which does not wait. */
export async function updateConsumerOffset(
  rpc: RemotingInvoker,
  brokerAddress: string,
  input: ConsumerQueueInput & { commitOffset: number },
  options: CallOptions & { oneway?: boolean } = {}
): Promise<void> {
  const req: RemotingRequest = {
    code: RequestCode.UPDATE_CONSUMER_OFFSET,
    extFields: toExtFields({
      consumerGroup: input.consumerGroup,
      topic: input.topic,
      queueId: input.queueId,
      commitOffset: input.commitOffset,
      bname: input.brokerName
    })
  }
  if (options.oneway) return rpc.invokeOneway(brokerAddress, req)
  await call(rpc, brokerAddress, req, options)
}

/** GET_MAX_OFFSET (30): the next offset to be written in a queue. */
export async function getMaxOffset(
  rpc: RemotingInvoker,
  brokerAddress: string,
  input: { brokerName: string; topic: string; queueId: number; committed?: boolean },
  options: CallOptions = {}
): Promise<number> {
  const res = await call(
    rpc,
    brokerAddress,
    {
      code: RequestCode.GET_MAX_OFFSET,
      extFields: toExtFields({
        topic: input.topic,
        queueId: input.queueId,
        committed: input.committed,
        bname: input.brokerName
      })
    },
    options
  )
  return extInt(brokerAddress, res, 'offset')
}

/** HEART_BEAT (34): registers producer/consumer groups so the broker lists this client. */
export async function heartbeat(
  rpc: RemotingInvoker,
  brokerAddress: string,
  input: HeartbeatInput,
  options: CallOptions = {}
): Promise<void> {
  await call(
    rpc,
    brokerAddress,
    { code: RequestCode.HEART_BEAT, body: buildHeartbeatBody(input) },
    options
  )
}

/** UNREGISTER_CLIENT (35): leave a group at once instead of waiting for the 120 s expiry. */
export async function unregisterClient(
  rpc: RemotingInvoker,
  brokerAddress: string,
  input: { clientId: string; producerGroup?: string; consumerGroup?: string },
  options: CallOptions = {}
): Promise<void> {
  await call(
    rpc,
    brokerAddress,
    {
      code: RequestCode.UNREGISTER_CLIENT,
      extFields: toExtFields({
        clientID: input.clientId,
        producerGroup: input.producerGroup,
        consumerGroup: input.consumerGroup
      })
    },
    options
  )
}

/** Who asks for queue locks: the group and the client id the broker knows from heartbeats. */
export interface QueueLockInput {
  consumerGroup: string
  clientId: string
  queues: readonly MessageQueueRef[]
}

function lockBody(input: QueueLockInput): Buffer {
  // onlyThisBroker: the lock is this master's alone (no quorum round to its slaves in strict mode).
  return Buffer.from(
    JSON.stringify({
      consumerGroup: input.consumerGroup,
      clientId: input.clientId,
      onlyThisBroker: true,
      mqSet: input.queues.map((q) => ({
        topic: q.topic,
        brokerName: q.brokerName,
        queueId: q.queueId
      }))
    }),
    'utf8'
  )
}

/**
 * LOCK_BATCH_MQ (41): takes or renews this client's lock on queues of one broker, for orderly
 * consumption. Answers the queues locked now; a queue another live client holds is left out.
 */
export async function lockBatchMq(
  rpc: RemotingInvoker,
  brokerAddress: string,
  input: QueueLockInput,
  options: CallOptions = {}
): Promise<MessageQueueRef[]> {
  const res = await call(
    rpc,
    brokerAddress,
    { code: RequestCode.LOCK_BATCH_MQ, body: lockBody(input) },
    options
  )
  return parseBody(brokerAddress, res, lockBatchResponseSchema, 'LockBatchResponseBody').lockOKMQSet
}

/** UNLOCK_BATCH_MQ (42): gives the locks back, so the queues' next owner need not wait for expiry. */
export async function unlockBatchMq(
  rpc: RemotingInvoker,
  brokerAddress: string,
  input: QueueLockInput,
  options: CallOptions = {}
): Promise<void> {
  await call(
    rpc,
    brokerAddress,
    { code: RequestCode.UNLOCK_BATCH_MQ, body: lockBody(input) },
    options
  )
}
