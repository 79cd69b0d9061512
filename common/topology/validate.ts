import { actionProblems } from './actions'
import { kubernetesProblems } from './kubernetes-settings'
import { notAnObject, schemaProblems } from './issues'
import type { Problem } from './problem'
import { parseJsonStrict } from './json-text'
import { hostOf, listNodes, occupiedPorts } from './model'
import { DEFAULT_LINK_KEY, parseLinkKey } from './network'
import type { Topology } from './schema'
import { topologySchema } from './schema'
import { precheckTopologyText } from './text'

export type { Problem } from './problem'

export type TopologyResult = { ok: true; topology: Topology } | { ok: false; problems: Problem[] }

export { toJsonPath } from '../schema-issues'

/** Rules that need the whole document: ids, references, roles, ports. */
export function semanticProblems(topology: Topology): Problem[] {
  const problems: Problem[] = []
  const nodes = listNodes(topology)
  const roomIds = new Set(topology.rooms.map((r) => r.id))

  if (topology.rooms.length === 0 || nodes.length === 0) {
    problems.push({
      code: 'empty-topology',
      path: '$.rooms',
      message: 'the topology has no rooms or no nodes',
      hint: 'add at least one room with a name server and a broker'
    })
  }

  const topicAt = new Map<string, string>()
  topology.topics.forEach((topic, t) => {
    const path = `$.topics[${t}].name`
    const first = topicAt.get(topic.name)
    if (first) {
      problems.push({
        code: 'duplicate-topic',
        path,
        message: `topic "${topic.name}" is already declared at ${first}`,
        hint: 'declare each topic once, with the queue count you want'
      })
    } else topicAt.set(topic.name, path)
  })

  const seen = new Map<string, string>()
  topology.rooms.forEach((room, r) => {
    const path = `$.rooms[${r}].id`
    const first = seen.get(room.id)
    if (first) {
      problems.push({
        code: 'duplicate-id',
        path,
        message: `id "${room.id}" is already used at ${first}`,
        hint: 'give every room and node a unique id'
      })
    } else seen.set(room.id, path)
  })
  for (const node of nodes) {
    const path = `${node.path}.id`
    const first = seen.get(node.id)
    if (first) {
      problems.push({
        code: 'duplicate-id',
        path,
        nodeId: node.id,
        message: `id "${node.id}" is already used at ${first}`,
        hint: 'give every room and node a unique id'
      })
    } else seen.set(node.id, path)
  }

  for (const node of nodes) {
    if (node.kind !== 'producer' && node.kind !== 'consumer') continue
    node.spec.fallbackRooms?.forEach((room, i) => {
      if (!roomIds.has(room)) {
        problems.push({
          code: 'unknown-room',
          path: `${node.path}.fallbackRooms[${i}]`,
          nodeId: node.id,
          message: `room "${room}" does not exist`,
          hint: `use one of: ${[...roomIds].join(', ') || '(no rooms yet)'}`
        })
      }
    })
  }

  const brokers = nodes.filter((n) => n.kind === 'broker')
  const masters = new Map<string, string>()
  for (const b of brokers) {
    if (b.kind !== 'broker') continue
    const key = `${b.spec.cluster}/${b.spec.brokerName}`
    if (b.spec.role === 'master') {
      if (b.spec.brokerId !== 0) {
        problems.push({
          code: 'master-broker-id',
          path: `${b.path}.brokerId`,
          nodeId: b.id,
          message: `master broker "${b.id}" has brokerId ${b.spec.brokerId}; RocketMQ forces masters to 0`,
          hint: 'set brokerId to 0, or make it a slave'
        })
      }
      const other = masters.get(key)
      if (other) {
        problems.push({
          code: 'duplicate-master',
          path: `${b.path}.role`,
          nodeId: b.id,
          message: `broker group ${key} already has master "${other}"`,
          hint: 'make this broker a slave, or give it another brokerName'
        })
      } else masters.set(key, b.id)
    } else if (b.spec.role === 'slave' && b.spec.brokerId < 1) {
      problems.push({
        code: 'slave-broker-id',
        path: `${b.path}.brokerId`,
        nodeId: b.id,
        message: `slave broker "${b.id}" has brokerId ${b.spec.brokerId}; RocketMQ refuses to start it`,
        hint: 'give the slave a brokerId of 1 or more'
      })
    }
  }
  problems.push(...controllerModeProblems(topology))
  for (const b of brokers) {
    if (b.kind !== 'broker' || b.spec.role !== 'slave') continue
    if (!masters.has(`${b.spec.cluster}/${b.spec.brokerName}`)) {
      problems.push({
        code: 'slave-without-master',
        path: `${b.path}.brokerName`,
        nodeId: b.id,
        message: `slave "${b.id}" has no master named "${b.spec.brokerName}" in cluster "${b.spec.cluster}"`,
        hint: 'add a master broker with the same cluster and brokerName, or fix the name'
      })
    }
  }

  for (const node of nodes) {
    if (node.kind === 'producer' || node.kind === 'consumer') continue
    if (node.spec.host !== undefined && node.spec.port === undefined) {
      problems.push({
        code: 'host-without-port',
        path: `${node.path}.port`,
        nodeId: node.id,
        message: `"${node.id}" names host ${node.spec.host} but no port`,
        hint: 'add the port it listens on, or remove host to let the sandbox allocate both'
      })
    }
  }

  const owners = new Map<string, { id: string; path: string }>()
  for (const node of nodes) {
    for (const port of occupiedPorts(node)) {
      const key = `${hostOf(node)}:${port}`
      const owner = owners.get(key)
      if (owner && owner.id !== node.id) {
        problems.push({
          code: 'port-collision',
          path: `${node.path}.port`,
          nodeId: node.id,
          message: `"${node.id}" needs ${key}, already used by "${owner.id}" (${owner.path})`,
          hint:
            node.kind === 'broker'
              ? 'brokers also bind port-2 and port+1; leave 3 free ports between brokers or remove port'
              : 'choose another port, or remove port to let the sandbox allocate one'
        })
      } else if (!owner) owners.set(key, { id: node.id, path: `${node.path}.port` })
    }
  }

  problems.push(...networkProblems(topology))
  problems.push(...actionProblems(topology))
  problems.push(...kubernetesProblems(topology))
  return problems
}

