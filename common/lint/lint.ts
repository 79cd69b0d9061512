import type { TopologyNode } from '../topology/model'
import { occupiedPorts, topicsOf } from '../topology/model'
import type { RoomSpec, Topology } from '../topology/schema'
import type { BrokerNode, Check, ClientNode, Context, Draft } from './context'
import { LOOPBACK, canServe, lintContext, mastersIn, normalHost, uniq } from './context'
import { CONTROLLER_MODE_CHECKS } from './controller-mode'
import { MULTI_ROOM_CHECKS } from './multi-room'
import type { LintFinding, LintRuleId } from './rules'
import { LINT_RULES } from './rules'
import { isJavaLane } from '../topology/lanes'

function hostText(node: TopologyNode): string {
  return node.kind === 'producer' || node.kind === 'consumer' ? '' : (node.spec.host ?? '')
}

function perRoom(ctx: Context, fn: (room: RoomSpec, path: string) => Draft | undefined): Draft[] {
  const out: Draft[] = []
  ctx.topology.rooms.forEach((room, r) => {
    const d = fn(room, `$.rooms[${r}]`)
    if (d) out.push(d)
  })
  return out
}

/** Finds nodes whose ports or store paths meet on one explicit host; the second holder is reported. */
function collisions(
  ctx: Context,
  keysOf: (node: TopologyNode) => string[],
  report: (node: TopologyNode, owner: TopologyNode, key: string) => Draft
): Draft[] {
  const out: Draft[] = []
  const owners = new Map<string, TopologyNode>()
  for (const node of ctx.nodes) {
    if (node.kind === 'producer' || node.kind === 'consumer' || node.spec.host === undefined)
      continue
    const host = normalHost(node.spec.host)
    const reported = new Set<string>()
    for (const key of keysOf(node)) {
      const k = `${host}|${key}`
      const owner = owners.get(k)
      if (owner && owner.id !== node.id) {
        if (!reported.has(owner.id)) out.push(report(node, owner, key))
        reported.add(owner.id)
      } else if (!owner) owners.set(k, node)
    }
  }
  return out
}

