import { get as httpGet } from 'node:http'
import { get as httpsGet } from 'node:https'
import type { RemotingRpc } from '../remoting'
import { RemoteError, RequestCode, ResponseCode } from '../remoting'
import type { DiscoveryPort } from './discovery'
import type { ProbePort, ProbeTarget } from './prober'

/** GET with a deadline; resolves with the body of a 200, rejects with the status or error otherwise. */
export function httpGetText(url: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const get = url.startsWith('https:') ? httpsGet : httpGet
    const req = get(url, { timeout: timeoutMs, headers: { Accept: 'text/plain' } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => {
        chunks.push(c)
        if (chunks.reduce((n, x) => n + x.length, 0) > 1_000_000)
          req.destroy(new Error('answer larger than 1 MB'))
      })
      res.on('end', () => {
        if (res.statusCode === 200) resolve(Buffer.concat(chunks).toString('utf8'))
        else reject(new Error(`HTTP ${res.statusCode}`))
      })
      res.on('error', reject)
    })
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)))
    req.on('error', reject)
  })
}

/** Discovery over RocketMQ remoting: three read-only requests to name servers. */
export function remotingDiscoveryPort(rpc: RemotingRpc): DiscoveryPort {
  return {
    clusterInfo: (ns, timeoutMs) => rpc.getBrokerClusterInfo(ns, { timeoutMs }),
    topicList: (ns, timeoutMs) => rpc.getAllTopicListFromNameserver(ns, { timeoutMs }),
    topicRoute: async (ns, topic, timeoutMs) => {
      try {
        return await rpc.getRouteInfoByTopic(ns, topic, { timeoutMs })
      } catch (e) {
        if (e instanceof RemoteError && e.responseCode === ResponseCode.TOPIC_NOT_EXIST) return null
        throw e
      }
    },
    fetchAddressServer: httpGetText
  }
}

/** A topic name no one creates: the proxy answers its route request without touching a broker. */
const PROBE_TOPIC = 'TBW102'

/**
 * Probes with a real request per kind, each read-only and cheap: a name server's KV read, a
 * broker's runtime info, a proxy's route answer, a management node's address list. Any decoded
 * answer means the process is alive and serving; only transport failures and timeouts reject.
 * close() closes `rpc`, whose pooled sockets would otherwise keep the process alive.
 */
export function remotingProbePort(rpc: RemotingRpc): ProbePort {
  return {
    close: () => rpc.close(),
    async probe(target: ProbeTarget, timeoutMs: number): Promise<{ detail?: string }> {
      const answered = (code: number): { detail?: string } =>
        code === ResponseCode.SUCCESS ? {} : { detail: `answered code ${code}` }
      const address = target.address
      if (!address)
        throw new Error(target.unprobedReason ?? `${target.nodeId} has no address to probe`)
      switch (target.kind) {
        case 'nameserver': {
          const res = await rpc.invoke(
            address,
            { code: RequestCode.GET_KV_CONFIG, extFields: { namespace: 'DRSTUDIO', key: 'probe' } },
            timeoutMs
          )
          // QUERY_NOT_FOUND is the healthy answer to a key nobody writes.
          return res.code === ResponseCode.QUERY_NOT_FOUND ? {} : answered(res.code)
        }
        case 'broker': {
          const res = await rpc.invoke(
            address,
            { code: RequestCode.GET_BROKER_RUNTIME_INFO },
            timeoutMs
          )
          return answered(res.code)
        }
        case 'proxy': {
          const res = await rpc.invoke(
            address,
            { code: RequestCode.GET_ROUTEINFO_BY_TOPIC, extFields: { topic: PROBE_TOPIC } },
            timeoutMs
          )
          return res.code === ResponseCode.TOPIC_NOT_EXIST ? {} : answered(res.code)
        }
        case 'management':
          await httpGetText(`http://${address}/rocketmq/nsaddr`, timeoutMs)
          return {}
        case 'controller': {
          // Any controller, leader or not, answers its quorum's metadata.
          const res = await rpc.invoke(
            address,
            { code: RequestCode.CONTROLLER_GET_METADATA_INFO },
            timeoutMs
          )
          return answered(res.code)
        }
      }
    }
  }
}
