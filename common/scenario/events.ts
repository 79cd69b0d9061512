import { z } from 'zod'
import type { NodeState } from '../contract/sandbox'

/**
 * Events of a run, as the ledger stores them and the app forwards them (`ledger:event`).
 * Healthy per-message traffic is not here (it goes to the messages tables); these are decisions,
 * failovers, faults, rebalances and periodic per-client counters.
 */
export interface LedgerEventData {
  /** A client fetched the name-server list from a management node. */
  'namesrv-list': {
    managementRoom: string
    fallback: boolean
    available: { id: string; room: string; address: string }[]
  }
  /** The own room's management node did not answer; another room's was asked instead. */
  'management-fallback': { fromRoom: string; toRoom: string | null; reason: string }
  'namesrv-choice': { namesrvId: string; namesrvRoom: string; address: string; reason: string }
  'namesrv-failover': {
    from: string
    fromRoom: string
    to: string | null
    toRoom: string | null
    reason: string
    durationMs: number | null
  }
  'route-updated': { namesrvId: string; brokers: { name: string; room: string | null }[] }
  'route-failed': { namesrvId: string; reason: string }
  /** The broker a producer sends to changed (not logged per send). */
  'broker-choice': { brokerName: string; brokerRoom: string | null; reason: string }
  'broker-failover': {
    from: string
    fromRoom: string | null
    to: string
    toRoom: string | null
    reason: string
    durationMs: number
    key: string
  }
  'broker-isolated': {
    brokerName: string
    brokerRoom: string | null
    reason: string
    /** The Java extension isolates for a time it names; ours until a probe recovers the broker. */
    isolatedForMs?: number
  }
  'broker-recovered': { brokerName: string; brokerRoom: string | null; isolatedMs: number }
  /** One failed request to a broker (refused, reset, timeout or a retryable code). */
  'send-attempt-failed': {
    key: string
    brokerName: string
    brokerRoom: string | null
    reason: string
    startMs: number
    endMs: number
  }
  /**
   * A producer's request timeout moved with its recent healthy latency (1.5 × p99 of the last 30 s,
   * between requestTimeout and maxRequestTimeout); `p99Ms` null: too few answers, the floor.
   */
  'request-timeout': {
    timeoutMs: number
    previousMs: number
    p99Ms: number | null
    samples: number
  }
  /** A slow first attempt was raced by a copy through another room's broker (hedged send). */
  'send-hedged': {
    key: string
    from: string
    fromRoom: string | null
    to: string
    toRoom: string | null
    delayMs: number
    /** The copy answered first (the send is served by `to`). */
    won: boolean
  }
  /** A send that exhausted its deadline; the message counts as failed (not acknowledged). */
  'send-failed': { key: string; reason: string; attempts: number }
  rebalance: {
    trigger: string
    queues: { brokerName: string; room: string | null; queueId: number }[]
    added: number
    removed: number
    consumerRooms: Record<string, number>
    orphanRooms: string[]
  }
  /** A consumer took queues of another room (orphaned, or its own room has no queues left). */
  'consumer-takeover': {
    fromRoom: string
    toRoom: string
    queues: number
    trigger: string
    reason: string
  }
  'consumer-ids-changed': { brokerName: string | null }
  /**
   * A consumer's pulls from a queue began to fail (once per episode; a gRPC consumer's name its proxy
   * and no queue): the queue delivers nothing to it until `pull-resumed`.
   */
  'pull-failed': { brokerName: string; brokerRoom: string | null; queueId?: number; reason: string }
  /** A pull of the queue answered again after failing: how long the queue stalled. */
  'pull-resumed': {
    brokerName: string
    brokerRoom: string | null
    queueId: number
    stalledMs: number
  }
  /**
   * An orderly consumer owns a queue whose lock the broker refuses (another client holds it, or the
   * broker does not answer): the queue delivers nothing to it until `queue-locked`.
   */
  'queue-lock-wait': {
    brokerName: string
    brokerRoom: string | null
    queueId: number
    reason: string
  }
  /** The lock came after a wait: how long the queue stalled for it. */
  'queue-locked': {
    brokerName: string
    brokerRoom: string | null
    queueId: number
    waitedMs: number
    /** Departed clients whose lock on the queue this consumer gave back for them to take it. */
    freedFrom?: string[]
  }
  /**
   * A broker asked about a transaction's half message (CHECK_TRANSACTION_STATE; through a proxy,
   * RecoverOrphanedTransactionCommand); `answer` is what this producer's local transactions said
   * (`unknown`: not one it ran, so no answer was sent).
   */
  'transaction-checked': {
    key: string
    brokerName: string | null
    answer: 'commit' | 'rollback' | 'unknown'
    error?: string
    /** gRPC lanes: the proxy that asked, and the message id of the copy it asked about. */
    proxy?: string
    messageId?: string
  }
  /** END_TRANSACTION could not be written (the broker's connection was gone): the check-back decides. */
  'transaction-end-lost': {
    key: string
    brokerName: string
    decision: 'commit' | 'rollback'
    reason: string
  }
  fault: {
    action: string
    target: string[]
    nodes: string[]
    ok: boolean
    error?: string
    /** Who applied it: the scenario's timeline, the operator (canvas), or nobody DR Studio runs. */
    source?: 'timeline' | 'operator' | 'observed'
    /** A network fault's own fields (mode, direction, latencyMs, lossPct, mbit…). */
    network?: Record<string, unknown>
  }
  /** Scheduled sends a producer did not make (down, or too many in flight), since the last row. */
  'sends-skipped': { down: number; inflightCap: number }
  /** An attached node stopped answering DR Studio's probes (an out-of-band failure counts as a fault). */
  'node-observed-down': { nodeId: string; kind: string; reason: string; latencyMs: number | null }
  /** An attached node answers again. */
  'node-observed-up': { nodeId: string; kind: string; reason: string; latencyMs: number | null }
  /** The workload was stopped early by the scenario's abort block. */
  aborted: { rule: string; reason: string }
  /** A client worker died on its own: every client it hosted is down (a fault of those clients). */
  'worker-exit': { worker: string; room: string; clients: string[]; reason: string }
  counters: { sent: number; acked: number; failed: number; consumed: number; inflight: number }
  /** The controller quorum's leader changed (controller nodes; null = no leader). */
  'controller-leader-changed': {
    from: string | null
    to: string | null
    /** DLedger id and address of the new leader. */
    selfId: string | null
    address: string | null
  }
  /**
   * A controller-mode group has a new master (replica node ids; from null = first seen, to null =
   * no master left). Rooms are the replicas' rooms.
   */
  'master-elected': {
    group: string
    from: string | null
    fromRoom: string | null
    to: string | null
    toRoom: string | null
    epoch: number
    toAddress: string | null
  }
  /** A group's SyncStateSet changed: replica node ids in sync and not, as the leader reports them. */
  'sync-state-set-changed': {
    group: string
    epoch: number
    syncStateSetEpoch: number
    master: string | null
    inSync: string[]
    notInSync: string[]
  }
  /**
   * Replicas of a group that act as master by their own account (broker runtime info
   * `brokerActive`); more than one is a split brain.
   */
  'masters-observed': { group: string; masters: string[]; controllerMaster: string | null }
  /**
   * Consume-queue max offsets of a group's replicas, taken at a fault that hit its master or at an
   * election (the new master's), for the RPO figures. Queue key `topic|queueId`; null = no answer.
   */
  'replica-offsets': {
    group: string
    trigger: 'fault' | 'elected'
    /** The replica that was (fault) or became (elected) master. */
    master: string | null
    replicas: { nodeId: string; room: string; offsets: Record<string, number> | null }[]
  }
  /**
   * A client's route shows a group's master at a new address: it follows it at once, and its
   * same-room rule now sees the group in `toRoom`.
   */
  'master-followed': {
    brokerName: string
    from: string | null
    fromRoom: string | null
    to: string
    toRoom: string | null
    sameRoom: boolean
    /** How long the route showed the group without a master before this one; null if it never did. */
    withoutMasterMs: number | null
  }
  'client-started': { role: 'producer' | 'consumer'; clientKey: string }
  'client-stopped': { role: 'producer' | 'consumer'; mode: 'crash' | 'graceful' }
  phase: {
    phase: 'setup' | 'settle' | 'workload' | 'drain' | 'restore' | 'report'
    detail?: string
  }
  /**
   * A server node (name server, broker, proxy, management node…) changed state during the run,
   * so a replay can redraw it from the ledger alone. `clientId` is null; `room` is the node's room.
   */
  'node-state': {
    nodeId: string
    kind: string
    room: string
    state: RecordedNodeState
    detail?: string
    /** An operator's node DR Studio watches but does not run. */
    attached?: boolean
  }
  /**
   * One broker's load when sampled during a run (every second): CPU its process used since the
   * last sample (100 = one core; null where DR Studio does not run the process), and the requests
   * waiting in its send thread pool's queue (null when it did not answer).
   */
  'broker-load': {
    nodeId: string
    room: string
    cpuPct: number | null
    sendQueue: number | null
  }
  /**
   * What one name server listed when sampled: every broker it knows (with its zone) and, when a
   * topic is sampled, that topic's route. `error` is set when the name server did not answer.
   */
  'namesrv-view': {
    namesrvId: string
    room: string
    brokers: NamesrvViewBroker[]
    route?: { topic: string; brokers: NamesrvViewBroker[] }
    /** The name server did not answer at all: it hands out nothing. */
    error?: string
    /** Only the route query failed; `brokers` is still what it listed. */
    routeError?: string
  }
  /** A network fault was applied to a link between rooms or a node pair (see main/services/network). */
  'network-fault': NetworkFaultData
  /** A network fault was undone (`heal` of one fault, or of everything when `target` is absent). */
  'network-heal': { faultId?: string; target?: string[]; peer?: string[]; reason?: string }
  /**
   * A Kubernetes run's Chaos Mesh object took effect (`AllInjected`) or was gone after its deletion
   * (the heal), by the engine's clock: first seen at `observedAt`, at most `boundMs` after it did.
   */
  'chaos-object': {
    phase: 'injected' | 'healed'
    object: string
    label: string
    requestedAt: number
    observedAt: number
    boundMs: number
    /** Chaos Mesh's own time of its last apply (its controller's clock). */
    chaosMeshAt?: string
  }
}