const CHECKS: { [K in LintRuleId]: Check } = {
  ...MULTI_ROOM_CHECKS,
  ...CONTROLLER_MODE_CHECKS,
  'single-room-topology': ({ topology }) =>
    topology.rooms.length < 2
      ? [
          {
            message: `the topology has ${topology.rooms.length} room(s); DR needs at least two`,
            hint: 'add a second room with its own management node, name servers and brokers',
            nodeIds: topology.rooms.map((r) => r.id),
            path: '$.rooms'
          }
        ]
      : [],

  'room-without-nameserver': (ctx) =>
    perRoom(ctx, (room, path) =>
      room.nameServers.length === 0
        ? {
            message: `room "${room.id}" has no name server`,
            hint: `add a name server to room "${room.id}" (two for host redundancy)`,
            nodeIds: [room.id],
            path: `${path}.nameServers`
          }
        : undefined
    ),

  'nameservers-single-room': (ctx) => {
    const rooms = ctx.topology.rooms.filter((r) => r.nameServers.length > 0)
    if (ctx.topology.rooms.length < 2 || rooms.length !== 1) return []
    const only = rooms[0]!
    return [
      {
        message: `every name server is in room "${only.id}"; losing it leaves all rooms without routes`,
        hint: 'add name servers to the other rooms; brokers register with all of them',
        nodeIds: only.nameServers.map((n) => n.id),
        path: `${ctx.roomPath.get(only.id)}.nameServers`
      }
    ]
  },

  'single-nameserver-per-room': (ctx) =>
    perRoom(ctx, (room, path) =>
      room.nameServers.length === 1
        ? {
            message: `room "${room.id}" has a single name server ("${room.nameServers[0]!.id}")`,
            hint: 'add a second name server on another host of the room',
            nodeIds: [room.nameServers[0]!.id],
            path: `${path}.nameServers`
          }
        : undefined
    ),

  'room-without-management': (ctx) =>
    perRoom(ctx, (room, path) => {
      if (room.managementNodes.length > 0) return undefined
      // An operator's room (every server attached, e.g. discovered): it runs as it is, and DR
      // Studio's clients use the topology's name servers as a static list. Worth saying, not an error.
      const servers = [...room.nameServers, ...room.brokers]
      const theirs =
        servers.length > 0 && servers.every((n) => n.host !== undefined && n.port !== undefined)
      return theirs
        ? {
            severity: 'warning',
            message: `room "${room.id}" has no management node: clients use the topology's name servers as a fixed list, which cannot react to a name server that fails`,
            hint: `run a management node for room "${room.id}" (drstudio mgmt) and point its brokers' and clients' address server at it`,
            nodeIds: [room.id],
            path: `${path}.managementNodes`
          }
        : {
            message: `room "${room.id}" has no management node`,
            hint: `add a management node to room "${room.id}"; its brokers and clients fetch name-server addresses from it`,
            nodeIds: [room.id],
            path: `${path}.managementNodes`
          }
    }),

  'room-without-broker': (ctx) =>
    perRoom(ctx, (room, path) =>
      mastersIn(ctx, room.id).length === 0 &&
      room.producers.length === 0 &&
      room.consumers.length === 0
        ? {
            message: `room "${room.id}" holds no master broker and no clients`,
            hint: 'add a master broker if the room should take traffic; otherwise ignore (name-server-only room)',
            nodeIds: [room.id],
            path: `${path}.brokers`
          }
        : undefined
    ),

  'producer-room-without-broker': (ctx) =>
    perRoom(ctx, (room, path) =>
      room.producers.length > 0 && mastersIn(ctx, room.id).length === 0
        ? {
            message: `producers of room "${room.id}" have no master broker in their room; every send crosses rooms`,
            hint: `add a master broker to room "${room.id}", or move the producers`,
            nodeIds: room.producers.map((p) => p.id),
            path: `${path}.brokers`
          }
        : undefined
    ),

  'consumer-room-without-broker': (ctx) =>
    perRoom(ctx, (room, path) =>
      room.consumers.length > 0 && mastersIn(ctx, room.id).length === 0
        ? {
            message: `consumers of room "${room.id}" have no master broker in their room; every pull crosses rooms`,
            hint: `add a master broker to room "${room.id}", or move the consumers`,
            nodeIds: room.consumers.map((c) => c.id),
            path: `${path}.brokers`
          }
        : undefined
    ),

  'topic-single-room': (ctx) => {
    if (ctx.masterRooms.length > 1) return []
    const masters = ctx.brokers.filter(canServe)
    return topicsOf(ctx.topology).map((topic) => {
      const declared = ctx.topology.topics.findIndex((t) => t.name === topic.name)
      const user = ctx.clients.find((c) => c.spec.topic === topic.name)
      const path =
        declared >= 0 ? `$.topics[${declared}]` : user ? `${user.path}.topic` : '$.topics'
      return {
        message:
          ctx.masterRooms.length === 0
            ? `topic "${topic.name}" has no master broker to serve it`
            : `topic "${topic.name}" is served from room "${ctx.masterRooms[0]}" only (every master sits there)`,
        hint: 'add a master broker (its own brokerName) in a second room; every master serves every topic',
        nodeIds: masters.map((b) => b.id),
        path
      }
    })
  },

  'consumer-group-single-room': (ctx) => {
    const byGroup = new Map<string, ClientNode[]>()
    for (const c of ctx.clients) {
      if (c.kind !== 'consumer') continue
      byGroup.set(c.spec.group, [...(byGroup.get(c.spec.group) ?? []), c])
    }
    const out: Draft[] = []
    for (const [group, members] of byGroup) {
      const rooms = uniq(members.map((m) => m.room))
      if (rooms.length !== 1) continue
      out.push({
        message: `consumer group "${group}" only has members in room "${rooms[0]}"; no other room can take over its queues`,
        hint: `add a consumer of group "${group}" in another room`,
        nodeIds: members.map((m) => m.id),
        path: `${members[0]!.path}.group`
      })
    }
    return out
  },

  'consumer-group-mixed-topics': (ctx) => {
    const byGroup = new Map<string, ClientNode[]>()
    for (const c of ctx.clients) {
      if (c.kind !== 'consumer') continue
      byGroup.set(c.spec.group, [...(byGroup.get(c.spec.group) ?? []), c])
    }
    const out: Draft[] = []
    for (const [group, members] of byGroup) {
      const topics = uniq(members.map((m) => m.spec.topic))
      if (topics.length < 2) continue
      const odd = members.find((m) => m.spec.topic !== members[0]!.spec.topic)!
      out.push({
        message: `consumer group "${group}" subscribes ${topics.map((t) => `"${t}"`).join(', ')} across its members`,
        hint: 'give each topic its own consumer group, or subscribe every member to the same topic',
        nodeIds: members.map((m) => m.id),
        path: `${odd.path}.topic`
      })
    }
    return out
  },

  'zone-mode-no-fallback': ({ topology, clients }) => {
    if (!topology.settings.zoneMode) return []
    const stuck = clients.filter((c) => (c.spec.fallbackRooms ?? []).length === 0)
    if (clients.length > 0 && stuck.length === 0) return []
    return [
      {
        message:
          clients.length === 0
            ? 'zone mode is on and no client declares a fallback room'
            : `zone mode is on and ${stuck.length} client(s) have no fallback room: they get an empty route when their room loses its brokers`,
        hint: 'turn zoneMode off (DR Studio clients prefer their room and fall back), or give every client fallbackRooms',
        nodeIds: stuck.map((c) => c.id),
        path: '$.settings.zoneMode'
      }
    ]
  },

  'java-clients-without-extension': ({ clients }) => {
    const stock = clients.filter((c) => isJavaLane(c.spec.lane) && c.spec.lane !== 'java-dr')
    if (stock.length === 0) return []
    const zone = stock.filter((c) => c.spec.lane === 'java-zone').length
    return [
      {
        message:
          `${stock.length} client(s) run the stock Java client (${uniq(stock.map((c) => c.spec.lane)).join(', ')})` +
          (zone ? `; ${zone} in zone mode get no route when their room loses its brokers` : '') +
          (zone < stock.length ? '; the others send about half their traffic across rooms' : ''),
        hint: 'set their lane to java-dr: the stock client with DR Studio’s room-aware extension (each room’s export has RoomAwareSetup.java; docs/java-client.md)',
        nodeIds: stock.map((c) => c.id),
        path: stock[0]!.path + '.lane'
      }
    ]
  },

  'fallback-room-without-broker': (ctx) => {
    const out: Draft[] = []
    for (const c of ctx.clients) {
      c.spec.fallbackRooms?.forEach((room, i) => {
        const own = room === c.room
        if (!own && ctx.masterRooms.includes(room)) return
        if (!own && !ctx.roomPath.has(room)) return // unknown room: a validation problem, not lint
        out.push({
          message: own
            ? `"${c.id}" lists its own room "${room}" as a fallback`
            : `"${c.id}" falls back to room "${room}", which has no master broker`,
          hint: `use rooms that hold master brokers: ${ctx.masterRooms.filter((r) => r !== c.room).join(', ') || '(none yet)'}`,
          nodeIds: [c.id],
          path: `${c.path}.fallbackRooms[${i}]`
        })
      })
    }
    return out
  },

  'master-slave-same-room': ({ groups }) =>
    groups.flatMap((g) => {
      const slaves = g.members.filter((b) => b.spec.role === 'slave')
      if (!g.master || slaves.length === 0) return []
      if (slaves.some((s) => s.room !== g.master!.room)) return []
      return [
        {
          message: `the slave(s) of ${g.key} (${slaves.map((s) => s.id).join(', ')}) sit in the master's room "${g.master.room}"`,
          hint: 'keep them for host failures, and add a slave in another room for room failures',
          nodeIds: [g.master.id, ...slaves.map((s) => s.id)],
          path: `${slaves[0]!.path}`
        }
      ]
    }),

  'broker-group-no-remote-replica': ({ groups }) =>
    groups.flatMap((g) => {
      const rooms = uniq(g.members.map((b) => b.room))
      if (rooms.length !== 1) return []
      const head = g.master ?? g.members[0]!
      const controlled = g.members.some((b) => b.spec.role === 'replica')
      return [
        {
          message: `every replica of ${g.key} is in room "${rooms[0]}"; its stored messages are unreachable while that room is down`,
          hint: controlled
            ? `add a replica of ${g.key} (role "replica", brokerId -1) in another room, so the controllers can elect a master there`
            : `add a slave of ${g.key} (same cluster and brokerName, brokerId ≥ 1) in another room`,
          nodeIds: g.members.map((b) => b.id),
          path: head.path
        }
      ]
    }),

  'broker-group-spans-rooms': ({ groups }) =>
    groups.flatMap((g) => {
      const rooms = uniq(g.members.map((b) => b.room))
      if (rooms.length < 2 || !g.master) return []
      return [
        {
          message: `${g.key} spans rooms ${rooms.join(', ')}; the name server keeps one zone per brokerName`,
          hint: `start every broker of the group with ROCKETMQ_ZONE=${g.master.room} (the export does this)`,
          nodeIds: g.members.map((b) => b.id),
          path: g.master.path
        }
      ]
    }),

  'duplicate-broker-names-across-rooms': ({ brokers }) => {
    const byName = new Map<string, BrokerNode[]>()
    for (const b of brokers) {
      if (b.spec.role !== 'master') continue
      byName.set(b.spec.brokerName, [...(byName.get(b.spec.brokerName) ?? []), b])
    }
    const out: Draft[] = []
    for (const [name, masters] of byName) {
      if (masters.length < 2) continue
      const where = masters.map((m) => `"${m.id}" (${m.spec.cluster}, ${m.room})`).join(', ')
      out.push({
        message: `brokerName "${name}" is used by several masters: ${where}`,
        hint: 'give every master its own brokerName, e.g. prefix it with the room id',
        nodeIds: masters.map((m) => m.id),
        path: `${masters[1]!.path}.brokerName`
      })
    }
    return out
  },

  'master-slave-same-host': ({ groups }) =>
    groups.flatMap((g) => {
      const m = g.master
      if (!m || m.spec.host === undefined) return []
      return g.members
        .filter(
          (s) =>
            s.spec.role === 'slave' &&
            s.spec.host !== undefined &&
            normalHost(s.spec.host) === normalHost(m.spec.host!)
        )
        .map((s) => ({
          message: `slave "${s.id}" runs on ${s.spec.host}, the same host as its master "${m.id}"`,
          hint: 'put the slave on another machine, ideally in another room',
          nodeIds: [m.id, s.id],
          path: `${s.path}.host`
        }))
    }),

  'port-collision-on-host': (ctx) =>
    collisions(
      ctx,
      (node) => occupiedPorts(node).map(String),
      (node, owner, port) => ({
        message: `"${node.id}" needs ${hostText(node)}:${port}, already taken by "${owner.id}"`,
        hint:
          node.kind === 'broker' || owner.kind === 'broker'
            ? 'brokers bind port-2, port and port+1: space brokers on one host at least 4 ports apart'
            : 'choose another port or another host',
        nodeIds: [owner.id, node.id],
        path: `${node.path}.port`
      })
    ),

  'store-path-collision-on-host': (ctx) =>
    collisions(
      ctx,
      (node) =>
        node.kind === 'broker' && node.spec.storePath !== undefined
          ? [node.spec.storePath.replace(/\/+$/, '')]
          : [],
      (node, owner, path) => ({
        message: `"${node.id}" and "${owner.id}" both store under ${path} on ${hostText(node)}`,
        hint: 'give each broker on a host its own storePath',
        nodeIds: [owner.id, node.id],
        path: `${node.path}.storePath`
      })
    ),

  'loopback-host': ({ nodes }) =>
    nodes.flatMap((n) => {
      if (n.kind === 'producer' || n.kind === 'consumer') return []
      if (n.spec.host === undefined || !LOOPBACK.test(n.spec.host)) return []
      return [
        {
          message: `"${n.id}" is placed on ${n.spec.host}, which other machines and rooms cannot reach`,
          hint: 'use the host name or routable IP of the machine in the room, or remove host for a sandbox-only topology',
          nodeIds: [n.id],
          path: `${n.path}.host`
        }
      ]
    }),

  'probe-interval-exceeds-route-refresh': ({ topology: { settings } }) =>
    settings.probeIntervalMs > settings.routeRefreshMs
      ? [
          {
            message: `management nodes probe every ${settings.probeIntervalMs} ms but clients refresh routes every ${settings.routeRefreshMs} ms`,
            hint: `lower probeIntervalMs to ${settings.routeRefreshMs} or less, or raise routeRefreshMs`,
            nodeIds: [],
            path: '$.settings.probeIntervalMs'
          }
        ]
      : [],

  'probe-timeout-exceeds-interval': ({ topology: { settings } }) =>
    settings.probeTimeoutMs >= settings.probeIntervalMs
      ? [
          {
            message: `probe timeout ${settings.probeTimeoutMs} ms is not shorter than the probe interval ${settings.probeIntervalMs} ms`,
            hint: 'keep probeTimeoutMs at about half of probeIntervalMs',
            nodeIds: [],
            path: '$.settings.probeTimeoutMs'
          }
        ]
      : [],

  'queues-fewer-than-consumers': (ctx) => {
    const queues = new Map(topicsOf(ctx.topology).map((t) => [t.name, t.queues]))
    const out: Draft[] = []
    ctx.topology.rooms.forEach((room) => {
      const masters = mastersIn(ctx, room.id).length
      if (masters === 0) return
      const byGroup = new Map<string, ClientNode[]>()
      for (const c of ctx.clients) {
        if (c.kind !== 'consumer' || c.room !== room.id) continue
        byGroup.set(c.spec.group, [...(byGroup.get(c.spec.group) ?? []), c])
      }
      for (const [group, members] of byGroup) {
        const topic = members[0]!.spec.topic
        const local = (queues.get(topic) ?? 4) * masters
        if (members.length <= local) continue
        out.push({
          message: `room "${room.id}" has ${members.length} consumers of "${group}" but ${local} local queue(s) of "${topic}"`,
          hint: `raise the queue count of "${topic}" to at least ${Math.ceil(members.length / masters)}`,
          nodeIds: members.map((m) => m.id),
          path: `${members[members.length - 1]!.path}`
        })
      }
    })
    return out
  },

  'producer-topic-without-consumer': ({ clients }) => {
    const consumed = new Set(clients.filter((c) => c.kind === 'consumer').map((c) => c.spec.topic))
    const out: Draft[] = []
    const seen = new Set<string>()
    for (const p of clients) {
      if (p.kind !== 'producer' || consumed.has(p.spec.topic) || seen.has(p.spec.topic)) continue
      seen.add(p.spec.topic)
      const producers = clients.filter(
        (c) => c.kind === 'producer' && c.spec.topic === p.spec.topic
      )
      out.push({
        message: `topic "${p.spec.topic}" is produced but no consumer subscribes to it`,
        hint: `add a consumer of "${p.spec.topic}" in each room`,
        nodeIds: producers.map((c) => c.id),
        path: `${p.path}.topic`
      })
    }
    return out
  }
}

/** Finds DR design mistakes in a well-formed topology; findings come in LINT_RULES order, then document order. */
export function lintTopology(topology: Topology): LintFinding[] {
  const ctx = lintContext(topology)
  return LINT_RULES.flatMap((rule) =>
    CHECKS[rule.id](ctx).map((d) => ({
      ruleId: rule.id,
      ...d,
      severity: d.severity ?? rule.severity
    }))
  )
}

/** True when a finding should fail `drstudio lint` (exit code 1). */
export function hasLintErrors(findings: readonly LintFinding[]): boolean {
  return findings.some((f) => f.severity === 'error')
}

/** One CLI line: `<severity> <ruleId> <nodes>: <message> (fix: <hint>)`. */
export function formatFinding(f: LintFinding): string {
  const nodes = f.nodeIds.length ? f.nodeIds.join(',') : '-'
  return `${f.severity} ${f.ruleId} ${nodes}: ${f.message} (fix: ${f.hint})`
}

/** Counts per severity, for badges and summaries. */
export function countFindings(
  findings: readonly LintFinding[]
): Record<LintFinding['severity'], number> {
  const counts = { error: 0, warning: 0, info: 0 }
  for (const f of findings) counts[f.severity]++
  return counts
}
