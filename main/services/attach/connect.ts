import type { Topology } from '../../../common/topology'
import { answeredNameServers, buildTopology } from './build-topology'
import type { DiscoveryIssue } from './cluster-merge'
import type { Discovery, DiscoveryPort, DiscoveryProgress } from './discovery'
import { discoverCluster } from './discovery'
import type { FixWords, Placement, PlacementRules, RoomsMode, Unplaced } from './placement'
import { CLI_WORDS, placeRooms } from './placement'
import { parseRoomMap } from './room-map'
import type { TopicCheck } from './topic-check'
import { checkTopic, CLI_CREATE_HINT } from './topic-check'

/** Everything `drstudio discover` and Connect to cluster… ask for. */
export interface ConnectRequest {
  namesrv: string[]
  addressServer?: string
  mode?: RoomsMode
  /** Room-map text (JSON or YAML) and where it came from, for messages. */
  roomMap?: { text: string; source: string }
  brokerPattern?: string
  namesrvPattern?: string
  /** The topic the workload will use; checked now, and clients are added for it when `clients`. */
  topic?: string
  clients: boolean
  createTopic: boolean
  name?: string
  timeoutMs?: number
  words?: FixWords
  createHint?: string
}

/** Something that keeps the topology from being written, with the exact fix. */
export interface ConnectProblem {
  code: string
  subject: string
  message: string
  fix: string
}

export interface ConnectResult {
  ok: boolean
  topology: Topology | null
  discovery: Discovery
  placement: Placement
  problems: ConnectProblem[]
  warnings: string[]
  topic: TopicCheck | null
}

function fromUnplaced(u: Unplaced): ConnectProblem {
  return {
    code: u.kind === 'broker' ? 'broker-unplaced' : 'namesrv-unplaced',
    // A name server's subject is its address already.
    subject: u.kind === 'broker' ? `${u.subject} (${u.address})` : u.subject,
    message: u.reason,
    fix: u.fix
  }
}

function fromIssue(i: DiscoveryIssue): ConnectProblem {
  return { code: i.code, subject: 'cluster', message: i.message, fix: i.fix }
}

/** Parses the user's rules first, so a bad map or pattern fails before any network call. */
export function rulesOf(req: ConnectRequest): PlacementRules {
  return {
    ...(req.mode ? { mode: req.mode } : {}),
    ...(req.roomMap ? { map: parseRoomMap(req.roomMap.text, req.roomMap.source) } : {}),
    ...(req.brokerPattern !== undefined ? { brokerPattern: req.brokerPattern } : {}),
    ...(req.namesrvPattern !== undefined ? { namesrvPattern: req.namesrvPattern } : {})
  }
}

/**
 * Discovers a cluster, puts its nodes in rooms and builds the attached topology. Input mistakes
 * and an unreachable cluster throw; nodes without a room and conflicting registrations come back
 * as problems (then there is no topology); a topic that cannot carry the workload comes back in
 * `topic` without blocking the topology.
 */
export async function connectToCluster(
  req: ConnectRequest,
  port: DiscoveryPort,
  onProgress?: (p: DiscoveryProgress) => void
): Promise<ConnectResult> {
  const words = req.words ?? CLI_WORDS
  const rules = rulesOf(req)
  const discovery = await discoverCluster(
    {
      namesrv: req.namesrv,
      ...(req.addressServer ? { addressServer: req.addressServer } : {}),
      ...(req.topic ? { topics: [req.topic] } : {}),
      ...(req.timeoutMs !== undefined ? { timeoutMs: req.timeoutMs } : {}),
      ...(onProgress ? { onProgress } : {})
    },
    port
  )
  const placement = placeRooms(
    { brokerSets: discovery.brokerSets, nameServers: answeredNameServers(discovery) },
    rules,
    words
  )
  const problems = [
    ...discovery.issues.filter((i) => i.level === 'error').map(fromIssue),
    ...(discovery.brokerSets.length > 0 ? placement.unplaced.map(fromUnplaced) : [])
  ]
  const warnings = [
    ...discovery.issues
      .filter((i) => i.level === 'warning')
      .map((i) => `${i.message} (fix: ${i.fix})`),
    ...placement.notes,
    discovery.proxies.note
  ]
  if (discovery.brokerSets.length === 0) {
    problems.push({
      code: 'no-brokers',
      subject: 'cluster',
      message: 'the name servers answered but list no brokers',
      fix: "start the brokers with these name servers in their namesrvAddr, or check that you asked the cluster's name servers"
    })
  }
  if (problems.length > 0) {
    return { ok: false, topology: null, discovery, placement, problems, warnings, topic: null }
  }
  const topology = buildTopology(discovery, placement, {
    ...(req.name ? { name: req.name } : {}),
    createTopic: req.createTopic,
    ...(req.clients && req.topic ? { clientsTopic: req.topic } : {})
  })
  let topic: TopicCheck | null = null
  if (req.topic) {
    const found = discovery.topics.find((t) => t.name === req.topic)
    topic = checkTopic({
      topic: req.topic,
      queues: found?.exists ? found.queues : null,
      topology,
      createHint: req.createHint ?? CLI_CREATE_HINT
    })
  }
  return { ok: true, topology, discovery, placement, problems, warnings, topic }
}
