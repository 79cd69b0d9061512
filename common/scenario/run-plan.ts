import type { TargetNode } from './selectors'
import type { Scenario } from './schema'
import type { Topology } from '../topology/schema'
import { isAttachedCluster, listNodes, topicsOf } from '../topology/model'
import type { ClientPlan } from './client-plan'
import { planClients, targetNodes } from './client-plan'
import { decideRates, runConsumerGroup } from './workload-safety'
import { usesGrpcSdk } from '../topology/lanes'

/** A scenario with its topology resolved and checked, ready to run. */
export interface LoadedScenario {
  scenario: Scenario
  topology: Topology
  /** Where the scenario came from (null for text given directly). */
  file: string | null
  topologyFile: string
}

/** A scenario run (fresh topic per run) or a live run of the topology's own clients. */
export type RunKind = 'scenario' | 'session'

/**
 * What a run may do to the cluster's topics: a sandbox run creates a fresh topic per run; on an
 * attached cluster DR Studio only uses existing topics unless the user asked it to create them.
 */
export type TopicPolicy = 'create' | 'require-existing'

/** How a run names its topics and groups. */
export interface RunNames {
  topicOf(base: string): string
  groupOf(base: string): string
}

/** One topic a run sends on, as the topology names it and as the run does. */
export interface RunTopic {
  base: string
  name: string
  queues: number
  /**
   * Topic attributes to create it with: `+message.type=MIXED` for the topic of a gRPC lane's
   * delayed or ordered messages. A 5.x proxy checks a message's type against its topic's, and the lane's
   * warm-up and proxy probes are plain messages on the same topic (the sandbox's brokers that
   * serve proxies allow mixed topics, `enableMixedMessageType`).
   */
  attributes?: string
}

/**
 * Everything a run needs to know about itself, resolved once before anything runs: its clients
 * with their rates, names and topic policy, what a fault may target, room lookups and the
 * controller-mode groups. Phases read it; none re-derives it from the topology.
 */
export interface RunPlan {
  runId: number
  kind: RunKind
  loaded: LoadedScenario
  /** The brokers are an operator's, not the sandbox's. */
  attached: boolean
  names: RunNames
  topicPolicy: TopicPolicy
  /** The run's producers and consumers, with the rates decided for this cluster. */
  clients: ClientPlan[]
  /** Why the producers send at the rate they do (attached clusters), or null. */
  rateNote: string | null
  /** The run's topics (one per lane in a side-by-side run), by their run names. */
  topics: RunTopic[]
  /** The run's consumer groups, by their run names. */
  consumerGroups: string[]
  /**
   * Groups that must consume FIFO (subscription group `consumeMessageOrderly`): a gRPC lane's
   * consumers of ordered messages. A proxy pops a FIFO group's queue one batch at a time and holds
   * the next until the last is acknowledged; a plain group gets a queue's messages out of order.
   */
  fifoGroups: string[]
  /** Everything a fault may name: the topology's server nodes and the run's clients. */
  targets: TargetNode[]
  /** Room of every node id (servers and clients) and of every room id (itself). */
  roomOf: ReadonlyMap<string, string>
  rooms: string[]
  /** brokerName of every controller-mode group (replica brokers). */
  replicaGroups: string[]
  /** brokerName of every broker node. */
  brokerNameOf: ReadonlyMap<string, string>
}

/**
 * How a run names its topics and groups, and what it may do to them. On DR Studio's own sandbox a
 * scenario run makes a fresh topic and group per run (`orders-r12`), a session uses the topology's.
 * On an attached cluster every run uses the existing topic the topology names and a group of its
 * own (`drstudio-run-12`), so production groups' offsets never move, and it creates nothing unless
 * the user asked (`--create-topic`, or the box in Connect to cluster…).
 */
export function runNaming(input: {
  topology: Topology
  runId: number
  kind: RunKind
  createTopic?: boolean
}): { names: RunNames; topicPolicy: TopicPolicy } {
  const { topology, runId } = input
  if (isAttachedCluster(topology)) {
    const create = input.createTopic ?? topology.source?.createTopic ?? false
    return {
      names: { topicOf: (t) => t, groupOf: () => runConsumerGroup(runId) },
      topicPolicy: create ? 'create' : 'require-existing'
    }
  }
  if (input.kind === 'session') {
    return { names: { topicOf: (t) => t, groupOf: (g) => g }, topicPolicy: 'create' }
  }
  const suffix = (base: string): string => `${base}-r${runId}`
  return { names: { topicOf: suffix, groupOf: suffix }, topicPolicy: 'create' }
}

