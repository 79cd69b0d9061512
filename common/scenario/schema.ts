import { z } from 'zod'
import { closestMatch, describeValue } from '../schema-issues'
import { MESSAGE_KINDS } from '../topology/lanes'
import {
  clientLaneSchema,
  idSchema,
  orderPolicySchema,
  selectionPolicySchema
} from '../topology/schema'
import { durationSchema } from './duration'
import { sweepSummarySchema } from './sweep-summary'

/** What the timeline can do to a node; clients (producers/consumers) support kill/stop/start/restart. */
export const faultActionSchema = z.enum(['kill', 'pause', 'resume', 'restart', 'stop', 'start'])
export type FaultAction = z.infer<typeof faultActionSchema>

/** One selector ("all brokers of room1", "ns-1") or several, unioned. */
export const targetSchema = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)])

// Every object a scenario file holds is strict: an unknown key is almost always a typo
// ("maxRtoMS") that would otherwise be dropped without a word, and the gate it meant never gates.

/** A node action of the timeline: `{ at: 5s, action: kill, target: all brokers of room1 }`. */
export const timelineStepSchema = z.strictObject({
  at: durationSchema,
  action: faultActionSchema,
  target: targetSchema,
  /** Free text shown in the timeline and scorecard. */
  note: z.string().optional()
})
export type TimelineStep = z.infer<typeof timelineStepSchema>

/** Network fault verbs; `target` and `peer` are room ids or node ids (ids are unique across both). */
export const networkActionSchema = z.enum([
  'isolate',
  'partition',
  'delay',
  'loss',
  'bandwidth',
  'heal'
])
export type NetworkAction = z.infer<typeof networkActionSchema>

/** `drop` makes clients wait out their timeouts; `reject` fails them fast (TCP reset / ICMP). */
export const blockModeSchema = z.enum(['drop', 'reject'])
export type BlockMode = z.infer<typeof blockModeSchema>

/** `to` = packets from target to peer, `from` = peer to target, `both` = either way. */
export const directionSchema = z.enum(['to', 'from', 'both'])
export type Direction = z.infer<typeof directionSchema>

const pairFields = { target: idSchema, peer: idSchema, direction: directionSchema.default('both') }
const networkFaultShapes = {
  isolate: {
    action: z.literal('isolate'),
    target: idSchema,
    mode: blockModeSchema.default('drop')
  },
  partition: {
    action: z.literal('partition'),
    ...pairFields,
    mode: blockModeSchema.default('drop')
  },
  delay: {
    action: z.literal('delay'),
    ...pairFields,
    latencyMs: z.number().min(0).max(60_000),
    jitterMs: z.number().min(0).max(60_000).default(0)
  },
  loss: { action: z.literal('loss'), ...pairFields, lossPct: z.number().min(0).max(100) },
  bandwidth: {
    action: z.literal('bandwidth'),
    ...pairFields,
    mbit: z.number().positive().max(100_000)
  },
  /** No target heals every network fault; a target heals the faults naming it; with a peer, that pair's. */
  heal: { action: z.literal('heal'), target: idSchema.optional(), peer: idSchema.optional() }
}

/**
 * A network fault as the network lab applies it (a timeline step without its time). Not strict:
 * it is the canvas's request payload and the lab's input, not something a person types.
 */
export const networkFaultSchema = z.discriminatedUnion('action', [
  z.object(networkFaultShapes.isolate),
  z.object(networkFaultShapes.partition),
  z.object(networkFaultShapes.delay),
  z.object(networkFaultShapes.loss),
  z.object(networkFaultShapes.bandwidth),
  z.object(networkFaultShapes.heal)
])
export type NetworkFault = z.infer<typeof networkFaultSchema>
export type NetworkFaultInput = z.input<typeof networkFaultSchema>

const stepFields = { at: durationSchema, note: z.string().optional() }

const networkStepOptions = [
  z.strictObject({ ...stepFields, ...networkFaultShapes.isolate }),
  z.strictObject({ ...stepFields, ...networkFaultShapes.partition }),
  z.strictObject({ ...stepFields, ...networkFaultShapes.delay }),
  z.strictObject({ ...stepFields, ...networkFaultShapes.loss }),
  z.strictObject({ ...stepFields, ...networkFaultShapes.bandwidth }),
  z.strictObject({ ...stepFields, ...networkFaultShapes.heal })
] as const

/** The actions a timeline step can name, as the error for an unknown one lists them. */
const ACTIONS_TEXT =
  `node actions: ${faultActionSchema.options.join(', ')}; ` +
  `network actions: ${networkActionSchema.options.join(', ')}`

/** Why a step's `action` picks no step shape: what it saw, what exists, and the likely one. */
export function unknownActionMessage(action: unknown): string {
  if (action === undefined) return `the step names no action; ${ACTIONS_TEXT}`
  if (typeof action !== 'string')
    return `${describeValue(action)} is not an action; ${ACTIONS_TEXT}`
  const meant = closestMatch(action, [...faultActionSchema.options, ...networkActionSchema.options])
  return `${JSON.stringify(action)} is not an action; ${ACTIONS_TEXT}${meant ? ` (did you mean ${JSON.stringify(meant)}?)` : ''}`
}

/** A timeline step whose action picks no shape gets our words; every other issue keeps zod's. */
const stepError = {
  error: (issue: z.core.$ZodRawIssue): string | undefined =>
    issue.code === 'invalid_union' && issue.note === 'No matching discriminator'
      ? unknownActionMessage((issue.input as Record<string, unknown>).action)
      : undefined
}