/**
 * Controller mode: replicas have brokerId -1 (the controllers assign ids), a group is either
 * controller-mode or master/slave, replicas need a controller to elect them, and an election
 * priority only means something on a replica.
 */
function controllerModeProblems(topology: Topology): Problem[] {
  const problems: Problem[] = []
  const nodes = listNodes(topology)
  const brokers = nodes.filter((n) => n.kind === 'broker')
  const byGroup = new Map<string, typeof brokers>()
  for (const b of brokers) {
    if (b.kind !== 'broker') continue
    const key = `${b.spec.cluster}/${b.spec.brokerName}`
    byGroup.set(key, [...(byGroup.get(key) ?? []), b])
    if (b.spec.role === 'replica' && b.spec.brokerId !== -1) {
      problems.push({
        code: 'replica-broker-id',
        path: `${b.path}.brokerId`,
        nodeId: b.id,
        message: `replica "${b.id}" has brokerId ${b.spec.brokerId}; in controller mode the controllers assign ids`,
        hint: 'set brokerId to -1'
      })
    }
    if (b.spec.role !== 'master' && b.spec.replication !== undefined) {
      problems.push({
        code: 'replication-not-master',
        path: `${b.path}.replication`,
        nodeId: b.id,
        message: `"${b.id}" is a ${b.spec.role}; only a master's replication is synchronous or asynchronous`,
        hint:
          b.spec.role === 'replica'
            ? 'remove replication; a controller-mode group sets it with controllerMode.allAckInSyncStateSet'
            : 'remove replication here and set it on the master of the group'
      })
    }
    if (b.spec.role !== 'replica' && b.spec.electionPriority !== undefined) {
      problems.push({
        code: 'election-priority-not-replica',
        path: `${b.path}.electionPriority`,
        nodeId: b.id,
        message: `"${b.id}" is a ${b.spec.role}; only controller-mode replicas are elected, so electionPriority does nothing`,
        hint: 'remove electionPriority, or make the group controller-mode (role "replica" on every broker of it)'
      })
    }
  }
  for (const [key, members] of byGroup) {
    const sync = members.find((b) => b.kind === 'broker' && b.spec.replication === 'sync')
    if (sync && !members.some((b) => b.kind === 'broker' && b.spec.role === 'slave')) {
      problems.push({
        code: 'sync-master-without-slave',
        path: `${sync.path}.replication`,
        nodeId: sync.id,
        message: `"${sync.id}" replicates synchronously but group ${key} has no slave, so every write is answered SLAVE_NOT_AVAILABLE`,
        hint: 'add a slave (role "slave", brokerId 1) to the group, or remove replication'
      })
    }
    const replicas = members.filter((b) => b.kind === 'broker' && b.spec.role === 'replica')
    if (replicas.length === 0 || replicas.length === members.length) continue
    const odd = members.find((b) => b.kind === 'broker' && b.spec.role !== 'replica')!
    problems.push({
      code: 'mixed-group-roles',
      path: `${odd.path}.role`,
      nodeId: odd.id,
      message: `broker group ${key} mixes controller-mode replicas with a fixed ${odd.kind === 'broker' ? odd.spec.role : ''} ("${odd.id}")`,
      hint: 'give every broker of the group role "replica" (and brokerId -1), or none'
    })
  }
  const quorum = nodes.filter(
    (n) => n.kind === 'controller' || (n.kind === 'nameserver' && n.spec.controller !== undefined)
  )
  const firstReplica = brokers.find((b) => b.kind === 'broker' && b.spec.role === 'replica')
  if (firstReplica && quorum.length === 0) {
    problems.push({
      code: 'replicas-without-controller',
      path: `${firstReplica.path}.role`,
      nodeId: firstReplica.id,
      message: `"${firstReplica.id}" is a controller-mode replica but the topology has no controller to elect a master`,
      hint: 'add a controller to each room (a "controllers" entry, or "controller": {} on a name server)'
    })
  }
  return problems
}