/** The states a replay knows: a node's states plus what a sampler or attach may see. */
export type RecordedNodeState = NodeState | 'observed-down'

/** One broker as a name server lists it: its broker name, master address and zone (room). */
export interface NamesrvViewBroker {
  brokerName: string
  address: string | null
  room: string | null
}

/**
 * A network fault as recorded: `action` is the vocabulary of the network service (isolate,
 * partition, one-way, delay, loss, bandwidth), `target` and `peer` are room or node ids.
 */
export type NetworkFaultData = {
  faultId?: string
  action: string
  target: string[]
  peer?: string[]
  delayMs?: number
  jitterMs?: number
  lossPercent?: number
  bandwidthKbit?: number
  ok?: boolean
  error?: string
}

export type LedgerEventKind = keyof LedgerEventData

export type LedgerEvent = {
  [K in LedgerEventKind]: {
    runId: number
    atMs: number
    kind: K
    clientId: string | null
    room: string | null
    data: LedgerEventData[K]
  }
}[LedgerEventKind]

/** Transport shape of `ledger:event` (data checked loosely; producers are typed above). */
export const ledgerEventSchema = z.object({
  runId: z.number().int(),
  atMs: z.number(),
  kind: z.string(),
  clientId: z.string().nullable(),
  room: z.string().nullable(),
  data: z.record(z.string(), z.unknown())
})

/** Which name server and broker a client currently uses (`client:choice`), emitted on change. */
export const clientChoiceSchema = z.object({
  clientId: z.string(),
  role: z.enum(['producer', 'consumer']),
  room: z.string(),
  namesrvId: z.string().optional(),
  namesrvRoom: z.string().optional(),
  brokerName: z.string().optional(),
  brokerRoom: z.string().optional()
})
export type ClientChoice = z.infer<typeof clientChoiceSchema>