/** `{ at: 5s, action: partition, target: room1, peer: room2, direction: both, mode: drop }` and friends. */
export const networkStepSchema = z.discriminatedUnion('action', [...networkStepOptions])
export type NetworkStep = z.infer<typeof networkStepSchema>

/**
 * Any timeline entry: a node action (kill, pause, ...) or a network fault. One union keyed on
 * `action`, so a known action reports its own shape's problems (`timeline[1].peer` is missing)
 * and an unknown one says which actions exist.
 */
export const anyTimelineStepSchema = z.discriminatedUnion(
  'action',
  [timelineStepSchema, ...networkStepOptions],
  stepError
)
export type AnyTimelineStep = z.infer<typeof anyTimelineStepSchema>

/** True for the network half of the timeline vocabulary. */
export function isNetworkStep(step: AnyTimelineStep): step is NetworkStep {
  return networkActionSchema.safeParse(step.action).success
}

export const roomWorkloadSchema = z.strictObject({
  producers: z.number().int().min(0).max(64).default(1),
  consumers: z.number().int().min(0).max(64).default(1)
})

/** Client tuning; defaults are the fast-failover settings the benchmark targets were measured with. */
export const clientTuningSchema = z.strictObject({
  policy: selectionPolicySchema.optional(),
  routeRefresh: durationSchema.optional(),
  sendTimeout: durationSchema.default(3000),
  /** Absent: each lane's own (laneRequestTimeoutMs: 400 ms for ours, 1 s for java-dr). */
  requestTimeout: durationSchema.optional(),
  /**
   * Our lane: the longest a request timeout may grow to while recent healthy answers are slow (1.5 ×
   * their p99 of the last 30 s, never below requestTimeout). Absent: 4 × requestTimeout; equal to
   * requestTimeout: a fixed timeout.
   */
  maxRequestTimeout: durationSchema.optional(),
  probeInterval: durationSchema.default(200),
  managementRefresh: durationSchema.default(1000),
  heartbeatInterval: durationSchema.default(1000),
  rebalanceInterval: durationSchema.default(1000),
  pollTimeout: durationSchema.default(1000),
  /** Hedged sends (remoting lane): race a slow first attempt with a copy through another room. */
  hedge: z.boolean().default(false),
  /** Consumers (remoting lane) keep offsets across losing a queue; false = the behaviour before. */
  keepOffsets: z.boolean().default(true),
  /**
   * Ordered messages (remoting lane): `wait` never sends a key to another queue while its queue's
   * broker is down (order kept, those sends fail); `reroute` sends it to the next queue by the
   * room-first rule (sends go on, the key's order breaks by design).
   */
  orderPolicy: orderPolicySchema.default('wait'),
  /**
   * Orderly consumers (remoting lane): free the queue lock of a consumer gone from the group (a
   * crash) in its name instead of waiting for the broker to expire it (60 s). false: wait, as the
   * stock client does.
   */
  freeDepartedLocks: z.boolean().default(true)
})
export type ClientTuning = z.infer<typeof clientTuningSchema>

/** A lane variant's client settings: the same keys, none defaulted (absent = the scenario's). */
export const clientTuningOverrideSchema = z.strictObject({
  policy: selectionPolicySchema.optional(),
  routeRefresh: durationSchema.optional(),
  sendTimeout: durationSchema.optional(),
  requestTimeout: durationSchema.optional(),
  maxRequestTimeout: durationSchema.optional(),
  probeInterval: durationSchema.optional(),
  managementRefresh: durationSchema.optional(),
  heartbeatInterval: durationSchema.optional(),
  rebalanceInterval: durationSchema.optional(),
  pollTimeout: durationSchema.optional(),
  hedge: z.boolean().optional(),
  keepOffsets: z.boolean().optional(),
  orderPolicy: orderPolicySchema.optional(),
  freeDepartedLocks: z.boolean().optional()
})
export type ClientTuningOverride = z.infer<typeof clientTuningOverrideSchema>

/**
 * One entry of `workload.lanes`: a lane, or a named variant of a lane with its own client settings
 * (`{ lane: remoting, name: remoting-hedged, client: { hedge: true } }`), so two settings of one
 * client are compared under the same faults at the same instant.
 */
export const laneEntrySchema = z.union([
  clientLaneSchema,
  z.strictObject({
    lane: clientLaneSchema,
    name: idSchema,
    client: clientTuningOverrideSchema.default({})
  })
])
export type LaneEntry = z.infer<typeof laneEntrySchema>

