import type { ClientTuningOverride, FaultAction, LaneEntry, Scenario } from './schema'
import type { RoleSelector, TargetNode } from './selectors'
import { parseRoleSelector, resolveTarget } from './selectors'
import { isNetworkStep } from './schema'
import type { ClientLane } from '../topology/lanes'
import { CLIENT_LANES, LANE_TRAITS, laneSends } from '../topology/lanes'
import type { Topology } from '../topology/schema'
import { isAttachedCluster, listNodes, topicsOf } from '../topology/model'

/** One in-process client the scenario runs. */
export interface ClientPlan {
  id: string
  role: 'producer' | 'consumer'
  room: string
  /** Topic and group as the topology names them; the run suffixes them to stay independent. */
  topic: string
  group: string
  rate: number
  messageSize: number
  lane: ClientLane
  /** A lane variant's client settings over the scenario's (workload.lanes entries with a name). */
  tuning?: ClientTuningOverride
  /** The `workload.lanes` entry's name (the lane, or the variant's name) the client belongs to. */
  laneName?: string
}

/** A `workload.lanes` entry as a lane, the suffix its clients carry, and its settings. */
export function laneOf(entry: LaneEntry): {
  lane: ClientLane
  name: string
  tuning?: ClientTuningOverride
} {
  return typeof entry === 'string'
    ? { lane: entry, name: entry }
    : { lane: entry.lane, name: entry.name, tuning: entry.client }
}

/**
 * The producers and consumers of a scenario: `workload.rooms` when given, else the topology's;
 * with `workload.lanes`, each of them once per lane (or lane variant).
 */
export function planClients(scenario: Scenario, topology: Topology): ClientPlan[] {
  const plans = basePlans(scenario, topology)
  const lanes = scenario.workload.lanes
  if (!lanes) return plans
  return lanes.map(laneOf).flatMap(({ lane, name, tuning }) =>
    plans.map((p) => ({
      ...p,
      id: `${p.id}-${name}`,
      lane,
      topic: `${p.topic}-${name}`,
      group: `${p.group}-${name}`,
      laneName: name,
      ...(tuning ? { tuning } : {})
    }))
  )
}

function basePlans(scenario: Scenario, topology: Topology): ClientPlan[] {
  const { workload } = scenario
  const topics = topicsOf(topology)
  const defaultTopic = topics[0]?.name ?? 'drstudio'
  const nodes = listNodes(topology)
  const firstGroup = (kind: 'producer' | 'consumer'): string => {
    const n = nodes.find((x) => x.kind === kind)
    return n && (n.kind === 'producer' || n.kind === 'consumer') ? n.spec.group : `drstudio-${kind}`
  }
  if (workload.rooms) {
    const out: ClientPlan[] = []
    for (const room of topology.rooms) {
      const w = workload.rooms[room.id]
      if (!w) continue
      for (let i = 1; i <= w.producers; i++) {
        out.push({
          id: `producer-${room.id}-${i}`,
          role: 'producer',
          room: room.id,
          topic: defaultTopic,
          group: firstGroup('producer'),
          rate: workload.rate ?? 20,
          messageSize: workload.messageSize ?? 256,
          lane: workload.lane ?? 'remoting'
        })
      }
      for (let i = 1; i <= w.consumers; i++) {
        out.push({
          id: `consumer-${room.id}-${i}`,
          role: 'consumer',
          room: room.id,
          topic: defaultTopic,
          group: firstGroup('consumer'),
          rate: 0,
          messageSize: 0,
          lane: workload.lane ?? 'remoting'
        })
      }
    }
    return out
  }
  return nodes.flatMap((n): ClientPlan[] => {
    if (n.kind === 'producer') {
      return [
        {
          id: n.id,
          role: 'producer',
          room: n.room,
          topic: n.spec.topic,
          group: n.spec.group,
          rate: workload.rate ?? n.spec.rate,
          messageSize: workload.messageSize ?? n.spec.messageSize,
          lane: workload.lane ?? n.spec.lane
        }
      ]
    }
    if (n.kind === 'consumer') {
      return [
        {
          id: n.id,
          role: 'consumer',
          room: n.room,
          topic: n.spec.topic,
          group: n.spec.group,
          rate: 0,
          messageSize: 0,
          lane: workload.lane ?? n.spec.lane
        }
      ]
    }
    return []
  })
}

