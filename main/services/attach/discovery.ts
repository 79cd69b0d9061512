import type { ClusterInfo, QueueData, TopicRoute } from '../remoting'
import { AttachInputError, addressServerUrl, parseAddressServerBody } from './addresses'
import type { DiscoveredBrokerSet, DiscoveryIssue } from './cluster-merge'
import { mergeClusterInfos } from './cluster-merge'
import { isSystemTopic } from './system-topics'

/** What discovery asks a cluster; the real one speaks remoting (remoting-ports.ts), tests fake it. */
export interface DiscoveryPort {
  clusterInfo(namesrv: string, timeoutMs: number): Promise<ClusterInfo>
  topicList(namesrv: string, timeoutMs: number): Promise<string[]>
  /** null when the name server says TOPIC_NOT_EXIST. */
  topicRoute(namesrv: string, topic: string, timeoutMs: number): Promise<TopicRoute | null>
  /** The body of an address server's answer (`ip:port;ip:port`). */
  fetchAddressServer(url: string, timeoutMs: number): Promise<string>
}

export type DiscoveryStep = 'address-server' | 'cluster-info' | 'topics' | 'routes' | 'done'

/** One line of progress; `done`/`total` count name servers or topics within the step. */
export interface DiscoveryProgress {
  step: DiscoveryStep
  message: string
  done?: number
  total?: number
}

export interface NameServerAnswer {
  address: string
  /** Where the address came from. */
  from: 'list' | 'address-server'
  ok: boolean
  error?: string
  brokers?: number
}

/** A topic with the queues each broker set serves for it, as one name server routes it. */
export interface DiscoveredTopic {
  name: string
  /** False when every name server answered TOPIC_NOT_EXIST. */
  exists: boolean
  /** The user named it (`--topic`), so it is checked even if the name servers do not list it. */
  requested: boolean
  queues: QueueData[]
  error?: string
}

/** Everything one discovery learnt, before rooms are decided. */
export interface Discovery {
  at: string
  nameServers: NameServerAnswer[]
  addressServer?: { url: string; listed: string[] }
  clusters: { name: string; brokerNames: string[] }[]
  brokerSets: DiscoveredBrokerSet[]
  topics: DiscoveredTopic[]
  systemTopicsSkipped: number
  /** 5.x proxies do not register anywhere, so name servers cannot list them. */
  proxies: { discoverable: false; note: string }
  issues: DiscoveryIssue[]
}

export interface DiscoverInput {
  namesrv: string[]
  addressServer?: string
  /** Topics to route even if no name server lists them (the run topic). */
  topics?: string[]
  timeoutMs?: number
  routeConcurrency?: number
  onProgress?: (p: DiscoveryProgress) => void
  now?: () => Date
}

/** No name server answered: nothing can be discovered. The message names each address and why. */
export class DiscoveryError extends Error {
  constructor(
    message: string,
    readonly nameServers: NameServerAnswer[]
  ) {
    super(message)
    this.name = 'DiscoveryError'
  }
}

export const PROXY_NOTE =
  'RocketMQ 5 proxies do not register with name servers, so discovery cannot see them; add each proxy to its room by hand (host, port = gRPC port, remotingPort)'

async function resolveNameServers(
  input: DiscoverInput,
  port: DiscoveryPort,
  timeoutMs: number
): Promise<{
  list: { address: string; from: NameServerAnswer['from'] }[]
  server?: Discovery['addressServer']
}> {
  const list: { address: string; from: NameServerAnswer['from'] }[] = input.namesrv.map(
    (address) => ({ address, from: 'list' })
  )
  if (!input.addressServer) return { list }
  const url = addressServerUrl(input.addressServer)
  input.onProgress?.({ step: 'address-server', message: `asking the address server ${url}` })
  let body: string
  try {
    body = await port.fetchAddressServer(url, timeoutMs)
  } catch (e) {
    throw new AttachInputError(
      `address server ${url} did not answer: ${(e as Error).message} (check the URL; RocketMQ serves the list at /rocketmq/nsaddr, port 8080 by default)`
    )
  }
  const listed = parseAddressServerBody(body, url)
  for (const address of listed) {
    if (!list.some((l) => l.address === address)) list.push({ address, from: 'address-server' })
  }
  return { list, server: { url, listed } }
}

async function mapLimit<T, R>(
  items: T[],
  limit: number,
  fn: (item: T, i: number) => Promise<R>
): Promise<R[]> {
  const out: R[] = new Array(items.length)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++
      out[i] = await fn(items[i]!, i)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return out
}

async function routeTopic(
  name: string,
  requested: boolean,
  answered: string[],
  port: DiscoveryPort,
  timeoutMs: number
): Promise<DiscoveredTopic> {
  const errors: string[] = []
  let notFound = 0
  for (const ns of answered) {
    try {
      const route = await port.topicRoute(ns, name, timeoutMs)
      if (route) return { name, exists: true, requested, queues: route.queueDatas }
      notFound++
    } catch (e) {
      errors.push(`${ns}: ${(e as Error).message}`)
    }
  }
  if (notFound > 0) return { name, exists: false, requested, queues: [] }
  return { name, exists: false, requested, queues: [], error: errors.join('; ') }
}

