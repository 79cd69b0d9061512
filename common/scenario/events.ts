import { z } from 'zod'

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
  'broker-isolated': { brokerName: string; brokerRoom: string | null; reason: string }
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
  'pull-failed': { brokerName: string; brokerRoom: string | null; reason: string }
  fault: {
    action: string
    target: string[]
    nodes: string[]
    ok: boolean
    error?: string
    /** A network fault's own fields (mode, direction, latencyMs, lossPct, mbit…). */
    network?: Record<string, unknown>
  }
  /** Scheduled sends a producer did not make (down, or too many in flight), since the last row. */
  'sends-skipped': { down: number; inflightCap: number }
  /** A client worker died on its own: every client it hosted is down (a fault of those clients). */
  'worker-exit': { worker: string; room: string; clients: string[]; reason: string }
  counters: { sent: number; acked: number; failed: number; consumed: number; inflight: number }
  'client-started': { role: 'producer' | 'consumer'; clientKey: string }
  'client-stopped': { role: 'producer' | 'consumer'; mode: 'crash' | 'graceful' }
  phase: {
    phase: 'setup' | 'settle' | 'workload' | 'drain' | 'restore' | 'report'
    detail?: string
  }
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
