import { RequestCode, ResponseCode } from './codes'
import type { RemotingRequest } from './connection'
import type { CallOptions, RemotingInvoker } from './remoting-calls'
import { call, expectCode, parseBody, toExtFields } from './remoting-calls'
import type { HaRuntimeInfo } from './types'
import { consumerListSchema, haRuntimeInfoSchema, kvTableSchema } from './types'

/** Input of UPDATE_AND_CREATE_TOPIC; defaults give a 4+4 queue read-write topic. */
export interface CreateTopicInput {
  topic: string
  brokerName?: string
  readQueueNums?: number
  writeQueueNums?: number
  /** PermName bits; 6 = read + write. */
  perm?: number
  order?: boolean
  topicFilterType?: 'SINGLE_TAG' | 'MULTI_TAG'
  topicSysFlag?: number
  /** e.g. `+message.type=NORMAL`. */
  attributes?: string
}

/** GET_BROKER_RUNTIME_INFO (28): the broker's own stats (`mqadmin brokerStatus`), read-only. */
export async function getBrokerRuntimeInfo(
  rpc: RemotingInvoker,
  brokerAddress: string,
  options: CallOptions = {}
): Promise<Record<string, string>> {
  const res = await call(rpc, brokerAddress, { code: RequestCode.GET_BROKER_RUNTIME_INFO }, options)
  return parseBody(brokerAddress, res, kvTableSchema, 'KVTable').table
}

/** GET_BROKER_HA_STATUS (907): the broker's replication state (`mqadmin haStatus`), read-only. */
export async function getBrokerHaStatus(
  rpc: RemotingInvoker,
  brokerAddress: string,
  options: CallOptions = {}
): Promise<HaRuntimeInfo> {
  const res = await call(rpc, brokerAddress, { code: RequestCode.GET_BROKER_HA_STATUS }, options)
  return parseBody(brokerAddress, res, haRuntimeInfoSchema, 'HARuntimeInfo')
}

/** UPDATE_AND_CREATE_TOPIC (17) to one master broker, which then registers it with its namesrvs. */
export async function updateAndCreateTopic(
  rpc: RemotingInvoker,
  brokerAddress: string,
  input: CreateTopicInput,
  options: CallOptions = {}
): Promise<void> {
  await call(
    rpc,
    brokerAddress,
    {
      code: RequestCode.UPDATE_AND_CREATE_TOPIC,
      extFields: toExtFields({
        topic: input.topic,
        defaultTopic: 'TBW102',
        readQueueNums: input.readQueueNums ?? 4,
        writeQueueNums: input.writeQueueNums ?? 4,
        perm: input.perm ?? 6,
        topicFilterType: input.topicFilterType ?? 'SINGLE_TAG',
        topicSysFlag: input.topicSysFlag ?? 0,
        order: input.order ?? false,
        attributes: input.attributes,
        bname: input.brokerName
      })
    },
    options
  )
}

/** Input of UPDATE_AND_CREATE_SUBSCRIPTIONGROUP; what is not given keeps the broker's default. */
export interface SubscriptionGroupInput {
  groupName: string
  /** FIFO: a POP consumer (a proxy's) gets a queue's next messages only once the last are acked. */
  consumeMessageOrderly?: boolean
}

/**
 * UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200) on one broker, as `mqadmin updateSubGroup` does: the
 * body is the group's SubscriptionGroupConfig as JSON; fields left out keep their Java defaults.
 */
export async function updateAndCreateSubscriptionGroup(
  rpc: RemotingInvoker,
  brokerAddress: string,
  input: SubscriptionGroupInput,
  options: CallOptions = {}
): Promise<void> {
  const body = Buffer.from(
    JSON.stringify({
      groupName: input.groupName,
      consumeEnable: true,
      consumeMessageOrderly: input.consumeMessageOrderly ?? false
    }),
    'utf8'
  )
  await call(
    rpc,
    brokerAddress,
    { code: RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, body },
    options
  )
}

/**
 * UPDATE_BROKER_CONFIG (25): sets broker properties (a Java properties body), as
 * `mqadmin updateBrokerConfig` does. Setting `brokerPermission` makes the broker register with
 * every name server it knows at once (AdminBrokerProcessor.updateBrokerConfig).
 */
export async function updateBrokerConfig(
  rpc: RemotingInvoker,
  brokerAddress: string,
  properties: Record<string, string | number | boolean>,
  options: CallOptions = {}
): Promise<void> {
  const body = Buffer.from(
    Object.entries(properties)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join('\n') + '\n',
    'utf8'
  )
  await call(rpc, brokerAddress, { code: RequestCode.UPDATE_BROKER_CONFIG, body }, options)
}

/** GET_CONSUMER_LIST_BY_GROUP (38); the broker's "no consumer for this group" is an empty list. */
export async function getConsumerListByGroup(
  rpc: RemotingInvoker,
  brokerAddress: string,
  consumerGroup: string,
  options: CallOptions & { brokerName?: string } = {}
): Promise<string[]> {
  const req: RemotingRequest = {
    code: RequestCode.GET_CONSUMER_LIST_BY_GROUP,
    extFields: toExtFields({ consumerGroup, bname: options.brokerName })
  }
  const res = await rpc.invoke(brokerAddress, req, options.timeoutMs)
  if (
    res.code === ResponseCode.SYSTEM_ERROR &&
    /no consumer for this group/i.test(res.remark ?? '')
  ) {
    return []
  }
  expectCode(brokerAddress, req, res, [ResponseCode.SUCCESS])
  if (!res.body || res.body.length === 0) return []
  return parseBody(brokerAddress, res, consumerListSchema, 'consumer list').consumerIdList
}
