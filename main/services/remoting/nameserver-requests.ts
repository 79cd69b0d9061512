import { RequestCode, ResponseCode } from './codes'
import type { RemotingRequest } from './connection'
import type { CallOptions, RemotingInvoker } from './remoting-calls'
import { call, expectCode, parseBody, toExtFields } from './remoting-calls'
import type { ClusterInfo, TopicRoute } from './types'
import { clusterInfoSchema, topicListSchema, topicRouteSchema } from './types'

/** GET_ROUTEINFO_BY_TOPIC (105); TOPIC_NOT_EXIST surfaces as RemoteError with responseCode 17. */
export async function getRouteInfoByTopic(
  rpc: RemotingInvoker,
  namesrvAddress: string,
  topic: string,
  options: CallOptions = {}
): Promise<TopicRoute> {
  const res = await call(
    rpc,
    namesrvAddress,
    {
      code: RequestCode.GET_ROUTEINFO_BY_TOPIC,
      extFields: toExtFields({ topic, acceptStandardJsonOnly: true })
    },
    options
  )
  return parseBody(namesrvAddress, res, topicRouteSchema, 'TopicRouteData')
}

/** GET_BROKER_CLUSTER_INFO (106); its body is always fastjson with bare numeric keys. */
export async function getBrokerClusterInfo(
  rpc: RemotingInvoker,
  namesrvAddress: string,
  options: CallOptions = {}
): Promise<ClusterInfo> {
  const res = await call(
    rpc,
    namesrvAddress,
    { code: RequestCode.GET_BROKER_CLUSTER_INFO },
    options
  )
  return parseBody(namesrvAddress, res, clusterInfoSchema, 'ClusterInfo')
}

/**
 * GET_ALL_TOPIC_LIST_FROM_NAMESERVER (206): topic names only, system topics included. A name
 * server with `enableAllTopicList=false` answers SYSTEM_ERROR "disable" (a RemoteError).
 */
export async function getAllTopicListFromNameserver(
  rpc: RemotingInvoker,
  namesrvAddress: string,
  options: CallOptions = {}
): Promise<string[]> {
  const res = await call(
    rpc,
    namesrvAddress,
    { code: RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER },
    options
  )
  return parseBody(namesrvAddress, res, topicListSchema, 'TopicList').topicList
}

/** GET_KV_CONFIG (101): a name server's KV entry; undefined when it has none (QUERY_NOT_FOUND). */
export async function getKvConfig(
  rpc: RemotingInvoker,
  namesrvAddress: string,
  input: { namespace: string; key: string },
  options: CallOptions = {}
): Promise<string | undefined> {
  const req: RemotingRequest = {
    code: RequestCode.GET_KV_CONFIG,
    extFields: toExtFields({ namespace: input.namespace, key: input.key })
  }
  const res = await rpc.invoke(namesrvAddress, req, options.timeoutMs)
  if (res.code === ResponseCode.QUERY_NOT_FOUND) return undefined
  expectCode(namesrvAddress, req, res, [ResponseCode.SUCCESS])
  return res.extFields.value
}
