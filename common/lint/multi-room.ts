import { topicsOf } from '../topology/model'
import type { BrokerNode, Check, ClientNode, Context, Draft } from './context'
import { LOOPBACK, canServe, normalHost, uniq } from './context'

// Multi-room mistakes that only show when a room is lost: gRPC clients that depend on another
// room's proxy, failover timers too slow for the failover the design relies on, one machine in
// two rooms, and a topic whose rooms sit in different clusters.

/**
 * The slowest timer a room failover may wait on. The shipped failover scenarios hold recovery to
 * 1–2 s (their maxRtoMs gates); a timer above 10 s turns a room failure into an outage of at
 * least that long for the clients that wait on it.
 */
export const FAILOVER_BUDGET_MS = 10_000

type MultiRoomRuleId =
  | 'grpc-clients-without-proxy'
  | 'grpc-clients-remote-proxy'
  | 'topic-split-across-clusters'
  | 'host-in-several-rooms'
  | 'failover-timers-too-slow'

/** gRPC-lane clients per room (the lane reaches brokers only through zone-pinned proxies). */
function grpcClientsByRoom(ctx: Context): Map<string, ClientNode[]> {
  const out = new Map<string, ClientNode[]>()
  for (const c of ctx.clients) {
    if (c.spec.lane !== 'grpc') continue
    out.set(c.room, [...(out.get(c.room) ?? []), c])
  }
  return out
}

/** Rooms holding a zone-pinned proxy, the only kind the gRPC lane uses (see choose-proxy.ts). */
function zonedProxyRooms(ctx: Context): string[] {
  return uniq(ctx.nodes.flatMap((n) => (n.kind === 'proxy' && n.spec.zoneMode ? [n.room] : [])))
}

function ids(nodes: { id: string }[]): string {
  return nodes.map((n) => n.id).join(', ')
}

/** gRPC clients of a room that has no zone-pinned proxy, split by what a room loss costs them. */
function grpcFindings(ctx: Context, severe: boolean): Draft[] {
  const proxyRooms = zonedProxyRooms(ctx)
  const out: Draft[] = []
  for (const [room, clients] of grpcClientsByRoom(ctx)) {
    if (proxyRooms.includes(room)) continue
    const others = proxyRooms.filter((r) => r !== room)
    // Severe: no proxy at all, or every reachable proxy in one other room (its loss stops them).
    if (severe !== others.length <= 1) continue
    const path = `${ctx.roomPath.get(room)}.proxies`
    const hint = `add a zone-pinned proxy ("zoneMode": true) to room "${room}"`
    const message =
      others.length === 0
        ? `gRPC-lane clients of room "${room}" (${ids(clients)}) have no zone-pinned proxy in any room, so they cannot connect at all`
        : others.length === 1
          ? `gRPC-lane clients of room "${room}" (${ids(clients)}) reach brokers only through room "${others[0]}"'s proxies; losing room "${others[0]}" stops them although room "${room}" is up`
          : `gRPC-lane clients of room "${room}" (${ids(clients)}) have no proxy in their room: every call crosses to rooms ${others.map((r) => `"${r}"`).join(', ')} and lands on their brokers`
    out.push({ message, hint, nodeIds: clients.map((c) => c.id), path })
  }
  return out
}

function mastersByCluster(ctx: Context): Map<string, BrokerNode[]> {
  const out = new Map<string, BrokerNode[]>()
  for (const b of ctx.brokers) {
    if (!canServe(b)) continue
    out.set(b.spec.cluster, [...(out.get(b.spec.cluster) ?? []), b])
  }
  return out
}