/**
 * Reads a cluster from its name servers: brokers with addresses and zones from every name server
 * (merged, disagreements reported), application topics with their queues. Writes nothing.
 */
export async function discoverCluster(
  input: DiscoverInput,
  port: DiscoveryPort
): Promise<Discovery> {
  const timeoutMs = input.timeoutMs ?? 3000
  const progress = input.onProgress ?? (() => {})
  const { list, server } = await resolveNameServers(input, port, timeoutMs)
  if (list.length === 0) {
    throw new AttachInputError(
      'no name servers to ask: pass --namesrv "host:port;host:port" or --address-server URL'
    )
  }
  progress({
    step: 'cluster-info',
    message: `asking ${list.length} name server${list.length > 1 ? 's' : ''} for the cluster`,
    done: 0,
    total: list.length
  })
  let asked = 0
  const answers = await Promise.all(
    list.map(async ({ address, from }) => {
      try {
        const info = await port.clusterInfo(address, timeoutMs)
        progress({
          step: 'cluster-info',
          message: `${address} answered`,
          done: ++asked,
          total: list.length
        })
        const brokers = Object.values(info.brokerAddrTable).reduce(
          (n, b) => n + Object.keys(b.brokerAddrs).length,
          0
        )
        return { answer: { address, from, ok: true, brokers } as NameServerAnswer, info }
      } catch (e) {
        const error = (e as Error).message
        progress({
          step: 'cluster-info',
          message: `${address} did not answer: ${error}`,
          done: ++asked,
          total: list.length
        })
        return { answer: { address, from, ok: false, error } as NameServerAnswer, info: undefined }
      }
    })
  )
  const nameServers = answers.map((a) => a.answer)
  const reports = answers.flatMap((a) =>
    a.info ? [{ address: a.answer.address, info: a.info }] : []
  )
  if (reports.length === 0) {
    throw new DiscoveryError(
      `no name server answered: ${nameServers.map((n) => `${n.address} (${n.error})`).join('; ')}. ` +
        'Check the addresses, that the name servers run, and that this machine can reach them (firewall, VPN)',
      nameServers
    )
  }
  const merged = mergeClusterInfos(reports)
  const issues = [...merged.issues]
  for (const n of nameServers.filter((x) => !x.ok)) {
    issues.push({
      level: 'warning',
      code: 'namesrv-unreachable',
      message: `name server ${n.address} did not answer (${n.error}); it is left out of the topology`,
      fix: `start it or fix the address, then discover again; or drop it from the list`
    })
  }
  const answered = reports.map((r) => r.address)
  const topicNames = await listTopics(answered, port, timeoutMs, issues, progress)
  const clusters = new Set(merged.clusters.map((c) => c.name))
  const brokerNames = new Set(merged.brokerSets.map((b) => b.brokerName))
  const application = [...topicNames].filter((t) => !isSystemTopic(t, clusters, brokerNames)).sort()
  const requested = (input.topics ?? []).filter((t) => t.length > 0)
  const toRoute = [...new Set([...application, ...requested])]
  let routed = 0
  const topics = await mapLimit(toRoute, input.routeConcurrency ?? 8, async (name) => {
    const t = await routeTopic(name, requested.includes(name), answered, port, timeoutMs)
    routed++
    if (routed === toRoute.length || routed % 20 === 0) {
      progress({
        step: 'routes',
        message: `routed ${routed} of ${toRoute.length} topics`,
        done: routed,
        total: toRoute.length
      })
    }
    return t
  })
  const at = (input.now?.() ?? new Date()).toISOString()
  progress({
    step: 'done',
    message: `found ${merged.brokerSets.length} broker sets in ${merged.clusters.length} cluster(s) and ${application.length} topics`
  })
  return {
    at,
    nameServers,
    ...(server ? { addressServer: server } : {}),
    clusters: merged.clusters,
    brokerSets: merged.brokerSets,
    topics,
    systemTopicsSkipped: topicNames.size - application.length,
    proxies: { discoverable: false, note: PROXY_NOTE },
    issues
  }
}

async function listTopics(
  answered: string[],
  port: DiscoveryPort,
  timeoutMs: number,
  issues: DiscoveryIssue[],
  progress: (p: DiscoveryProgress) => void
): Promise<Set<string>> {
  progress({ step: 'topics', message: 'listing topics' })
  const names = new Set<string>()
  const lists = await Promise.all(
    answered.map((ns) =>
      port.topicList(ns, timeoutMs).then(
        (l) => ({ ns, l, error: undefined }),
        (e: Error) => ({ ns, l: [] as string[], error: e.message })
      )
    )
  )
  for (const { ns, l, error } of lists) {
    if (error) {
      issues.push({
        level: 'warning',
        code: 'topics-unlisted',
        message: `name server ${ns} did not list its topics (${error}); enableAllTopicList may be off`,
        fix: 'name the topic the workload should use (--topic, or the dialog’s Topic field); it is routed directly'
      })
    }
    for (const t of l) names.add(t)
  }
  return names
}
