/**
 * The client-worker protocol: how the engine drives a process that hosts RocketMQ clients (a room
 * worker in Node, the Java client worker) and how ledger rows come back. One protocol for every
 * worker, so every lane is measured the same way. Described for implementers in docs/worker-protocol.md.
 *
 * Transport: the worker's stdin carries engine → worker frames, its stdout worker → engine frames;
 * stderr is free-form log text. A frame is a 4-byte big-endian unsigned length, then that many bytes
 * of UTF-8 JSON (one object). A worker whose stdin reaches EOF exits at once: the engine is gone.
 */
import type { ClientChoice } from '../../../common/scenario/events'
import type { ClientLane, LaneTraits } from '../../../common/topology/lanes'
import type { DeliveryRecord, SendRecord } from '../ledger/types'
import type { TxDecision } from '../../../common/scenario/transactions'

export const PROTOCOL_VERSION = 1
/** Frames above this are a protocol error (a runaway writer, or stdout polluted by a print). */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024

/** A management node as clients reach it. */
export interface WireManagementNode {
  id: string
  room: string
  /** Base URL, e.g. http://198.18.1.3:8080 */
  url: string
}

/** A name server as clients reach it, for static lists (attached clusters, rooms without management). */
export interface WireNameServer {
  id: string
  room: string
  address: string
}

/** Everything a worker needs to build one producer or consumer. */
export interface ClientSpec {
  id: string
  role: 'producer' | 'consumer'
  room: string
  /** Which runtime hosts which lane: LANE_TRAITS (a `java*` lane only exists in the Java worker). */
  lane: ClientLane
  /**
   * A lane variant's name (a `workload.lanes` entry named apart from its lane, e.g. the benchmark's
   * remoting-hedged): the variant gets a worker process of its own, so it never shares an event
   * loop with the lane it is compared against.
   */
  variant?: string
  topic: string
  group: string
  /** Rooms in the topology's order (tie-breaks, fallbacks). */
  roomOrder: string[]
  managementNodes: WireManagementNode[]
  /** Used when managementNodes is empty: every room's name servers, own room first. */
  nameServers: WireNameServer[]
  /** Tag workload messages carry; consumers subscribe to it only. */
  tag: string
  /** Lane tuning (times in milliseconds); absent keys take the lane's defaults. */
  tuning: Partial<{
    policy: 'random' | 'round-robin' | 'least-latency'
    routeRefreshMs: number
    sendTimeoutMs: number
    requestTimeoutMs: number
    /** Remoting producers: the ceiling of the request timeout that follows healthy latency. */
    maxRequestTimeoutMs: number
    probeIntervalMs: number
    managementRefreshMs: number
    heartbeatIntervalMs: number
    rebalanceIntervalMs: number
    pollTimeoutMs: number
    /** Remoting producers: hedged sends. */
    hedge: boolean
    /** Remoting consumers: keep offsets across losing a queue. */
    keepOffsets: boolean
    /** Remoting and java-dr producers of ordered messages: what a key does while its queue is unavailable. */
    orderPolicy: 'wait' | 'reroute'
    /** Remoting consumers of ordered messages: free a departed consumer's queue locks. */
    freeDepartedLocks: boolean
  }>
  /** Consumers of an ordered workload: lock each queue at its broker and consume it in order. */
  orderly?: boolean
  /**
   * Producers of a transactional workload: the Java lanes build a TransactionMQProducer (whose
   * check-back listener answers from its local transactions); our producer needs no switch.
   */
  transactional?: boolean
  /** Room of every broker group (brokerName → room), for lanes whose library does not report zones. */
  brokerRooms: Record<string, string>
  /**
   * Where a consumer starts on a queue its group never committed (`brokerName#queueId` → offset):
   * the queue's end when the run began, so a run on an existing topic reads only its own messages.
   * Absent: from the start of the queue (a fresh sandbox topic).
   */
  startOffsets?: Record<string, number>
  /** Lane-specific extras (e.g. the Java lanes' address server `host:port`, the baseline endpoint). */
  extra?: Record<string, string | number | boolean>
}

/** A producer's part of the open-loop workload. */
export interface WorkloadProducer {
  id: string
  /** Messages per second. */
  rate: number
  messageSize: number
  /** First send at t0 + offsetMs, so producers of one worker do not fire in lockstep. */
  offsetMs: number
  /** Delayed messages: each is due this long after its slot (absent: plain messages). */
  delayMs?: number
  /**
   * Ordered messages: the slots cycle over this many sharding keys (`<id>:k<n>`), each carrying its
   * own sequence number from 0 (absent: unordered messages).
   */
  orderKeys?: number
  /**
   * Transactional messages: each slot's local transaction commits with probability `commitShare`
   * and is answered only through the check-back with `checkShare`, by transactionPlanOf
   * (common/scenario/transactions.ts) over its key `<id>-<seq>` (absent: not transactional).
   */
  transaction?: { commitShare: number; checkShare: number }
}

export interface QueueState {
  brokerName: string
  room: string | null
  queueId: number
}

/** What the engine needs to decide whether consumers have settled (see phases/settle). */
export interface ClientState {
  id: string
  alive: boolean
  /** Client id as brokers see it (`ip@instance@room`), once started. */
  cid: string | null
  /** Queues a queue-owning consumer holds now (absent for producers and POP consumers). */
  assignment?: QueueState[]
  /** Readable queues of the consumer's current route. */
  readableQueues?: QueueState[]
  /** Brokers a producer currently isolates. */
  isolated?: string[]
}

/** Per producer: sends the schedule asked for that were not made, by reason. */
export interface SkippedSends {
  down: number
  inflightCap: number
}

