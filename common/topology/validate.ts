import type { z } from 'zod'
import { actionProblems } from './actions'
import { hostOf, listNodes, occupiedPorts } from './model'
import type { Topology } from './schema'
import { topologySchema } from './schema'

/** One thing wrong with a topology document, pointing at where it is and how to fix it. */
export interface Problem {
  code: string
  /** JSONPath of the offending value, `$` for the document itself. */
  path: string
  message: string
  hint: string
  nodeId?: string
}

export type TopologyResult = { ok: true; topology: Topology } | { ok: false; problems: Problem[] }

/** Converts a zod issue path to `$.rooms[0].brokers[1].port` form. */
export function toJsonPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (acc, seg) => (typeof seg === 'number' ? `${acc}[${seg}]` : `${acc}.${String(seg)}`),
    '$'
  )
}

function schemaProblems(error: z.ZodError): Problem[] {
  return error.issues.map((issue) => {
    const path = toJsonPath(issue.path)
    const last = issue.path[issue.path.length - 1]
    if (last === 'kind') {
      return {
        code: 'wrong-kind',
        path,
        message: 'this is not a DR Studio topology (kind must be "drstudio/topology")',
        hint: 'set "kind": "drstudio/topology", or open the file with the tool that wrote it'
      }
    }
    if (last === 'version' && issue.path.length === 1) {
      return {
        code: 'wrong-version',
        path,
        message: 'unsupported topology version (this build reads version 1)',
        hint: 'set "version": 1, or upgrade DR Studio to read newer files'
      }
    }
    return {
      code: 'schema',
      path,
      message: issue.message,
      hint: 'fix the value at this path; see resources/topologies/two-rooms.json for a valid example'
    }
  })
}

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
    } else if (b.spec.brokerId === 0) {
      problems.push({
        code: 'slave-broker-id',
        path: `${b.path}.brokerId`,
        nodeId: b.id,
        message: `slave broker "${b.id}" has brokerId 0; RocketMQ refuses to start it`,
        hint: 'give the slave a brokerId of 1 or more'
      })
    }
  }
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

  problems.push(...actionProblems(topology))
  return problems
}

/** Validates a parsed JSON value as a topology and returns every problem found. */
export function validateTopology(value: unknown): TopologyResult {
  const parsed = topologySchema.safeParse(value)
  if (!parsed.success) return { ok: false, problems: schemaProblems(parsed.error) }
  const problems = semanticProblems(parsed.data)
  return problems.length ? { ok: false, problems } : { ok: true, topology: parsed.data }
}

/** Parses topology file text; a JSON syntax error is reported as a problem, not thrown. */
export function parseTopologyText(text: string): TopologyResult {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (err) {
    return {
      ok: false,
      problems: [
        {
          code: 'json-syntax',
          path: '$',
          message: `not valid JSON: ${(err as Error).message}`,
          hint: 'fix the JSON syntax (a trailing comma or a missing quote is the usual cause)'
        }
      ]
    }
  }
  return validateTopology(value)
}

/** Formats a problem as one CLI line. */
export function formatProblem(p: Problem): string {
  return `${p.path}: ${p.message} (fix: ${p.hint})`
}

/** Serialises a topology the way DR Studio saves it, so saves diff cleanly. */
export function serializeTopology(topology: Topology): string {
  return JSON.stringify(topology, null, 2) + '\n'
}
