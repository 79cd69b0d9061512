import type { ClusterInfo } from '../remoting'

/** One broker process as the name servers know it. */
export interface DiscoveredBrokerNode {
  /** 0 = master, >0 = slave (as registered; acting-master rewrites only happen in routes). */
  brokerId: number
  address: string
  /** Name servers that list this node. */
  seenBy: string[]
}

/** A broker set (one brokerName: a master and its slaves) with the room facts RocketMQ has. */
export interface DiscoveredBrokerSet {
  cluster: string
  brokerName: string
  /** The set's ROCKETMQ_ZONE (BrokerData.zoneName); absent when the brokers were started without one. */
  zone?: string
  /** True when name servers disagree on the zone; `zone` is then absent. */
  zoneConflict: boolean
  enableActingMaster: boolean
  nodes: DiscoveredBrokerNode[]
}

/** Something the discovery found wrong or worth saying; errors keep a topology from being written. */
export interface DiscoveryIssue {
  level: 'error' | 'warning'
  code: string
  message: string
  fix: string
}

export interface MergedCluster {
  clusters: { name: string; brokerNames: string[] }[]
  brokerSets: DiscoveredBrokerSet[]
  issues: DiscoveryIssue[]
}

interface SetAcc {
  cluster: string
  brokerName: string
  clusterClaims: Map<string, string[]>
  zones: Map<string, string[]>
  actingMaster: boolean
  nodes: Map<number, Map<string, string[]>>
}

const NO_ZONE = '(none)'

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key)
  if (list) list.push(value)
  else map.set(key, [value])
}

function describeClaims(claims: Map<string, string[]>): string {
  return [...claims].map(([value, by]) => `${value} (${by.join(', ')})`).join(' vs ')
}

function accumulate(reports: { address: string; info: ClusterInfo }[]): {
  sets: Map<string, SetAcc>
  clusterNames: Map<string, Set<string>>
} {
  const sets = new Map<string, SetAcc>()
  const clusterNames = new Map<string, Set<string>>()
  for (const { address: ns, info } of reports) {
    for (const [brokerName, data] of Object.entries(info.brokerAddrTable)) {
      let acc = sets.get(brokerName)
      if (!acc) {
        acc = {
          cluster: data.cluster,
          brokerName,
          clusterClaims: new Map(),
          zones: new Map(),
          actingMaster: false,
          nodes: new Map()
        }
        sets.set(brokerName, acc)
      }
      push(acc.clusterClaims, data.cluster, ns)
      let members = clusterNames.get(data.cluster)
      if (!members) clusterNames.set(data.cluster, (members = new Set()))
      members.add(brokerName)
      push(acc.zones, data.zoneName ?? NO_ZONE, ns)
      acc.actingMaster ||= data.enableActingMaster
      for (const [id, addr] of Object.entries(data.brokerAddrs)) {
        const brokerId = Number(id)
        let byAddr = acc.nodes.get(brokerId)
        if (!byAddr) acc.nodes.set(brokerId, (byAddr = new Map()))
        push(byAddr, addr, ns)
      }
    }
    for (const [cluster, names] of Object.entries(info.clusterAddrTable)) {
      let set = clusterNames.get(cluster)
      if (!set) clusterNames.set(cluster, (set = new Set()))
      for (const n of names) set.add(n)
    }
  }
  return { sets, clusterNames }
}

/** Zone of a set, or a conflict issue when name servers disagree (last registrant wins in each). */
function resolveZone(acc: SetAcc, issues: DiscoveryIssue[]): { zone?: string; conflict: boolean } {
  if (acc.zones.size > 1) {
    issues.push({
      level: 'error',
      code: 'zone-conflict',
      message: `name servers disagree on the zone of broker set ${acc.brokerName}: ${describeClaims(acc.zones)}`,
      fix: `start every broker of ${acc.brokerName} (master and slaves) with the same ROCKETMQ_ZONE, or place it with a room map`
    })
    return { conflict: true }
  }
  const only = [...acc.zones.keys()][0]
  return only === undefined || only === NO_ZONE
    ? { conflict: false }
    : { zone: only, conflict: false }
}