export const MULTI_ROOM_CHECKS: { [K in MultiRoomRuleId]: Check } = {
  'grpc-clients-without-proxy': (ctx) => grpcFindings(ctx, true),

  'grpc-clients-remote-proxy': (ctx) => grpcFindings(ctx, false),

  'topic-split-across-clusters': (ctx) => {
    if (ctx.masterRooms.length < 2) return []
    const clusters = mastersByCluster(ctx)
    if (clusters.size < 2) return []
    const partial = [...clusters].filter(
      ([, masters]) => uniq(masters.map((m) => m.room)).length < ctx.masterRooms.length
    )
    if (partial.length === 0) return []
    const where = [...clusters]
      .map(
        ([c, masters]) => `cluster "${c}" in ${uniq(masters.map((m) => `"${m.room}"`)).join(', ')}`
      )
      .join('; ')
    const names = [...clusters.keys()]
    const masters = [...clusters.values()].flat()
    return topicsOf(ctx.topology).map((topic) => {
      const declared = ctx.topology.topics.findIndex((t) => t.name === topic.name)
      const user = ctx.clients.find((c) => c.spec.topic === topic.name)
      return {
        message: `topic "${topic.name}" is served by ${where}; whatever is created or changed for one cluster misses the other rooms`,
        hint: `put every room's brokers in one cluster (e.g. "${names[0]}"), or create "${topic.name}" and its consumer groups in each of ${names.map((n) => `"${n}"`).join(', ')} (mqadmin updateTopic -c <cluster>, updateSubGroup -c <cluster>)`,
        nodeIds: masters.map((m) => m.id),
        path: declared >= 0 ? `$.topics[${declared}]` : user ? `${user.path}.topic` : '$.topics'
      }
    })
  },

  'host-in-several-rooms': (ctx) => {
    const byHost = new Map<string, typeof ctx.nodes>()
    for (const n of ctx.nodes) {
      if (n.kind === 'producer' || n.kind === 'consumer' || n.spec.host === undefined) continue
      // Loopback is one machine by definition; loopback-host covers it.
      if (LOOPBACK.test(n.spec.host)) continue
      const key = normalHost(n.spec.host)
      byHost.set(key, [...(byHost.get(key) ?? []), n])
    }
    const out: Draft[] = []
    for (const [host, nodes] of byHost) {
      const rooms = uniq(nodes.map((n) => n.room))
      if (rooms.length < 2) continue
      const second = nodes.find((n) => n.room === rooms[1])!
      const perRoom = rooms
        .map((r) => `"${r}" (${ids(nodes.filter((n) => n.room === r))})`)
        .join(', ')
      out.push({
        message: `host ${host} holds nodes of rooms ${perRoom}; one machine failure takes part of every one of these rooms`,
        hint: 'give each room its own machines, or fix the host name if it was copied from the wrong room',
        nodeIds: nodes.map((n) => n.id),
        path: `${second.path}.host`
      })
    }
    return out
  },

  'failover-timers-too-slow': (ctx) => {
    const { settings } = ctx.topology
    const out: Draft[] = []
    const budget = `${FAILOVER_BUDGET_MS / 1000} s`
    // Route refresh paces consumer takeover across rooms and clients dropping or regaining brokers.
    if (
      ctx.masterRooms.length >= 2 &&
      ctx.clients.some((c) => c.spec.lane === 'remoting') &&
      settings.routeRefreshMs > FAILOVER_BUDGET_MS
    ) {
      out.push({
        message: `clients refresh routes every ${settings.routeRefreshMs} ms: after a room loses its brokers or consumers, other rooms take over its queues, and clients move back, up to that late`,
        hint: `lower routeRefreshMs to ${FAILOVER_BUDGET_MS} or less (the default is 1000)`,
        nodeIds: [],
        path: '$.settings.routeRefreshMs'
      })
    }
    // Management probes pace name-server failover (business scenario 3).
    const nsRooms = uniq(ctx.nodes.filter((n) => n.kind === 'nameserver').map((n) => n.room))
    const detection = settings.probeIntervalMs + settings.probeTimeoutMs
    if (
      settings.namesrvDiscovery === 'management' &&
      nsRooms.length >= 2 &&
      detection > FAILOVER_BUDGET_MS
    ) {
      out.push({
        message: `management nodes notice a dead name server only after up to ${detection} ms (probe every ${settings.probeIntervalMs} ms, timeout ${settings.probeTimeoutMs} ms), a hung or cut-off one after two unanswered probes (up to ${detection + settings.probeIntervalMs} ms); that long, clients of a room that lost its name servers are still handed them`,
        hint: `keep probeIntervalMs + probeTimeoutMs within ${budget} (the defaults are 1000 and 500)`,
        nodeIds: [],
        path: '$.settings.probeIntervalMs'
      })
    }
    return out
  }
}