/** Everything a timeline step may name: the topology's server nodes and the scenario's clients. */
export function targetNodes(topology: Topology, clients: readonly ClientPlan[]): TargetNode[] {
  const servers = listNodes(topology).flatMap((n): TargetNode[] => {
    switch (n.kind) {
      case 'broker':
        return [{ id: n.id, kind: 'broker', room: n.room, role: n.spec.role }]
      case 'nameserver':
      case 'management':
      case 'proxy':
      case 'controller':
        return [{ id: n.id, kind: n.kind, room: n.room }]
      default:
        return []
    }
  })
  return [...servers, ...clients.map((c) => ({ id: c.id, kind: c.role, room: c.room }))]
}

/** Why a role selector cannot name anything in this topology, if it cannot. */
function roleProblem(role: RoleSelector, topology: Topology): string | undefined {
  const nodes = listNodes(topology)
  const groups = new Set(
    nodes.flatMap((n) =>
      n.kind === 'broker' && n.spec.role === 'replica' ? [n.spec.brokerName] : []
    )
  )
  if (role.role === 'master' && !groups.has(role.group)) {
    return `names group ${role.group}, which is not a controller-mode group of ${topology.name} (${[...groups].join(', ') || 'it has none'})`
  }
  const quorum = nodes.some(
    (n) => n.kind === 'controller' || (n.kind === 'nameserver' && n.spec.controller !== undefined)
  )
  if (role.role === 'leader' && !quorum) return `needs controllers, and ${topology.name} has none`
  return undefined
}

/**
 * The topology as the scenario needs it deployed: a delayed workload needs the brokers' timer
 * wheel, which sandbox topologies leave off unless asked (settings.timerWheel).
 */
export function withScenarioNeeds(scenario: Scenario, topology: Topology): Topology {
  if (scenario.workload.messages !== 'delayed' || topology.settings.timerWheel) return topology
  return { ...topology, settings: { ...topology.settings, timerWheel: true } }
}