export const workloadSchema = z.strictObject({
  duration: durationSchema.default(20_000),
  /** Messages per second per producer; overrides the topology's producer rate when set. */
  rate: z.number().positive().max(20_000).optional(),
  messageSize: z
    .number()
    .int()
    .positive()
    .max(4 * 1024 * 1024)
    .optional(),
  /** Clients per room; absent means the producers and consumers the topology declares. */
  rooms: z.record(idSchema, roomWorkloadSchema).optional(),
  /**
   * Client lane of every client of the run, overriding the topology's (see LANE_TRAITS in
   * common/topology/lanes.ts).
   */
  lane: clientLaneSchema.optional(),
  /**
   * Side by side: every client once per lane (ids suffixed with the lane or variant name), each
   * on its own topic and group, so one fault hits all lanes at the same instant.
   */
  lanes: z.array(laneEntrySchema).min(1).optional(),
  /**
   * What producers send (LANE_TRAITS.messageKinds says which lanes can). `delayed`: the broker's
   * timer (RocketMQ 5.x, TIMER_DELIVER_MS) holds each message until `delay` after its scheduled send.
   */
  messages: z.enum(MESSAGE_KINDS).default('normal'),
  /** `messages: delayed` only: how long after its scheduled send each message is due (1 s to 1 h). */
  delay: durationSchema
    .refine((ms) => ms >= 1000 && ms <= 3_600_000, {
      message: 'delay must be between 1s (the broker timer’s precision) and 1h'
    })
    .optional(),
  /**
   * `messages: ordered` only: sharding keys per producer (default 16). Each key's messages go to one
   * queue with a per-key sequence number; consumers consume each queue orderly under a broker lock.
   */
  orderKeys: z.number().int().min(1).max(4096).optional(),
  /**
   * `messages: transactional` only: the share of local transactions that commit (default 0.8; the
   * rest roll back), drawn per message by a rule seeded by its key.
   */
  commitShare: z.number().min(0).max(1).optional(),
  /**
   * `messages: transactional` only: the share answered only through the broker's check-back
   * (default 0.2): no END_TRANSACTION is sent, CHECK_TRANSACTION_STATE gets the answer.
   */
  checkShare: z.number().min(0).max(1).optional(),
  /** Upper bound on waiting for every acknowledged message to be consumed after the workload. */
  drainTimeout: durationSchema.default(20_000),
  /** Upper bound on waiting for consumers to settle on their own rooms' queues before sending. */
  settleTimeout: durationSchema.default(15_000),
  /**
   * Upper bound on unrecorded warm-up sends before the clock starts: freshly started brokers answer
   * in hundreds of ms until their JIT warms up, which a 400 ms request timeout would call a fault.
   */
  warmupTimeout: durationSchema.default(30_000),
  /**
   * After the drain, consumers keep running this long so late redeliveries are counted: duplicates
   * counted the moment the last message arrived would only be a lower bound.
   */
  duplicateGrace: durationSchema.default(3000)
})
export type Workload = z.infer<typeof workloadSchema>

/** An ordered workload's keys per producer when the file names none. */
export const DEFAULT_ORDER_KEYS = 16

/** Sharding keys per producer of this workload: 0 for unordered messages. */
export function orderKeysOf(w: Pick<Workload, 'messages' | 'orderKeys'>): number {
  return w.messages === 'ordered' ? (w.orderKeys ?? DEFAULT_ORDER_KEYS) : 0
}

/** A delayed workload's delay when the file names none. */
export const DEFAULT_DELAY_MS = 5000

/** How long the broker holds each message of this workload: 0 for plain messages. */
export function delayOf(w: Pick<Workload, 'messages' | 'delay'>): number {
  return w.messages === 'delayed' ? (w.delay ?? DEFAULT_DELAY_MS) : 0
}

/** A transactional workload's shares when the file names none. */
export const DEFAULT_COMMIT_SHARE = 0.8
export const DEFAULT_CHECK_SHARE = 0.2

/** A transactional workload's rule (commit and check-back shares); null for other messages. */
export function transactionSharesOf(
  w: Pick<Workload, 'messages' | 'commitShare' | 'checkShare'>
): { commitShare: number; checkShare: number } | null {
  if (w.messages !== 'transactional') return null
  return {
    commitShare: w.commitShare ?? DEFAULT_COMMIT_SHARE,
    checkShare: w.checkShare ?? DEFAULT_CHECK_SHARE
  }
}

export const failoverKindSchema = z.enum(['namesrv', 'broker', 'consumer-takeover'])
export type FailoverKind = z.infer<typeof failoverKindSchema>

export const expectedFailoverSchema = z.strictObject({
  kind: failoverKindSchema,
  fromRoom: idSchema.optional(),
  toRoom: idSchema.optional(),
  /** Least number of such failovers the report must show. */
  min: z.number().int().min(1).default(1)
})

/**
 * `{ group: broker-a, toOtherRoom: true, within: 10s }`: every time a fault takes out the group's
 * master (kill, stop, pause, or a cut of its room), the controllers must make another replica
 * master, in another room when `toOtherRoom`, within `within` of the fault.
 */
export const expectedElectionSchema = z.strictObject({
  /** The controller-mode group (brokerName of its replicas). */
  group: z.string().min(1),
  toOtherRoom: z.boolean().default(true),
  within: durationSchema.default(10_000)
})
export type ExpectedElection = z.infer<typeof expectedElectionSchema>