/** Link keys must name two different existing rooms, each pair once whatever the order. */
function networkProblems(topology: Topology): Problem[] {
  const problems: Problem[] = []
  const rooms = topology.rooms.map((r) => r.id)
  const seen = new Map<string, string>()
  for (const key of Object.keys(topology.network?.links ?? {})) {
    if (key === DEFAULT_LINK_KEY) continue
    const path = `$.network.links[${JSON.stringify(key)}]`
    const parsed = parseLinkKey(key)
    if (!parsed.ok) {
      problems.push({
        code: 'bad-link-key',
        path,
        message: parsed.error,
        hint: `name two different rooms joined by ~, e.g. "${rooms[0] ?? 'room1'}~${rooms[1] ?? 'room2'}", or "default" for every link`
      })
      continue
    }
    const unknown = [parsed.a, parsed.b].filter((r) => !rooms.includes(r))
    if (unknown.length) {
      problems.push({
        code: 'unknown-room',
        path,
        message: `link "${key}" names ${unknown.map((r) => `room "${r}"`).join(' and ')}, not in the topology`,
        hint: `use rooms of this topology: ${rooms.join(', ') || '(no rooms yet)'}`
      })
      continue
    }
    const pair = [parsed.a, parsed.b].sort().join('~')
    const first = seen.get(pair)
    if (first) {
      problems.push({
        code: 'duplicate-link',
        path,
        message: `link "${key}" is the same pair as ${first} (order does not matter)`,
        hint: 'merge the two entries into one'
      })
    } else seen.set(pair, path)
  }
  return problems
}

/** Validates a parsed JSON value as a topology and returns every problem found. */
export function validateTopology(value: unknown): TopologyResult {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, problems: [notAnObject(value)] }
  }
  const parsed = topologySchema.safeParse(value)
  if (!parsed.success) return { ok: false, problems: schemaProblems(parsed.error, value) }
  const problems = semanticProblems(parsed.data)
  return problems.length ? { ok: false, problems } : { ok: true, topology: parsed.data }
}

/** Parses JSON text strictly (see json-text.ts); also the value, for a document shown with its problems. */
export function readTopologyJson(
  text: string
): { ok: true; value: unknown } | { ok: false; problem: Problem } {
  const pre = precheckTopologyText(text)
  if (!pre.ok) return pre
  const parsed = parseJsonStrict(pre.text)
  if (parsed.ok) return parsed
  const e = parsed.error
  return {
    ok: false,
    problem: {
      code: e.code,
      path: e.path,
      message: `not valid JSON at line ${e.line}, column ${e.column}: ${e.message}`,
      hint: e.hint,
      line: e.line,
      column: e.column
    }
  }
}

/** Parses topology file text; a syntax or encoding error is reported as a problem, not thrown. */
export function parseTopologyText(text: string): TopologyResult {
  const read = readTopologyJson(text)
  return read.ok ? validateTopology(read.value) : { ok: false, problems: [read.problem] }
}

/** Formats a problem as one CLI line. */
export function formatProblem(p: Problem): string {
  return `${p.path}: ${p.message} (fix: ${p.hint})`
}

/** Serialises a topology the way DR Studio saves it, so saves diff cleanly. */
export function serializeTopology(topology: Topology): string {
  return JSON.stringify(topology, null, 2) + '\n'
}
