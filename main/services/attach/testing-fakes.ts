import type { ClusterInfo, QueueData, TopicRoute } from '../remoting'
import { clusterInfoSchema, topicRouteSchema } from '../remoting'
import type { DiscoveryPort } from './discovery'

/** Test support only: a cluster as name servers describe it, and a DiscoveryPort that serves it. */
export interface FakeBroker {
  cluster?: string
  brokerName: string
  zone?: string
  addrs: Record<number, string>
  actingMaster?: boolean
}

export function clusterInfo(brokers: FakeBroker[]): ClusterInfo {
  const brokerAddrTable: Record<string, unknown> = {}
  const clusterAddrTable: Record<string, string[]> = {}
  for (const b of brokers) {
    const cluster = b.cluster ?? 'DefaultCluster'
    brokerAddrTable[b.brokerName] = {
      cluster,
      brokerName: b.brokerName,
      brokerAddrs: Object.fromEntries(Object.entries(b.addrs)),
      ...(b.zone !== undefined ? { zoneName: b.zone } : {}),
      enableActingMaster: b.actingMaster ?? false
    }
    ;(clusterAddrTable[cluster] ??= []).push(b.brokerName)
  }
  return clusterInfoSchema.parse({ brokerAddrTable, clusterAddrTable })
}

export function queue(brokerName: string, n = 4, perm = 6): QueueData {
  return { brokerName, readQueueNums: n, writeQueueNums: n, perm, topicSysFlag: 0 }
}

export function route(queues: QueueData[]): TopicRoute {
  return topicRouteSchema.parse({ queueDatas: queues, brokerDatas: [] })
}

export interface FakeNameServer {
  info?: ClusterInfo
  /** Rejects cluster-info requests with this message (the name server "does not answer"). */
  down?: string
  topics?: string[]
  topicsError?: string
  routes?: Record<string, QueueData[]>
}

/** A DiscoveryPort over fake name servers keyed by address; records every call. */
export function fakeDiscoveryPort(
  servers: Record<string, FakeNameServer>,
  addressServer?: Record<string, string>
): DiscoveryPort & { calls: string[] } {
  const calls: string[] = []
  const server = (ns: string): FakeNameServer => {
    const s = servers[ns]
    if (!s || s.down !== undefined)
      throw new Error(s?.down ?? `cannot connect to ${ns}: ECONNREFUSED`)
    return s
  }
  return {
    calls,
    async clusterInfo(ns) {
      calls.push(`cluster ${ns}`)
      return server(ns).info ?? clusterInfo([])
    },
    async topicList(ns) {
      calls.push(`topics ${ns}`)
      const s = server(ns)
      if (s.topicsError) throw new Error(s.topicsError)
      return s.topics ?? Object.keys(s.routes ?? {})
    },
    async topicRoute(ns, topic) {
      calls.push(`route ${ns} ${topic}`)
      const q = server(ns).routes?.[topic]
      return q ? route(q) : null
    },
    async fetchAddressServer(url) {
      calls.push(`http ${url}`)
      const body = addressServer?.[url]
      if (body === undefined) throw new Error('ECONNREFUSED')
      return body
    }
  }
}