export const gatesSchema = z.strictObject({
  maxRtoMs: z.number().nonnegative().optional(),
  maxLost: z.number().int().nonnegative().default(0),
  maxDuplicates: z.number().int().nonnegative().optional(),
  /**
   * Deliveries of a stored message beyond its first (the consumer side of the duplicates; a
   * message a retried send stored twice is not one). A fault that should not disturb consumers
   * gates on this, since a send outliving its timeout on a loaded host duplicates at any time.
   */
  maxRedeliveries: z.number().int().nonnegative().optional(),
  /**
   * Share (0..1) of sends and consumptions served by the client's own room before the first fault.
   * Sends another room took while the client's own room was failing (within the last 5 s an
   * own-room attempt failed and none was acknowledged since, or the client isolated an own-room
   * broker and has not let it back in: a stalled broker) are failovers, listed as such and left out.
   */
  minLocalShare: z.number().min(0).max(1).optional(),
  /**
   * Share (0..1) of sends and consumptions served by the client's own room from the first fault on
   * (a cut between rooms: each side keeps serving its own room).
   */
  minLocalShareAfterFault: z.number().min(0).max(1).optional(),
  /** Share (0..1) of sends that must be acknowledged; failed sends count against it. */
  minAckedShare: z.number().min(0).max(1).optional(),
  /** Sends of these rooms' producers after the first fault must be acknowledged by brokers of `viaRoom`. */
  sendsAfterFault: z
    .array(
      z.strictObject({
        fromRoom: idSchema,
        viaRoom: idSchema,
        min: z.number().int().min(1).default(1)
      })
    )
    .optional(),
  /** Messages stored in `brokerRoom` that consumers of `consumerRoom` must have consumed. */
  consumedAcross: z
    .array(
      z.strictObject({
        brokerRoom: idSchema,
        consumerRoom: idSchema,
        min: z.number().int().min(1).default(1)
      })
    )
    .optional(),
  failovers: z.array(expectedFailoverSchema).optional(),
  /**
   * Controller mode: acknowledged messages lost with a master the controllers replaced (never
   * consumed after the switch). Fails on a topology without controller-mode groups.
   */
  maxRpoMessages: z.number().int().nonnegative().optional(),
  /** Controller mode: a new master after each fault that takes a group's master out. */
  elections: z.array(expectedElectionSchema).optional(),
  /**
   * Delayed workloads: the latest first delivery of an acknowledged delayed message, after its due
   * time. Fails on a run without delayed messages; messages never delivered are `maxLost`'s.
   */
  maxDelayLatenessMs: z.number().nonnegative().optional(),
  /**
   * Ordered workloads: first deliveries of a key's message after a later message of the same key,
   * summed over the run's lanes. Fails on a run without ordered messages.
   */
  maxOrderViolations: z.number().int().nonnegative().optional(),
  /**
   * Ordered workloads: the longest time a queue held acknowledged messages and delivered none (a
   * lock handoff, a dead broker), over the run's lanes. Fails on a run without ordered messages.
   */
  maxOrderStallMs: z.number().nonnegative().optional(),
  /**
   * Transactional workloads: messages whose broker outcome differs from the local transaction's
   * decision (committed and never delivered, rolled back and delivered), summed over the run's
   * lanes. Fails on a run without transactional messages.
   */
  maxTxMismatches: z.number().int().nonnegative().optional(),
  /**
   * Transactional workloads: half messages a client rolled back itself without running the local
   * transaction (the stock Java client does when the send status is not SEND_OK, e.g. a
   * synchronous master without its slave: apache/rocketmq#3885), summed over the run's lanes.
   * Fails on a run without transactional messages.
   */
  maxTxClientRollbacks: z.number().int().nonnegative().optional(),
  /**
   * Headroom: in every fault window (a fault to the first repair after it, or the workload end),
   * the acknowledged rate as a share of the offered rate (sends scheduled); the worst window is
   * judged. Fails on a run without a fault window of a second or more.
   */
  minThroughputDuringFault: z.number().min(0).max(2).optional(),
  /** Deliveries beyond a message's first from the run's first repair on (a fail-back's). */
  maxFailbackDuplicates: z.number().int().nonnegative().optional(),
  /** Times a queue's consumption went back below what had been delivered from it. */
  maxOffsetRewinds: z.number().int().nonnegative().optional(),
  /** Clients of `fromRoom` that had to ask another room's management node (own one unreachable). */
  managementFallbacks: z
    .array(
      z.strictObject({
        fromRoom: idSchema,
        toRoom: idSchema.optional(),
        min: z.number().int().min(1).default(1)
      })
    )
    .optional()
})
export type Gates = z.infer<typeof gatesSchema>

/**
 * When to stop a workload early (an attached cluster is someone's real cluster): over `windowMs`,
 * more than `maxFailedShare` of sends failed, or the 99th percentile of acknowledged sends took
 * longer than `maxSendP99Ms`. Nothing is judged before `minSends` sends are in the window.
 */
export const abortSchema = z
  .strictObject({
    maxFailedShare: z.number().min(0).max(1).optional(),
    maxSendP99Ms: z.number().positive().optional(),
    windowMs: durationSchema.default(10_000),
    minSends: z.number().int().min(1).default(20)
  })
  .refine((a) => a.maxFailedShare !== undefined || a.maxSendP99Ms !== undefined, {
    message: 'an abort block needs maxFailedShare, maxSendP99Ms or both'
  })
export type AbortRules = z.infer<typeof abortSchema>

export const scenarioSchema = z.strictObject({
  kind: z.literal('drstudio/scenario').default('drstudio/scenario'),
  version: z.literal(1).default(1),
  name: z.string().min(1),
  description: z.string().optional(),
  /** A built-in topology name (e.g. `two-rooms`) or a path relative to the scenario file. */
  topology: z.string().min(1),
  workload: workloadSchema.default(workloadSchema.parse({})),
  client: clientTuningSchema.default(clientTuningSchema.parse({})),
  timeline: z.array(anyTimelineStepSchema).default([]),
  gates: gatesSchema.default(gatesSchema.parse({})),
  abort: abortSchema.optional()
})
export type Scenario = z.infer<typeof scenarioSchema>
export type ScenarioInput = z.input<typeof scenarioSchema>