/**
 * The plans with their rates: as the topology or scenario says on the sandbox; on an attached
 * cluster a low default (capped in total) unless the scenario sets a rate.
 */
function ratedClients(
  loaded: LoadedScenario,
  attached: boolean
): { clients: ClientPlan[]; note: string | null } {
  const clients = planClients(loaded.scenario, loaded.topology)
  if (!attached) return { clients, note: null }
  const decision = decideRates({
    producers: clients
      .filter((p) => p.role === 'producer')
      .map((p) => ({ id: p.id, rate: p.rate })),
    attached,
    ...(loaded.scenario.workload.rate !== undefined
      ? { explicitRate: loaded.scenario.workload.rate }
      : {})
  })
  const rate = new Map(decision.rates.map((r) => [r.id, r.rate]))
  return {
    clients: clients.map((p) => (rate.has(p.id) ? { ...p, rate: rate.get(p.id)! } : p)),
    note: decision.note
  }
}

/** Resolves a run's plan from its scenario and topology: pure, once per run. */
export function resolveRunPlan(input: {
  loaded: LoadedScenario
  runId: number
  kind: RunKind
  createTopic?: boolean
}): RunPlan {
  const { loaded, runId, kind } = input
  const { topology } = loaded
  const attached = isAttachedCluster(topology)
  const { names, topicPolicy } = runNaming({
    topology,
    runId,
    kind,
    ...(input.createTopic !== undefined ? { createTopic: input.createTopic } : {})
  })
  const { clients, note } = ratedClients(loaded, attached)
  const queues = new Map(topicsOf(topology).map((t) => [t.name, t.queues]))
  const nodes = listNodes(topology)
  const roomOf = new Map<string, string>(topology.rooms.map((r) => [r.id, r.id]))
  for (const n of nodes) roomOf.set(n.id, n.room)
  for (const c of clients) roomOf.set(c.id, c.room)
  const brokers = nodes.flatMap((n) => (n.kind === 'broker' ? [n] : []))
  return {
    runId,
    kind,
    loaded,
    attached,
    names,
    topicPolicy,
    clients,
    rateNote: note,
    topics: [...new Set(clients.map((c) => c.topic))].map((base) => ({
      base,
      name: names.topicOf(base),
      queues: queues.get(base) ?? 4,
      ...topicAttributes(
        loaded.scenario,
        clients.filter((c) => c.topic === base)
      )
    })),
    consumerGroups: [
      ...new Set(clients.filter((c) => c.role === 'consumer').map((c) => names.groupOf(c.group)))
    ],
    fifoGroups:
      loaded.scenario.workload.messages === 'ordered'
        ? [
            ...new Set(
              clients
                .filter((c) => c.role === 'consumer' && usesGrpcSdk(c.lane))
                .map((c) => names.groupOf(c.group))
            )
          ]
        : [],
    targets: targetNodes(topology, clients),
    roomOf,
    rooms: topology.rooms.map((r) => r.id),
    replicaGroups: [
      ...new Set(brokers.filter((b) => b.spec.role === 'replica').map((b) => b.spec.brokerName))
    ],
    brokerNameOf: new Map(brokers.map((b) => [b.id, b.spec.brokerName]))
  }
}

/** A topic's attributes for the run's message kind and the lanes that send to it. */
function topicAttributes(
  scenario: Scenario,
  clients: readonly ClientPlan[]
): { attributes?: string } {
  const viaProxy = clients.some((c) => usesGrpcSdk(c.lane))
  if (!viaProxy) return {}
  // A proxy heartbeats a gRPC producer's transaction group to the brokers (so their check-backs
  // reach it) only for a topic of type TRANSACTION, not MIXED; such a topic takes half messages
  // only, so a transactional gRPC producer's warm-up and probes are half messages rolled back.
  if (scenario.workload.messages === 'transactional') {
    return { attributes: '+message.type=TRANSACTION' }
  }
  // Delayed (type DELAY) and ordered (FIFO: a message group) messages beside the plain warm-up.
  const typed = scenario.workload.messages === 'delayed' || scenario.workload.messages === 'ordered'
  return typed ? { attributes: '+message.type=MIXED' } : {}
}
