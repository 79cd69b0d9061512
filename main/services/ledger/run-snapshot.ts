import type { DelayedMessage } from '../../../common/scenario/delayed'
import type { OrderedMessage } from '../../../common/scenario/order'
import type { TransactionalMessage } from '../../../common/scenario/transactions'
import type { FaultWindowCounts } from '../../../common/scenario/headroom'
import type { DeliveryAt } from '../../../common/scenario/failback'
import type { Op } from '../../../common/scenario/metrics'
import type { MasterChange, OffsetSample, RpoSend } from '../../../common/scenario/rpo'
import type {
  ConsumerStats,
  LedgerReader,
  LossSummary,
  ProducerStats,
  RoomFlowRow,
  SelectionRow,
  StoredEvent
} from './ledger-reader'

/** What a report needs to know that only the ledger can say, asked once at the end of a run. */
export interface SnapshotQuery {
  runId: number
  /** Workload start (epoch ms): failovers before it belong to setup. */
  t0: number
  /** First fault (epoch ms), splitting "healthy" from "under fault"; null = no fault. */
  firstFault: number | null
  producerIds: string[]
  /** Room pairs the gates ask about, counted after the first fault. */
  sendsVia: { fromRoom: string; viaRoom: string }[]
  consumedAcross: { brokerRoom: string; consumerRoom: string }[]
  /** Controller-mode runs: the groups (brokerNames) and each producer's topic, for the RPO figures. */
  controller?: { groups: string[]; clientTopics: Record<string, string> }
  /** Delayed workloads: read every acknowledged delayed message's due time and first delivery. */
  delayed?: boolean
  /** Ordered workloads: read every acknowledged ordered message's key, sequence and deliveries. */
  ordered?: boolean
  /** Transactional workloads: read every transactional send's decision, end and deliveries. */
  transactional?: boolean
  /** Fault windows (epoch ms) whose offered and carried load the headroom figures need. */
  faultWindows?: { fault: string; atMs: number; untilMs: number }[]
}

/** What the ledger says about a controller-mode run: the RPO inputs and the quorum's history. */
export interface ControllerSnapshot {
  sends: RpoSend[]
  changes: MasterChange[]
  samples: OffsetSample[]
  /** fault, controller-leader-changed, master-elected, sync-state-set-changed, masters-observed, replica-offsets. */
  events: StoredEvent[]
}

/** A run's ledger facts as plain data: report shaping is a pure function of this. */
export interface RunSnapshot {
  loss: LossSummary
  producers: ProducerStats[]
  consumers: ConsumerStats[]
  sendOps: Record<string, Op[]>
  /** broker-failover, namesrv-failover and consumer-takeover events at or after t0. */
  failovers: StoredEvent[]
  /** Per takeover event id: the first delivery across its rooms after it (takeover timing). */
  takeoverFirstDelivery: Record<number, number | null>
  selections: SelectionRow[]
  /** `${fromRoom}>${viaRoom}` → acknowledged sends stored there after the first fault. */
  sendsVia: Record<string, number>
  /** `${brokerRoom}>${consumerRoom}` → deliveries after the first fault. */
  consumedAcross: Record<string, number>
  managementFallbacks: StoredEvent[]
  skipped: Record<string, { down: number; inflightCap: number }>
  /** Worker processes that died on their own during the run. */
  workerExits: StoredEvent[]
  /** Latencies (ms, from the scheduled time) of acknowledged sends, by whether they crossed rooms. */
  sendLatency: { sameRoom: number[]; crossRoom: number[]; byClient: Record<string, number[]> }
  controller?: ControllerSnapshot
  delayed?: DelayedMessage[]
  ordered?: OrderedMessage[]
  transactional?: TransactionalMessage[]
  /** Every delivery's position and time, for the fail-back checker. */
  deliveries: DeliveryAt[]
  /** What each client moved between rooms (the traffic section). */
  roomFlows: RoomFlowRow[]
  /** Each fault window's offered and carried load (epoch ms), for the headroom figures. */
  faultWindows: (FaultWindowCounts & { fault: string })[]
}

const CONTROLLER_EVENTS = [
  // Faults too: what took a master out, and what else was out then (report takeovers).
  'fault',
  'controller-leader-changed',
  'master-elected',
  'sync-state-set-changed',
  'masters-observed',
  'replica-offsets'
]