// ---------------------------------------------------------------- report

export const gateResultSchema = z.object({
  name: z.string(),
  passed: z.boolean(),
  actual: z.union([z.number(), z.string(), z.null()]),
  limit: z.union([z.number(), z.string()])
})
export type GateResult = z.infer<typeof gateResultSchema>

export const clientRoleSchema = z.enum(['producer', 'consumer'])
export type ClientRole = z.infer<typeof clientRoleSchema>

export const clientReportSchema = z.object({
  id: z.string(),
  room: z.string(),
  role: clientRoleSchema,
  sent: z.number().int(),
  acked: z.number().int(),
  failed: z.number().int(),
  consumed: z.number().int(),
  lost: z.number().int(),
  duplicates: z.number().int(),
  /** One entry per fault window in which this client saw a failure; null = never recovered. */
  rtoMs: z.array(z.number().nullable()),
  maxSendLatencyMs: z.number().nullable().optional(),
  /** Producers: p99 of acknowledged sends' latency from the schedule (ms). */
  p99SendLatencyMs: z.number().nullable().optional(),
  /** Producers: sends the open-loop schedule asked for. */
  scheduled: z.number().int().optional(),
  /**
   * Producers: scheduled sends never made, by reason: the producer was down (killed, stopped,
   * restarting), it had too many sends in flight, or its worker died (its counts went with it).
   */
  notSent: z
    .object({ down: z.number().int(), inflightCap: z.number().int(), workerLost: z.number().int() })
    .optional()
})
export type ClientReport = z.infer<typeof clientReportSchema>

export const failoverReportSchema = z.object({
  atMs: z.number(),
  clientId: z.string(),
  kind: failoverKindSchema,
  fromRoom: z.string().nullable(),
  toRoom: z.string().nullable(),
  from: z.string().nullable().optional(),
  to: z.string().nullable().optional(),
  reason: z.string(),
  durationMs: z.number().nullable()
})
export type FailoverReport = z.infer<typeof failoverReportSchema>

/**
 * When a selection was made: before the first fault, from it on, or before it while the client's
 * own room was failing it (a failover, left out of the healthy share).
 */
export const selectionPhaseSchema = z.enum(['before-fault', 'own-room-failing', 'after-fault'])
export type SelectionPhase = z.infer<typeof selectionPhaseSchema>

export const selectionReportSchema = z.object({
  clientId: z.string(),
  role: clientRoleSchema,
  phase: selectionPhaseSchema,
  namesrvRoom: z.string().nullable(),
  brokerRoom: z.string().nullable(),
  count: z.number().int()
})
export type SelectionReport = z.infer<typeof selectionReportSchema>

/** Where a fault came from: the scenario's timeline, the operator (canvas), or observed. */
export const faultSourceSchema = z.enum(['timeline', 'operator', 'observed'])
export type FaultSource = z.infer<typeof faultSourceSchema>

export const faultReportSchema = z.object({
  atMs: z.number(),
  /**
   * A node action, a network fault (then `nodes` are the rooms or nodes it names), or what DR Studio
   * observed of an attached node it does not run (`observed-down` counts as a fault for RTO).
   */
  action: z.union([
    faultActionSchema,
    networkActionSchema,
    z.enum(['observed-down', 'observed-up'])
  ]),
  target: z.array(z.string()),
  nodes: z.array(z.string()),
  ok: z.boolean(),
  error: z.string().optional(),
  /** Who applied it: the scenario's timeline, the operator (canvas), or nobody DR Studio runs. */
  source: faultSourceSchema.optional()
})
export type FaultReport = z.infer<typeof faultReportSchema>

/**
 * A fault that took out a controller-mode group's master (killed, stopped, paused, or its room cut
 * off), and the replica the controllers made master after it, or why none was.
 */
export const takeoverSchema = z.object({
  group: z.string(),
  /** When the fault hit, ms from the workload start. */
  atMs: z.number(),
  /** The fault's action (kill, pause, isolate…). */
  fault: z.string(),
  master: z.string(),
  masterRoom: z.string().nullable(),
  /** The group's SyncStateSet at the fault as the controllers last reported it; null = never read. */
  inSync: z.array(z.string()).nullable(),
  /** The first other replica made master after the fault; null = none before the run ended. */
  to: z.string().nullable(),
  toRoom: z.string().nullable(),
  /** From the fault to that election. */
  afterMs: z.number().nullable(),
  /** Why no other replica became master; null when one did. */
  reason: z.string().nullable()
})
export type Takeover = z.infer<typeof takeoverSchema>