function resolveNodes(
  acc: SetAcc,
  answered: string[],
  issues: DiscoveryIssue[]
): DiscoveredBrokerNode[] {
  const nodes: DiscoveredBrokerNode[] = []
  for (const [brokerId, byAddr] of [...acc.nodes].sort((a, b) => a[0] - b[0])) {
    if (!Number.isInteger(brokerId) || brokerId < 0) {
      issues.push({
        level: 'error',
        code: 'bad-broker-id',
        message: `broker set ${acc.brokerName} lists brokerId ${brokerId}, which RocketMQ does not use`,
        fix: 'check the brokerId in that broker.conf and restart it'
      })
      continue
    }
    if (byAddr.size > 1) {
      issues.push({
        level: 'error',
        code: 'address-conflict',
        message: `name servers disagree on the address of ${acc.brokerName} brokerId ${brokerId}: ${describeClaims(byAddr)}`,
        fix: 'two brokers claim the same brokerName and brokerId; give each broker its own brokerName/brokerId and restart it'
      })
    }
    const [address, seenBy] = [...byAddr][0]!
    nodes.push({ brokerId, address, seenBy })
    const missing = answered.filter((ns) => !seenBy.includes(ns))
    if (missing.length > 0) {
      issues.push({
        level: 'warning',
        code: 'partial-registration',
        message: `${acc.brokerName} brokerId ${brokerId} (${address}) is not registered with ${missing.join(', ')}`,
        fix: `list every name server in that broker's namesrvAddr (e.g. namesrvAddr=${answered.join(';')}) so each room's name servers know it`
      })
    }
  }
  return nodes
}

/**
 * Merges GET_BROKER_CLUSTER_INFO answers of several name servers into one view: every broker set
 * with every address any of them knows, and the disagreements between them as issues.
 */
export function mergeClusterInfos(
  reports: { address: string; info: ClusterInfo }[]
): MergedCluster {
  const issues: DiscoveryIssue[] = []
  const answered = reports.map((r) => r.address)
  const { sets, clusterNames } = accumulate(reports)
  const brokerSets: DiscoveredBrokerSet[] = []
  const owners = new Map<string, string>()
  for (const acc of [...sets.values()].sort((a, b) => a.brokerName.localeCompare(b.brokerName))) {
    if (acc.clusterClaims.size > 1) {
      issues.push({
        level: 'error',
        code: 'cluster-conflict',
        message: `name servers disagree on the cluster of ${acc.brokerName}: ${describeClaims(acc.clusterClaims)}`,
        fix: 'two broker sets share one brokerName in different clusters; rename one of them'
      })
    }
    const { zone, conflict } = resolveZone(acc, issues)
    const nodes = resolveNodes(acc, answered, issues)
    for (const n of nodes) {
      const other = owners.get(n.address)
      if (other) {
        issues.push({
          level: 'error',
          code: 'address-reused',
          message: `${n.address} is registered both as ${other} and as ${acc.brokerName} brokerId ${n.brokerId}`,
          fix: 'a stale registration is still in the name servers; wait 2 minutes for it to expire, or restart the name servers'
        })
      } else owners.set(n.address, `${acc.brokerName} brokerId ${n.brokerId}`)
    }
    if (!nodes.some((n) => n.brokerId === 0)) {
      issues.push({
        level: 'error',
        code: 'no-master',
        message: `broker set ${acc.brokerName} has no master registered (only brokerId ${nodes.map((n) => n.brokerId).join(', ') || 'none'})${acc.actingMaster ? '; a slave is acting master in routes' : ''}`,
        fix: `start the master of ${acc.brokerName} and discover again`
      })
    }
    brokerSets.push({
      cluster: acc.cluster,
      brokerName: acc.brokerName,
      ...(zone !== undefined ? { zone } : {}),
      zoneConflict: conflict,
      enableActingMaster: acc.actingMaster,
      nodes
    })
  }
  const clusters = [...clusterNames]
    .map(([name, names]) => ({
      name,
      brokerNames: [...names].filter((n) => sets.has(n)).sort()
    }))
    .filter((c) => c.brokerNames.length > 0)
    .sort((a, b) => a.name.localeCompare(b.name))
  return { clusters, brokerSets, issues }
}