/** The RPO inputs and the quorum's history of a controller-mode run. */
export function controllerSnapshot(
  reader: LedgerReader,
  runId: number,
  q: NonNullable<SnapshotQuery['controller']>
): ControllerSnapshot {
  const events = reader.events(runId, { kinds: CONTROLLER_EVENTS })
  const str = (v: unknown): string | null => (typeof v === 'string' ? v : null)
  return {
    sends: reader.ackedSendsTo(runId, q.groups).map((r) => ({
      key: r.key,
      topic: q.clientTopics[r.clientId] ?? '',
      group: r.brokerName,
      room: r.brokerRoom,
      queueId: r.queueId,
      queueOffset: r.queueOffset,
      ackedAt: r.ackedAt,
      consumed: r.consumed
    })),
    changes: events
      .filter((e) => e.kind === 'master-elected')
      .map((e) => ({
        group: String(e.data.group),
        at: e.atMs,
        to: str(e.data.to),
        toRoom: str(e.data.toRoom),
        epoch: typeof e.data.epoch === 'number' ? e.data.epoch : null
      })),
    samples: events
      .filter((e) => e.kind === 'replica-offsets')
      .map((e) => ({
        group: String(e.data.group),
        at: e.atMs,
        trigger: e.data.trigger === 'elected' ? 'elected' : 'fault',
        master: str(e.data.master),
        replicas: (e.data.replicas as OffsetSample['replicas'] | undefined) ?? []
      })),
    events: events.filter((e) => e.kind !== 'replica-offsets')
  }
}

export const pairKey = (a: string, b: string): string => `${a}>${b}`

/** Reads everything a report needs in one pass over the ledger. */
export function takeRunSnapshot(reader: LedgerReader, q: SnapshotQuery): RunSnapshot {
  const after = q.firstFault ?? -Infinity
  const failovers = reader
    .events(q.runId, { kinds: ['broker-failover', 'namesrv-failover', 'consumer-takeover'] })
    .filter((e) => e.atMs >= q.t0)
  const takeoverFirstDelivery: Record<number, number | null> = {}
  for (const e of failovers) {
    if (e.kind !== 'consumer-takeover') continue
    const { fromRoom, toRoom } = e.data as { fromRoom?: string; toRoom?: string }
    takeoverFirstDelivery[e.id] =
      fromRoom && toRoom ? reader.firstDeliveryAcross(q.runId, fromRoom, toRoom, e.atMs) : null
  }
  return {
    loss: reader.lossSummary(q.runId),
    producers: reader.producerStats(q.runId),
    consumers: reader.consumerStats(q.runId),
    sendOps: Object.fromEntries(q.producerIds.map((id) => [id, reader.sendOps(q.runId, id)])),
    failovers,
    takeoverFirstDelivery,
    selections: reader.selections(q.runId, q.firstFault),
    sendsVia: Object.fromEntries(
      q.sendsVia.map((g) => [
        pairKey(g.fromRoom, g.viaRoom),
        reader.sendsVia(q.runId, g.fromRoom, g.viaRoom, after)
      ])
    ),
    consumedAcross: Object.fromEntries(
      q.consumedAcross.map((g) => [
        pairKey(g.brokerRoom, g.consumerRoom),
        reader.consumedAcross(q.runId, g.brokerRoom, g.consumerRoom, after)
      ])
    ),
    managementFallbacks: reader
      .events(q.runId, { kinds: ['management-fallback'] })
      .filter((e) => e.atMs >= q.t0),
    skipped: Object.fromEntries(reader.skippedSends(q.runId)),
    workerExits: reader.events(q.runId, { kinds: ['worker-exit'] }),
    sendLatency: reader.sendLatencyByScope(q.runId),
    roomFlows: reader.roomFlows(q.runId),
    faultWindows: faultWindowsRead(reader, q),
    ...(q.controller ? { controller: controllerSnapshot(reader, q.runId, q.controller) } : {}),
    ...(q.delayed ? { delayed: reader.delayedMessages(q.runId) } : {}),
    ...(q.ordered ? { ordered: reader.orderedMessages(q.runId) } : {}),
    ...(q.transactional ? { transactional: reader.transactionalMessages(q.runId) } : {}),
    deliveries: reader.deliveryPositions(q.runId)
  }
}

/** Each fault window's offered and carried sends, and the brokers' load samples inside it. */
function faultWindowsRead(
  reader: LedgerReader,
  q: SnapshotQuery
): (FaultWindowCounts & { fault: string })[] {
  if (!q.faultWindows?.length) return []
  const load = reader.events(q.runId, { kinds: ['broker-load'] })
  return q.faultWindows.map((w) => ({
    ...w,
    ...reader.windowLoad(q.runId, w.atMs, w.untilMs),
    load: load
      .filter((e) => e.atMs >= w.atMs && e.atMs < w.untilMs)
      .map((e) => {
        const d = e.data as { room?: string; cpuPct?: number | null; sendQueue?: number | null }
        return { room: d.room ?? '', cpuPct: d.cpuPct ?? null, sendQueue: d.sendQueue ?? null }
      })
  }))
}