/** Requests (engine → worker) and their results. */
export interface WorkerOps {
  hello: {
    args: { protocol: number; workerId: string; room: string | null }
    result: { protocol: number; runtime: LaneTraits['runtime']; pid: number; lanes: ClientLane[] }
  }
  'client.create': { args: { spec: ClientSpec }; result: Record<string, never> }
  /** Starts a created client; resolves once it has a route (or fails with why). */
  'client.start': { args: { id: string; timeoutMs: number }; result: { cid: string | null } }
  'client.stop': {
    args: { id: string; mode: 'graceful' | 'crash' }
    result: Record<string, never>
  }
  /** Stops and forgets the client, so the id can be created again (restart). */
  'client.remove': { args: { id: string }; result: Record<string, never> }
  'client.state': { args: { ids?: string[] }; result: { clients: ClientState[] } }
  /**
   * Unrecorded sends until every listed producer answers fast and steadily: its last `streak`
   * sends acknowledged at the first attempt with nothing isolated, at most a tenth of them slower
   * than `fastMs` (room-worker/warmup-window.ts; the Java worker's Warmup.java alike).
   */
  warmup: {
    args: { ids: string[]; timeoutMs: number; fastMs: number; streak: number; tag: string }
    result: { warmed: Record<string, boolean> }
  }
  /**
   * Starts the open-loop schedule: each producer fires at its rate from t0 whether or not earlier
   * sends finished; a send is skipped (and counted) while its producer is down or has `maxInflight`
   * sends outstanding. A producer removed and created again (restart) is picked up by id.
   * Keys are `<producerId>-<seq>`.
   */
  'workload.start': {
    args: {
      t0: number
      /** Epoch ms the schedule ends; null = until workload.stop. */
      end: number | null
      producers: WorkloadProducer[]
      maxInflight: number
      tag: string
      /**
       * A worker (re)started mid-workload joins the schedule here: slots before it are neither sent
       * nor counted (the engine counts what was scheduled but never sent), keys stay slot-numbered.
       */
      joinAt?: number
    }
    result: Record<string, never>
  }
  /** Stops the schedule, waits for in-flight sends (up to waitMs), returns the skip counts. */
  'workload.stop': {
    args: { waitMs: number }
    result: { skipped: Record<string, SkippedSends>; scheduled: Record<string, number> }
  }
  /** Stops every client (graceful) and exits. */
  shutdown: { args: Record<string, never>; result: Record<string, never> }
  /**
   * Local transactions another room's worker of the same lane ran: a proxy hands a check-back to
   * any producer of the topic, so each room answers for all (an application's shared database).
   */
  'tx.learn': { args: { facts: TxFact[] }; result: Record<string, never> }
}

/** A local transaction a gRPC producer ran (`storedAs`: the acknowledged copy's message id). */
export interface TxFact {
  key: string
  decision: TxDecision
  storedAs: string | null
}

export type WorkerOp = keyof WorkerOps

/** One ledger row, as the engine writes it (the engine is the only SQLite writer). */
export type WireRow =
  | {
      k: 'e'
      kind: string
      clientId: string | null
      room: string | null
      atMs: number
      data: Record<string, unknown>
    }
  | ({ k: 's' } & SendRecord)
  | ({ k: 'd' } & DeliveryRecord)

export type EngineToWorker = {
  [O in WorkerOp]: { t: 'req'; id: number; op: O; args: WorkerOps[O]['args'] }
}[WorkerOp]

export type WorkerToEngine =
  | { t: 'res'; id: number; ok: true; result: unknown }
  | { t: 'res'; id: number; ok: false; error: { message: string; code?: string } }
  /** Ledger rows, batched (a worker flushes at least every 50 ms while rows are pending). */
  | { t: 'rows'; rows: WireRow[] }
  | { t: 'choice'; choice: ClientChoice }
  | { t: 'log'; level: 'info' | 'warn' | 'error'; message: string; clientId?: string }
  /** A client died on its own (uncaught failure inside the worker). */
  | { t: 'client-died'; id: string; reason: string }
  /** Local transactions its gRPC producers ran, for the lane's workers in other rooms. */
  | { t: 'tx-ran'; facts: TxFact[] }

/** Encodes one frame. */
export function encodeFrame(message: unknown): Buffer {
  const json = JSON.stringify(message)
  const length = Buffer.byteLength(json, 'utf8')
  if (length > MAX_FRAME_BYTES) {
    throw new Error(`worker frame of ${length} bytes exceeds ${MAX_FRAME_BYTES}`)
  }
  // One allocation, the JSON written in place: row batches are large, a body copy doubled them.
  const frame = Buffer.allocUnsafe(4 + length)
  frame.writeUInt32BE(length, 0)
  frame.write(json, 4, 'utf8')
  return frame
}

/** Incremental decoder: feed chunks as they arrive, get whole frames back. */
export class FrameDecoder {
  private buf: Buffer = Buffer.alloc(0)

  /** Returns the frames completed by this chunk; throws on an oversized or non-JSON frame. */
  push(chunk: Buffer): unknown[] {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk])
    const out: unknown[] = []
    while (this.buf.length >= 4) {
      const len = this.buf.readUInt32BE(0)
      if (len > MAX_FRAME_BYTES) {
        throw new Error(
          `worker frame header announces ${len} bytes (limit ${MAX_FRAME_BYTES}); is something printing to stdout?`
        )
      }
      if (this.buf.length < 4 + len) break
      const body = this.buf.subarray(4, 4 + len).toString('utf8')
      this.buf = this.buf.subarray(4 + len)
      try {
        out.push(JSON.parse(body))
      } catch (e) {
        throw new Error(`worker frame is not JSON (${(e as Error).message}): ${body.slice(0, 80)}`)
      }
    }
    return out
  }

  /** Bytes of an incomplete frame still buffered. */
  get pending(): number {
    return this.buf.length
  }
}