/** Problems with a scenario against its topology, each naming the step and the fix. */
export function checkScenario(scenario: Scenario, topology: Topology): string[] {
  const problems: string[] = []
  const clients = planClients(scenario, topology)
  const nodes = targetNodes(topology, clients)
  const rooms = new Set(topology.rooms.map((r) => r.id))
  const names = (scenario.workload.lanes ?? []).map((e) => laneOf(e).name)
  for (const dup of new Set(names.filter((n, i) => names.indexOf(n) !== i))) {
    problems.push(
      `workload.lanes: "${dup}" appears twice; give a lane variant its own name ({ lane: ${dup}, name: ${dup}-2, client: {...} })`
    )
  }
  for (const room of Object.keys(scenario.workload.rooms ?? {})) {
    if (!rooms.has(room))
      problems.push(`workload.rooms.${room}: the topology has no room "${room}"`)
  }
  // The gRPC lanes reach brokers only through proxies; say so now rather than after a start timeout.
  // The Java lanes, like remoting, need only name servers (and a management node as address server).
  const proxies = listNodes(topology).flatMap((n) => (n.kind === 'proxy' ? [n.spec] : []))
  const lanes = new Set(clients.map((c) => c.lane))
  for (const lane of lanes) {
    const needs = LANE_TRAITS[lane].proxies
    if (needs === 'zone-pinned' && !proxies.some((p) => p.zoneMode)) {
      problems.push(
        `clients on the ${lane} lane need a zone-pinned proxy (zoneMode true) in every room; add proxies to the topology (see resources/topologies/two-rooms-proxies.json)`
      )
    }
    if (needs === 'any' && proxies.length === 0) {
      problems.push(
        `clients on the ${lane} lane need a proxy to connect to; add a proxy to the topology (zoneMode false for the plain one users run today)`
      )
    }
  }
  const kind = scenario.workload.messages
  const able = CLIENT_LANES.filter((l) => laneSends(l, kind))
  for (const lane of lanes) {
    if (!laneSends(lane, kind)) {
      problems.push(
        `workload.messages: the ${lane} lane cannot send ${kind} messages yet (lanes that can: ${able.join(', ')}); run those lanes, or drop ${lane} from the run`
      )
    }
  }
  if (scenario.workload.delay !== undefined && kind !== 'delayed') {
    problems.push(
      'workload.delay applies to delayed messages only; set workload.messages: delayed, or remove delay'
    )
  }
  if (scenario.workload.orderKeys !== undefined && kind !== 'ordered') {
    problems.push(
      'workload.orderKeys applies to ordered messages only; set workload.messages: ordered, or remove orderKeys'
    )
  }
  for (const share of ['commitShare', 'checkShare'] as const) {
    if (scenario.workload[share] !== undefined && kind !== 'transactional') {
      problems.push(
        `workload.${share} applies to transactional messages only; set workload.messages: transactional, or remove ${share}`
      )
    }
  }
  if (scenario.gates.maxRpoMessages !== undefined && kind === 'transactional') {
    // A half message's offset is in the broker's half topic, so the replica comparison behind RPO
    // cannot place it; loss and mismatches still judge every transaction.
    problems.push(
      'gates.maxRpoMessages cannot judge transactional messages (their offsets are in the half topic); gate them with maxLost and maxTxMismatches, or send normal messages'
    )
  }
  if (isAttachedCluster(topology) && (scenario.workload.lanes?.length ?? 0) > 1) {
    problems.push(
      'workload.lanes runs every lane on its own topic, which an attached cluster does not have; run one lane at a time against it (workload.lane)'
    )
  }
  // Zone mode is a strict filter: a java-zone client in a room without brokers never gets a route.
  const brokerRooms = new Set(topology.rooms.filter((r) => r.brokers.length > 0).map((r) => r.id))
  for (const room of new Set(clients.filter((c) => c.lane === 'java-zone').map((c) => c.room))) {
    if (!brokerRooms.has(room)) {
      problems.push(
        `java-zone clients in ${room}: the room has no broker, and RocketMQ zone mode routes only same-room brokers; add a broker to ${room} or use the java lane there`
      )
    }
  }
  if (!clients.some((c) => c.role === 'producer')) {
    problems.push(
      'the scenario runs no producer; add producers to the topology or to workload.rooms'
    )
  }
  const servers = new Set(
    nodes.filter((n) => n.kind !== 'producer' && n.kind !== 'consumer').map((n) => n.id)
  )
  scenario.timeline.forEach((step, i) => {
    if (step.at > scenario.workload.duration) {
      problems.push(
        `timeline[${i}].at (${step.at} ms) is after the workload ends (${scenario.workload.duration} ms); lengthen workload.duration`
      )
    }
    if (isNetworkStep(step)) {
      if (topology.network?.mode === 'loopback') {
        problems.push(
          `timeline[${i}]: ${step.action} is a network fault, and the topology runs on loopback (network.mode "loopback"); set network.mode to "auto"`
        )
      }
      for (const field of ['target', 'peer'] as const) {
        const id = (step as Record<string, unknown>)[field]
        if (typeof id !== 'string') continue
        if (!rooms.has(id) && !servers.has(id)) {
          problems.push(
            `timeline[${i}].${field}: "${id}" is neither a room nor a server node of ${topology.name} (rooms: ${[...rooms].join(', ')}); clients are cut through their room`
          )
        }
      }
      return
    }
    const all = typeof step.target === 'string' ? [step.target] : step.target
    const named = all.filter((t) => {
      const role = parseRoleSelector(t)
      if (!role) return true
      const problem = roleProblem(role, topology)
      if (problem) problems.push(`timeline[${i}].target: "${t}" ${problem}`)
      return false
    })
    if (named.length === 0) return
    const r = resolveTarget(named, nodes)
    if (!r.ok) {
      problems.push(`timeline[${i}].target: ${r.error}`)
      return
    }
    for (const n of r.nodes) {
      if (
        (n.kind === 'producer' || n.kind === 'consumer') &&
        (step.action === 'pause' || step.action === 'resume')
      ) {
        problems.push(
          `timeline[${i}]: ${n.id} is an in-process ${n.kind}; it can be killed, stopped, started or restarted, not ${step.action}d`
        )
      }
    }
  })
  for (const g of scenario.gates.sendsAfterFault ?? []) {
    for (const r of [g.fromRoom, g.viaRoom])
      if (!rooms.has(r)) problems.push(`gates.sendsAfterFault: unknown room ${r}`)
  }
  for (const g of scenario.gates.consumedAcross ?? []) {
    for (const r of [g.brokerRoom, g.consumerRoom])
      if (!rooms.has(r)) problems.push(`gates.consumedAcross: unknown room ${r}`)
  }
  return problems
}

/** The node actions a scenario's timeline takes on server nodes (for the attached-cluster gate). */
export function plannedNodeActions(
  scenario: Scenario,
  topology: Topology
): { action: FaultAction; nodeId: string }[] {
  const nodes = targetNodes(topology, planClients(scenario, topology))
  return scenario.timeline.flatMap((step) => {
    if (isNetworkStep(step)) return []
    const r = resolveTarget(step.target, nodes)
    if (!r.ok) return []
    return r.nodes
      .filter((n) => n.kind !== 'producer' && n.kind !== 'consumer')
      .map((n) => ({ action: step.action, nodeId: n.id }))
  })
}