/** Controller-mode runs: the master switches, the quorum's leader, split brains and the RPO. */
export const controllerReportSchema = z.object({
  rpo: z.object({
    /** Acknowledged by a master that was replaced and missing from its successor: never consumable after. */
    lostWithOldMaster: z.number().int(),
    /** Of those, the ones no consumer of the run got before the switch either. */
    neverConsumed: z.number().int(),
    /** Of those, the ones acknowledged before the fault (the replication gap at that moment). */
    unreplicatedAtFault: z.number().int(),
    /** Queues whose successor offset could not be read (their sends are not counted above). */
    unknownQueues: z.number().int(),
    note: z.string()
  }),
  groups: z.array(
    z.object({
      group: z.string(),
      switches: z.number().int(),
      /** Most replicas acting as master at once by their own account (2+ = split brain). */
      maxMasters: z.number().int(),
      lostWithOldMaster: z.number().int(),
      neverConsumed: z.number().int(),
      unreplicatedAtFault: z.number().int(),
      lostKeys: z.array(z.string()),
      /**
       * Split-brain attribution: per master term, the messages lost with it (the replica, its room
       * and master epoch that acknowledged them), and how many it acknowledged after its successor
       * was already master (two masters at once). atMs from the workload's start.
       */
      lostBy: z
        .array(
          z.object({
            master: z.string(),
            room: z.string().nullable(),
            epoch: z.number().int().nullable(),
            messages: z.number().int(),
            afterSuccessor: z.number().int(),
            firstAtMs: z.number(),
            lastAtMs: z.number(),
            keys: z.array(z.string())
          })
        )
        .default([])
    })
  ),
  leaderChanges: z.number().int(),
  elections: z.array(
    z.object({
      atMs: z.number(),
      group: z.string(),
      from: z.string().nullable(),
      fromRoom: z.string().nullable(),
      to: z.string().nullable(),
      toRoom: z.string().nullable(),
      epoch: z.number().int()
    })
  ),
  /** Every fault that took a group's master out, and what the controllers did (reports before: none). */
  takeovers: z.array(takeoverSchema).default([])
})
export type ControllerReport = z.infer<typeof controllerReportSchema>

/** What the fail-back did (common/scenario/failback.ts): duplicates after the repair, rewinds. */
export const failbackReportSchema = z.object({
  /** The first repair (restart, resume, start, heal), ms from the workload's start; null: none. */
  repairAtMs: z.number().nullable(),
  /** Deliveries beyond a message's first, before the first repair (the failover's). */
  duplicatesBeforeRepair: z.number().int(),
  /** The same from the first repair on (the fail-back's: a repaired node serving again). */
  duplicatesAfterRepair: z.number().int(),
  /** Times a queue's consumption went back below what had been delivered from it. */
  rewinds: z.number().int(),
  /** The queues that went back, most positions first. */
  rewoundQueues: z.array(
    z.object({
      /** The lane whose topic the queue is of, in a run of several lanes; else null. */
      lane: z.string().nullable().default(null),
      brokerName: z.string(),
      queueId: z.number().int(),
      rewinds: z.number().int(),
      /** The most positions one rewind went back. */
      maxBack: z.number().int(),
      firstAtMs: z.number()
    })
  )
})
export type FailbackReport = z.infer<typeof failbackReportSchema>

/** One lane's part of the fail-back, in a run of several lanes. */
export const failbackLaneSchema = z.object({
  lane: z.string(),
  duplicatesBeforeRepair: z.number().int(),
  duplicatesAfterRepair: z.number().int(),
  rewinds: z.number().int()
})

/** Ordered workloads, one lane (or lane variant): what the order checker found (common/scenario/order.ts). */
export const orderLaneReportSchema = z.object({
  lane: z.string(),
  /** The lane's ordered-send policy (remoting lanes); null where the lane has no such setting. */
  orderPolicy: orderPolicySchema.nullable(),
  keys: z.number().int(),
  acked: z.number().int(),
  delivered: z.number().int(),
  /** Delivered although their send was reported failed (a timeout the broker stored anyway). */
  storedUnacked: z.number().int().default(0),
  /** First deliveries of a key's message after a later message of the same key had been delivered. */
  violations: z.number().int(),
  /** Keys with at least one violation, the first few by name. */
  violatedKeys: z.array(z.string()),
  violatedKeyCount: z.number().int(),
  /** When (ms from the workload's start) the first violation was delivered; null: none. */
  firstViolationAtMs: z.number().nullable().default(null),
  /** Acknowledged messages stored in a queue other than their key's usual one. */
  reroutes: z.number().int(),
  reroutedKeyCount: z.number().int(),
  /** Longest time a queue held acknowledged messages and delivered none; null: nothing delivered. */
  maxStallMs: z.number().nullable(),
  /** Where and when (ms from the workload's start) that longest stall began. */
  stall: z
    .object({ brokerName: z.string(), queueId: z.number().int(), fromMs: z.number() })
    .nullable()
})
export type OrderLaneReport = z.infer<typeof orderLaneReportSchema>

export const orderReportSchema = z.object({
  /** Sharding keys per producer. */
  orderKeys: z.number().int(),
  lanes: z.array(orderLaneReportSchema)
})
export type OrderReport = z.infer<typeof orderReportSchema>

/** Transactional workloads, one lane (or lane variant): common/scenario/transactions.ts. */
export const transactionsLaneReportSchema = z.object({
  lane: z.string(),
  /** Transactional sends scheduled (acknowledged or failed). */
  sent: z.number().int(),
  /** Half messages acknowledged. */
  acked: z.number().int(),
  /** Of those, the local transaction committed / rolled back. */
  committed: z.number().int(),
  rolledBack: z.number().int(),
  /** Rolled back by the client without running the local transaction (send status not SEND_OK). */
  clientRollbacks: z.number().int(),
  /**
   * Half messages the broker stored with a warning (SLAVE_NOT_AVAILABLE, FLUSH_SLAVE_TIMEOUT,
   * FLUSH_DISK_TIMEOUT: a synchronous master without its slave in time). The stock Java client
   * rolls these back (clientRollbacks); our lane runs the local transaction.
   */
  storedWithWarning: z.number().int().default(0),
  /** Left to the broker's check-back by the plan (checkShare). */
  viaCheck: z.number().int(),
  /**
   * END_TRANSACTION could not be written (the broker was gone): the check-back had to decide. Null
   * on lanes that cannot see it: the stock Java client sends it oneway and only logs a failure.
   */
  endLost: z.number().int().nullable(),
  /** Messages a check-back was answered for. */
  checkedBack: z.number().int(),
  /**
   * Of those, ones the producer had already ended (END_TRANSACTION written): the broker lost the
   * end, or its record of it, e.g. in a crash, and asked again; a commit answered again is
   * delivered again (a duplicate).
   */
  checkedAfterEnd: z.number().int().default(0),
  /**
   * Messages whose check-back came from a broker other than the one that stored the transaction:
   * a timed-out attempt left a second half message there.
   */
  checkedElsewhere: z.number().int().default(0),
  /** committedUndelivered + rolledBackDelivered. */
  mismatches: z.number().int(),
  /** Committed by the local transaction, never delivered. */
  committedUndelivered: z.number().int(),
  /** Rolled back (or never run: the send failed), delivered all the same. */
  rolledBackDelivered: z.number().int(),
  /** Committed, undelivered, END_TRANSACTION never written and no check-back answered. */
  unresolved: z.number().int(),
  /** Deliveries of committed messages beyond the first. */
  duplicates: z.number().int(),
  /** The first mismatched messages by key. */
  mismatchedKeys: z.array(z.string())
})
export type TransactionsLaneReport = z.infer<typeof transactionsLaneReportSchema>

export const transactionsReportSchema = z.object({
  commitShare: z.number(),
  checkShare: z.number(),
  /**
   * How often the brokers check back unresolved half messages (transactionCheckInterval), and the
   * age a half message must reach first (transactionTimeOut); null against an attached cluster,
   * whose own settings (30 s by default in RocketMQ 5, 60 s in 4.x) apply.
   */
  checkIntervalMs: z.number().nullable(),
  checkAfterMs: z.number().nullable(),
  lanes: z.array(transactionsLaneReportSchema)
})
export type TransactionsReport = z.infer<typeof transactionsReportSchema>

/** Delayed workloads: how the brokers' timer delivered what they acknowledged (common/scenario/delayed.ts). */
export const delayedReportSchema = z.object({
  /** `timer`: RocketMQ 5.x timer wheel, each message carrying TIMER_DELIVER_MS. */
  mechanism: z.enum(['timer']),
  delayMs: z.number(),
  /** The timer's slot width: deliveries up to this much before the due time are on time. */
  precisionMs: z.number(),
  acked: z.number().int(),
  delivered: z.number().int(),
  /** Acknowledged and never delivered (also counted in totals.lost). */
  neverDelivered: z.number().int(),
  /** Delivered more than precisionMs before the due time. */
  early: z.number().int(),
  /** Deliveries beyond the first. */
  duplicates: z.number().int(),
  /**
   * Messages the broker stored again (delivered from two or more queue offsets): the timer delivered
   * them twice, e.g. after a crash its checkpoint had not caught up with (apache/rocketmq#7601).
   */
  storedAgain: z.number().int().default(0),
  /** First delivery minus due time, over the delivered ones (signed). */
  latenessMs: z.object({
    p50: z.number().nullable(),
    p99: z.number().nullable(),
    max: z.number().nullable()
  }),
  /** The latest deliveries, latest first, with the room whose broker's timer held them. */
  latest: z.array(
    z.object({ key: z.string(), brokerRoom: z.string().nullable(), latenessMs: z.number() })
  )
})
export type DelayedReport = z.infer<typeof delayedReportSchema>

/** One lane's part of a delayed run, in a run of several lanes: the same figures over its producers. */
export const delayedLaneSchema = delayedReportSchema
  .omit({ mechanism: true, delayMs: true, precisionMs: true })
  .extend({ lane: z.string() })
export type DelayedLaneReport = z.infer<typeof delayedLaneSchema>

/** Messages and body bytes one way between two rooms, by what carried them. */
export const roomTrafficSchema = z.object({
  fromRoom: z.string(),
  toRoom: z.string(),
  produce: z.object({ messages: z.number().int(), bytes: z.number().int() }),
  consume: z.object({ messages: z.number().int(), bytes: z.number().int() })
})
export type RoomTraffic = z.infer<typeof roomTrafficSchema>

/**
 * Commit-log bytes one way between two rooms by replication: each slave's (or non-master
 * replica's) own commit log grew by them from workload start to the end of the drain, copied from
 * the master it named (the brokers' HA status), whole stored messages with their headers.
 */
export const replicationTrafficSchema = z.object({
  fromRoom: z.string(),
  toRoom: z.string(),
  bytes: z.number().int(),
  pairs: z.array(z.object({ master: z.string(), slave: z.string(), bytes: z.number().int() }))
})
export type ReplicationTraffic = z.infer<typeof replicationTrafficSchema>

/**
 * Cross-room traffic of a run: what the clients moved between rooms (message bodies: the sending
 * producer's configured size, per acknowledged send and per delivery of it), per direction, and
 * the share of all client traffic that crossed rooms; and apart from it, what replication moved.
 */
export const trafficReportSchema = z.object({
  links: z.array(roomTrafficSchema),
  totalBytes: z.number().int(),
  crossRoomBytes: z.number().int(),
  /** crossRoomBytes / totalBytes; null when nothing moved. */
  crossRoomShare: z.number().nullable(),
  /** Cross-room bytes per hour at the run's pace (workload start to the end of the drain). */
  crossRoomBytesPerHour: z.number().nullable(),
  /**
   * Replication between rooms (and within one: fromRoom = toRoom), per direction; null when the
   * run could not read it (no slave or replica, or the brokers did not answer).
   */
  replication: z.array(replicationTrafficSchema).nullable().default(null),
  /** The topology's price per GiB crossing rooms (settings.pricePerGb), when it sets one. */
  pricePerGb: z.number().nullable().default(null),
  /**
   * What the cross-room bytes (the clients', and replication's when read) cost per hour at the
   * run's pace and that price; null without a price or a pace.
   */
  costPerHour: z.number().nullable().default(null)
})
export type TrafficReport = z.infer<typeof trafficReportSchema>

/**
 * One fault window's load: offered (sends scheduled) against carried (sends acknowledged), per
 * second, in total and per room (offered by a room's clients, carried by a room's brokers).
 */
export const headroomReportSchema = z.object({
  fault: z.string(),
  /** Relative to the workload start; untilMs is the first repair after it or the workload end. */
  atMs: z.number(),
  untilMs: z.number(),
  offeredPerS: z.number(),
  carriedPerS: z.number(),
  /** carried / offered; null when nothing was offered. */
  share: z.number().nullable(),
  rooms: z.array(
    z.object({
      room: z.string(),
      offeredPerS: z.number(),
      carriedPerS: z.number(),
      /** The room's brokers' highest CPU sample in the window (100 = one core); null: not read. */
      peakCpuPct: z.number().nullable().default(null),
      /** Their longest send thread pool queue sampled in the window; null: not read. */
      peakSendQueue: z.number().nullable().default(null)
    })
  )
})
export type HeadroomReport = z.infer<typeof headroomReportSchema>

export const reportSchema = z.object({
  kind: z.literal('drstudio/scenario-report'),
  version: z.literal(1),
  scenario: z.string(),
  description: z.string().optional(),
  topology: z.string(),
  runId: z.number().int(),
  passed: z.boolean(),
  topic: z.string(),
  consumerGroup: z.string(),
  startedAt: z.string(),
  endedAt: z.string(),
  /** Epoch ms of the workload start: every `atMs` in the report is relative to it (ledger times are epoch). */
  originMs: z.number().default(0),
  timings: z.object({
    setupMs: z.number(),
    settleMs: z.number(),
    workloadMs: z.number(),
    drainMs: z.number(),
    totalMs: z.number()
  }),
  totals: z.object({
    sent: z.number().int(),
    acked: z.number().int(),
    failed: z.number().int(),
    consumed: z.number().int(),
    lost: z.number().int(),
    duplicates: z.number().int(),
    /**
     * The duplicates split by cause: a message the broker stored twice (a producer retried an
     * attempt whose answer it never got) or one stored message delivered again (a consumer
     * rebalance, a rewind, an unacknowledged delivery). Absent in reports older than the split.
     */
    storedAgain: z.number().int().optional(),
    redelivered: z.number().int().optional(),
    /** Scheduled sends never made (see clients[].notSent). */
    notSent: z.number().int().optional()
  }),
  /** How the loss and duplicate figures were taken. */
  measurement: z
    .object({
      /** Consumers kept running this long after the drain completed, so late redeliveries count. */
      duplicateGraceMs: z.number(),
      /** Deliveries in that grace period (all of them duplicates). */
      lateDeliveries: z.number().int(),
      note: z.string()
    })
    .optional(),
  gates: z.array(gateResultSchema),
  /** Set when the abort block stopped the workload early: why (the run then fails). */
  aborted: z.string().optional(),
  clients: z.array(clientReportSchema),
  failovers: z.array(failoverReportSchema),
  selections: z.array(selectionReportSchema),
  faults: z.array(faultReportSchema),
  /** Delayed workloads only. */
  delayed: delayedReportSchema.extend({ lanes: z.array(delayedLaneSchema).default([]) }).optional(),
  order: orderReportSchema.optional(),
  transactions: transactionsReportSchema.optional(),
  failback: failbackReportSchema
    .extend({ lanes: z.array(failbackLaneSchema).default([]) })
    .optional(),
  /** What the clients moved between rooms (absent in reports made before it was measured). */
  traffic: trafficReportSchema.optional(),
  /** Per fault window, the load offered against the load the rooms left carried. */
  headroom: z.array(headroomReportSchema).optional(),
  /**
   * Send latency of acknowledged sends, same-room against cross-room (from each send's scheduled
   * time, so a stalled sender cannot hide its stall): what a link between rooms costs.
   */
  latency: z
    .array(
      z.object({
        scope: z.enum(['same-room', 'cross-room']),
        sends: z.number().int(),
        p50Ms: z.number().nullable(),
        p99Ms: z.number().nullable(),
        maxMs: z.number().nullable()
      })
    )
    .optional(),
  controller: controllerReportSchema.optional(),
  /** Set on every run of a what-if sweep: the whole sweep, so each of its runs shows it. */
  sweep: sweepSummarySchema.optional(),
  /** Problems that did not stop the run (e.g. a drain that timed out). */
  notes: z.array(z.string()).default([])
})
export type ScenarioReport = z.infer<typeof reportSchema>
