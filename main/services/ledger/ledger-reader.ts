import type { Database } from 'better-sqlite3'
import type { CounterSample, Op } from '../../../common/scenario/metrics'
import type { DelayedMessage } from '../../../common/scenario/delayed'
import type { OrderedMessage } from '../../../common/scenario/order'
import type { TransactionalMessage } from '../../../common/scenario/transactions'
import type { DeliveryAt } from '../../../common/scenario/failback'
import type { SelectionPhase } from '../../../common/scenario/schema'

export interface LossSummary {
  sent: number
  acked: number
  failed: number
  deliveries: number
  consumedDistinct: number
  /** Acknowledged sends never consumed (a rolled-back transaction is not one: it must not arrive). */
  lost: number
  /** Deliveries beyond the first per key. */
  duplicates: number
  /** Of those, copies the broker stored again (another queue position of a delivered key). */
  storedAgain: number
  /** Of those, deliveries of a position already delivered (duplicates - storedAgain). */
  redelivered: number
  /**
   * Delivered keys no acknowledged send produced (failed sends stored anyway), or whose
   * transaction was rolled back.
   */
  unexpected: number
  lostKeys: string[]
}

export interface ProducerStats {
  clientId: string
  room: string
  sent: number
  acked: number
  failed: number
  lost: number
  duplicates: number
  maxLatencyMs: number | null
}

export interface ConsumerStats {
  clientId: string
  room: string
  consumed: number
  /** This consumer's deliveries that were not the first delivery of their key. */
  duplicates: number
}

export interface StoredEvent {
  id: number
  atMs: number
  kind: string
  clientId: string | null
  room: string | null
  data: Record<string, unknown>
}

/**
 * How long after a failed own-room attempt a client's cross-room sends count as failovers (see
 * selections): our producer probes an isolated broker every 200 ms and takes it back on the first
 * answer, so a client still away from a healthy room this long later chose to be.
 */
export const OWN_ROOM_FAILING_MS = 5000

export interface SelectionRow {
  clientId: string
  clientRoom: string
  namesrvRoom: string | null
  brokerRoom: string | null
  phase: SelectionPhase
  count: number
}

/** An acknowledged send and whether any consumer got it. */
export interface AckedSendRow {
  key: string
  clientId: string
  brokerName: string
  brokerRoom: string | null
  queueId: number
  queueOffset: number
  ackedAt: number
  consumed: boolean
}

/**
 * A send consumers must receive (alias `s`): acknowledged, and not a transaction its local
 * transaction or its client rolled back (those must never arrive).
 */
const MUST_DELIVER = `s.status = 'acked' AND COALESCE(s.tx_decision, 'commit') = 'commit'
  AND COALESCE(s.tx_end, '') != 'client-rollback'`

/** Messages one client moved from one room to another (see LedgerReader.roomFlows). */
export interface RoomFlowRow {
  kind: 'produce' | 'consume'
  clientId: string
  /** The producer that sent the messages (their size is its); null when the ledger has no send. */
  producerId: string | null
  fromRoom: string
  toRoom: string
  messages: number
}

/** Read side of the ledger: loss, duplicates, RTO inputs and selections of a run (works mid-run). */
export class LedgerReader {
  constructor(private readonly db: Database) {}

  lossSummary(runId: number, listKeys = 20): LossSummary {
    const s = this.db
      .prepare(
        `SELECT COUNT(*) AS sent, COALESCE(SUM(status = 'acked'), 0) AS acked,
                COALESCE(SUM(status = 'failed'), 0) AS failed
           FROM ledger_sends WHERE run_id = ?`
      )
      .get(runId) as { sent: number; acked: number; failed: number }
    const d = this.db
      .prepare(
        `SELECT COUNT(*) AS deliveries, COUNT(DISTINCT msg_key) AS distinctKeys,
                COUNT(DISTINCT msg_key || char(0) || broker_name || char(0) || queue_id || char(0) || queue_offset)
                  AS positions
           FROM ledger_deliveries WHERE run_id = ?`
      )
      .get(runId) as { deliveries: number; distinctKeys: number; positions: number }
    const lost = this.unconsumedCount(runId)
    const unexpected = (
      this.db
        .prepare(
          `SELECT COUNT(DISTINCT d.msg_key) AS n FROM ledger_deliveries d
            WHERE d.run_id = ? AND NOT EXISTS (SELECT 1 FROM ledger_sends s
              WHERE s.run_id = d.run_id AND s.msg_key = d.msg_key AND ${MUST_DELIVER})`
        )
        .get(runId) as { n: number }
    ).n
    const lostKeys = (
      this.db
        .prepare(
          `SELECT msg_key FROM ledger_sends s WHERE s.run_id = ? AND ${MUST_DELIVER} AND NOT EXISTS
             (SELECT 1 FROM ledger_deliveries d WHERE d.run_id = s.run_id AND d.msg_key = s.msg_key)
           ORDER BY s.ended_at LIMIT ?`
        )
        .all(runId, listKeys) as { msg_key: string }[]
    ).map((r) => r.msg_key)
    return {
      sent: s.sent,
      acked: s.acked,
      failed: s.failed,
      deliveries: d.deliveries,
      consumedDistinct: d.distinctKeys,
      lost,
      duplicates: d.deliveries - d.distinctKeys,
      storedAgain: d.positions - d.distinctKeys,
      redelivered: d.deliveries - d.positions,
      unexpected,
      lostKeys
    }
  }

  /**
   * Messages consumers must receive and have not yet: the drain condition, and `lost` once the
   * run ends.
   */
  unconsumedCount(runId: number): number {
    return (
      this.db
        .prepare(
          `SELECT COUNT(*) AS n FROM ledger_sends s WHERE s.run_id = ? AND ${MUST_DELIVER} AND NOT EXISTS
             (SELECT 1 FROM ledger_deliveries d WHERE d.run_id = s.run_id AND d.msg_key = s.msg_key)`
        )
        .get(runId) as { n: number }
    ).n
  }

  producerStats(runId: number): ProducerStats[] {
    return this.db
      .prepare(
        `SELECT s.client_id AS clientId, s.client_room AS room, COUNT(*) AS sent,
                COALESCE(SUM(s.status = 'acked'), 0) AS acked, COALESCE(SUM(s.status = 'failed'), 0) AS failed,
                COALESCE(SUM(${MUST_DELIVER} AND d.n IS NULL), 0) AS lost,
                COALESCE(SUM(CASE WHEN d.n > 1 THEN d.n - 1 ELSE 0 END), 0) AS duplicates,
                MAX(CASE WHEN s.status = 'acked' THEN s.ended_at - s.started_at END) AS maxLatencyMs
           FROM ledger_sends s
           LEFT JOIN (SELECT msg_key, COUNT(*) AS n FROM ledger_deliveries WHERE run_id = ? GROUP BY msg_key) d
             ON d.msg_key = s.msg_key
          WHERE s.run_id = ?
          GROUP BY s.client_id, s.client_room ORDER BY s.client_id`
      )
      .all(runId, runId) as ProducerStats[]
  }

  /**
   * Acknowledged delayed messages: when each was due, its first delivery (null: never), how many
   * deliveries, and at how many queue positions (more than one: the broker stored it again).
   */
  delayedMessages(runId: number): DelayedMessage[] {
    return this.db
      .prepare(
        `SELECT s.msg_key AS key, s.client_id AS producerId, s.broker_room AS brokerRoom, s.due_at AS dueAt,
                MIN(d.delivered_at) AS firstDeliveredAt, COUNT(d.msg_key) AS deliveries,
                COUNT(DISTINCT d.broker_name || '#' || d.queue_id || '#' || d.queue_offset) AS positions
           FROM ledger_sends s
           LEFT JOIN ledger_deliveries d ON d.run_id = s.run_id AND d.msg_key = s.msg_key
          WHERE s.run_id = ? AND s.status = 'acked' AND s.due_at IS NOT NULL
          GROUP BY s.msg_key ORDER BY s.due_at`
      )
      .all(runId) as DelayedMessage[]
  }

  /**
   * Ordered messages that were acknowledged or delivered (a send reported failed that the broker
   * stored anyway is part of what consumers saw): key, sequence, where stored (the first
   * delivery's position, else the acknowledgement's), when acknowledged and first delivered.
   */
  orderedMessages(runId: number): OrderedMessage[] {
    return this.db
      .prepare(
        `WITH firsts AS (
           SELECT msg_key, broker_name, queue_id, queue_offset, delivered_at,
                  ROW_NUMBER() OVER (PARTITION BY msg_key ORDER BY delivered_at) AS rn
             FROM ledger_deliveries WHERE run_id = ?)
         SELECT s.msg_key AS key, s.client_id AS producerId, s.order_key AS orderKey,
                s.order_seq AS orderSeq, COALESCE(f.broker_name, s.broker_name) AS brokerName,
                COALESCE(f.queue_id, s.queue_id) AS queueId,
                COALESCE(f.queue_offset, s.queue_offset) AS queueOffset,
                CASE WHEN s.status = 'acked' THEN s.ended_at END AS ackedAt,
                f.delivered_at AS firstDeliveredAt
           FROM ledger_sends s
           LEFT JOIN firsts f ON f.msg_key = s.msg_key AND f.rn = 1
          WHERE s.run_id = ? AND s.order_key IS NOT NULL
            AND (s.status = 'acked' OR f.msg_key IS NOT NULL)
          ORDER BY s.ended_at`
      )
      .all(runId, runId) as OrderedMessage[]
  }

  /**
   * Transactional sends (acknowledged or not): the local transaction's decision, how the broker
   * learned it, how many check-backs about it a producer answered (from the broker that stored
   * it, and from others: a half message a timed-out attempt left there), and its deliveries.
   */
  transactionalMessages(runId: number): TransactionalMessage[] {
    return this.db
      .prepare(
        `WITH d AS (SELECT msg_key, COUNT(*) AS n FROM ledger_deliveries WHERE run_id = ? GROUP BY msg_key),
              c AS (SELECT json_extract(data_json, '$.key') AS msg_key,
                           json_extract(data_json, '$.brokerName') AS broker_name, COUNT(*) AS n
                      FROM ledger_events
                     WHERE run_id = ? AND kind = 'transaction-checked'
                       AND json_extract(data_json, '$.answer') != 'unknown'
                     GROUP BY 1, 2)
         SELECT s.msg_key AS key, s.client_id AS producerId, s.status AS status,
                CASE WHEN s.status = 'acked' THEN s.error END AS warning,
                s.tx_decision AS decision, s.tx_end AS "end",
                COALESCE((SELECT SUM(c.n) FROM c WHERE c.msg_key = s.msg_key
                           AND (c.broker_name IS NULL OR s.broker_name IS NULL
                                OR c.broker_name = s.broker_name)), 0) AS checksAnswered,
                COALESCE((SELECT SUM(c.n) FROM c WHERE c.msg_key = s.msg_key
                           AND c.broker_name != s.broker_name), 0) AS checksElsewhere,
                COALESCE(d.n, 0) AS deliveries
           FROM ledger_sends s
           LEFT JOIN d ON d.msg_key = s.msg_key
          WHERE s.run_id = ? AND s.tx_decision IS NOT NULL
          ORDER BY s.ended_at`
      )
      .all(runId, runId, runId) as TransactionalMessage[]
  }

  /** Every delivery of the run: which message, from which queue position, when. */
  deliveryPositions(runId: number): DeliveryAt[] {
    return this.db
      .prepare(
        `SELECT msg_key AS key, client_id AS clientId, broker_name AS brokerName, queue_id AS queueId,
                queue_offset AS queueOffset, delivered_at AS deliveredAt
           FROM ledger_deliveries WHERE run_id = ? ORDER BY delivered_at, queue_offset`
      )
      .all(runId) as DeliveryAt[]
  }

  consumerStats(runId: number): ConsumerStats[] {
    return this.db
      .prepare(
        `SELECT client_id AS clientId, client_room AS room, COUNT(*) AS consumed,
                COALESCE(SUM(rn > 1), 0) AS duplicates
           FROM (SELECT client_id, client_room,
                        ROW_NUMBER() OVER (PARTITION BY msg_key ORDER BY delivered_at, id) AS rn
                   FROM ledger_deliveries WHERE run_id = ?)
          GROUP BY client_id, client_room ORDER BY client_id`
      )
      .all(runId) as ConsumerStats[]
  }

  /**
   * A producer's operations for RTO: each acknowledged send (its successful attempt), each failed
   * attempt (from events) and each send that exhausted its deadline.
   */
  sendOps(runId: number, clientId: string): Op[] {
    const acked = this.db
      .prepare(
        `SELECT COALESCE(attempt_started_at, started_at) AS startMs, ended_at AS endMs, status
           FROM ledger_sends WHERE run_id = ? AND client_id = ?`
      )
      .all(runId, clientId) as { startMs: number; endMs: number; status: string }[]
    const attempts = this.db
      .prepare(
        `SELECT json_extract(data_json, '$.startMs') AS startMs, json_extract(data_json, '$.endMs') AS endMs
           FROM ledger_events WHERE run_id = ? AND client_id = ? AND kind = 'send-attempt-failed'`
      )
      .all(runId, clientId) as { startMs: number; endMs: number }[]
    return [
      ...acked.map((r) => ({ startMs: r.startMs, endMs: r.endMs, ok: r.status === 'acked' })),
      ...attempts.map((r) => ({ startMs: r.startMs, endMs: r.endMs, ok: false }))
    ].sort((a, b) => a.startMs - b.startMs)
  }

  /**
   * The load of a window [fromMs, toMs): sends scheduled in it by the sending client's room, and
   * sends acknowledged in it by the room of the broker that stored them.
   */
  windowLoad(
    runId: number,
    fromMs: number,
    toMs: number
  ): { offered: { room: string; sends: number }[]; carried: { room: string; acked: number }[] } {
    const offered = this.db
      .prepare(
        `SELECT client_room AS room, COUNT(*) AS sends FROM ledger_sends
          WHERE run_id = ? AND COALESCE(scheduled_at, started_at) >= ? AND COALESCE(scheduled_at, started_at) < ?
          GROUP BY client_room ORDER BY client_room`
      )
      .all(runId, fromMs, toMs) as { room: string; sends: number }[]
    const carried = this.db
      .prepare(
        `SELECT broker_room AS room, COUNT(*) AS acked FROM ledger_sends
          WHERE run_id = ? AND status = 'acked' AND broker_room IS NOT NULL
            AND ended_at >= ? AND ended_at < ?
          GROUP BY broker_room ORDER BY broker_room`
      )
      .all(runId, fromMs, toMs) as { room: string; acked: number }[]
    return { offered, carried }
  }

  /** Latencies (ms) of acknowledged sends whose start lies in [fromMs, toMs). */
  sendLatencies(runId: number, fromMs = -Infinity, toMs = Infinity): number[] {
    return (
      this.db
        .prepare(
          `SELECT ended_at - started_at AS l FROM ledger_sends
            WHERE run_id = ? AND status = 'acked' AND started_at >= ? AND started_at < ?`
        )
        .all(runId, fromMs, toMs) as { l: number }[]
    ).map((r) => r.l)
  }

  /** Acknowledged sends' latency from their scheduled time (or start), same-room vs cross-room. */
  sendLatencyByScope(runId: number): {
    sameRoom: number[]
    crossRoom: number[]
    byClient: Record<string, number[]>
  } {
    const rows = this.db
      .prepare(
        `SELECT client_id AS c, ended_at - COALESCE(scheduled_at, started_at) AS l,
                client_room = broker_room AS same
           FROM ledger_sends WHERE run_id = ? AND status = 'acked' AND broker_room IS NOT NULL`
      )
      .all(runId) as { c: string; l: number; same: number }[]
    const out = {
      sameRoom: [] as number[],
      crossRoom: [] as number[],
      byClient: {} as Record<string, number[]>
    }
    for (const r of rows) {
      ;(r.same ? out.sameRoom : out.crossRoom).push(r.l)
      ;(out.byClient[r.c] ??= []).push(r.l)
    }
    return out
  }

  /** Events of a run, optionally only some kinds or those after a known id (for tailing). */
  events(
    runId: number,
    opts: { kinds?: string[]; excludeKinds?: string[]; afterId?: number; limit?: number } = {}
  ): StoredEvent[] {
    const kinds = opts.kinds ?? []
    const excluded = opts.excludeKinds ?? []
    const list = (n: number) => Array.from({ length: n }, () => '?').join(', ')
    const rows = this.db
      .prepare(
        `SELECT id, at_ms AS atMs, kind, client_id AS clientId, room, data_json AS data FROM ledger_events
          WHERE run_id = ? AND id > ? ${kinds.length ? `AND kind IN (${list(kinds.length)})` : ''}
          ${excluded.length ? `AND kind NOT IN (${list(excluded.length)})` : ''}
          ORDER BY at_ms, id LIMIT ?`
      )
      .all(runId, opts.afterId ?? 0, ...kinds, ...excluded, opts.limit ?? 1_000_000) as (Omit<
      StoredEvent,
      'data'
    > & {
      data: string
    })[]
    return rows.map((r) => ({ ...r, data: JSON.parse(r.data) as Record<string, unknown> }))
  }

  /**
   * One page of a run's events in insertion (id) order, for reading a whole run in pieces:
   * pass the last id of a page as `afterId` for the next. Callers sort by time themselves.
   */
  eventsPage(
    runId: number,
    opts: { afterId?: number; limit: number; excludeKinds?: string[] }
  ): StoredEvent[] {
    const excluded = opts.excludeKinds ?? []
    const rows = this.db
      .prepare(
        `SELECT id, at_ms AS atMs, kind, client_id AS clientId, room, data_json AS data FROM ledger_events
          WHERE run_id = ? AND id > ?
          ${excluded.length ? `AND kind NOT IN (${excluded.map(() => '?').join(', ')})` : ''}
          ORDER BY id LIMIT ?`
      )
      .all(runId, opts.afterId ?? 0, ...excluded, opts.limit) as (Omit<StoredEvent, 'data'> & {
      data: string
    })[]
    return rows.map((r) => ({ ...r, data: JSON.parse(r.data) as Record<string, unknown> }))
  }

  /**
   * Which name-server and broker rooms served each client, before and after the first fault.
   * A send acknowledged by another room before the fault while its client's own room was failing
   * is a failover, not a choice made while healthy: its phase is `own-room-failing`, left out of
   * healthy shares. Failing: an attempt at an own-room broker failed at most OWN_ROOM_FAILING_MS
   * before and no own-room broker has acknowledged a send of that client since; or the client
   * isolated an own-room broker (a timeout, a reset) at most OWN_ROOM_FAILING_MS before, has not let
   * it back in, and no other own-room broker has acknowledged a send of it since (a late answer from
   * the isolated broker to a request already timed out does not end the isolation). The bound keeps
   * a client that never comes back to a healthy room counted against it.
   */
  selections(runId: number, firstFaultAtMs: number | null): SelectionRow[] {
    const cut = firstFaultAtMs ?? Number.MAX_VALUE
    const sql = (table: string, at: string, extra: string, failing: string) => `
      SELECT client_id AS clientId, client_room AS clientRoom, namesrv_room AS namesrvRoom,
             broker_room AS brokerRoom,
             CASE WHEN ${at} >= @cut THEN 'after-fault' WHEN ${failing} THEN 'own-room-failing'
                  ELSE 'before-fault' END AS phase,
             COUNT(*) AS count
        FROM ${table} s WHERE run_id = @runId ${extra}
       GROUP BY client_id, client_room, namesrv_room, broker_room, phase
       ORDER BY client_id, phase DESC, count DESC`
    // Failed own-room attempts, read once: the attempt's own end time (the worker's clock, as
    // ended_at), not when the row reached us; an event's room is its client's.
    const ownRoomFails = `WITH own_fails AS MATERIALIZED (
      SELECT client_id, json_extract(data_json, '$.endMs') AS end_ms FROM ledger_events
       WHERE run_id = @runId AND kind = 'send-attempt-failed'
         AND json_extract(data_json, '$.brokerRoom') = room AND json_extract(data_json, '$.endMs') < @cut),
      own_isolation AS MATERIALIZED (
      SELECT id, client_id, at_ms, kind, json_extract(data_json, '$.brokerName') AS broker,
             at_ms + json_extract(data_json, '$.isolatedForMs') AS until_ms FROM ledger_events
       WHERE run_id = @runId AND kind IN ('broker-isolated', 'broker-recovered')
         AND json_extract(data_json, '$.brokerRoom') = room AND at_ms < @cut)`
    // The latest recent failure is no older than the latest own-room acknowledgement.
    const failedSinceLastAck = `(
      SELECT MAX(f.end_ms) FROM own_fails f
       WHERE f.client_id = s.client_id AND f.end_ms <= s.ended_at
         AND f.end_ms >= s.ended_at - ${OWN_ROOM_FAILING_MS}
    ) >= COALESCE((
      SELECT MAX(r.ended_at) FROM ledger_sends r
       WHERE r.run_id = s.run_id AND r.client_id = s.client_id AND r.status = 'acked'
         AND r.broker_room = r.client_room AND r.ended_at < s.ended_at), -1e308)`
    // The client isolated an own-room broker at most OWN_ROOM_FAILING_MS before, still in force
    // (the Java extension isolates for a time it names; ours until a probe recovers the broker),
    // and no other own-room broker has acknowledged a send of it since: a late answer from the
    // isolated broker itself does not end the isolation, a healthy sibling in the room does.
    const isolatedOwnRoom = `EXISTS (
      SELECT 1 FROM own_isolation i
       WHERE i.client_id = s.client_id AND i.kind = 'broker-isolated'
         AND i.at_ms <= s.ended_at AND i.at_ms >= s.ended_at - ${OWN_ROOM_FAILING_MS}
         AND (i.until_ms IS NULL OR i.until_ms >= s.ended_at)
         AND NOT EXISTS (SELECT 1 FROM own_isolation r
              WHERE r.client_id = i.client_id AND r.broker = i.broker AND r.kind = 'broker-recovered'
                AND r.at_ms >= i.at_ms AND r.at_ms <= s.ended_at)
         AND NOT EXISTS (SELECT 1 FROM ledger_sends o
              WHERE o.run_id = s.run_id AND o.client_id = s.client_id AND o.status = 'acked'
                AND o.broker_room = o.client_room AND o.broker_name IS NOT i.broker
                AND o.ended_at >= i.at_ms AND o.ended_at < s.ended_at))`
    const ownRoomFailing = `s.broker_room IS NOT NULL AND s.broker_room <> s.client_room
      AND (${failedSinceLastAck} OR ${isolatedOwnRoom})`
    return [
      ...(this.db
        // By acknowledgement time: a send in flight when the fault hit and then served by
        // another room was served under the fault, not while healthy.
        .prepare(
          ownRoomFails + sql('ledger_sends', 'ended_at', "AND status = 'acked'", ownRoomFailing)
        )
        .all({ cut, runId }) as SelectionRow[]),
      ...(this.db
        .prepare(sql('ledger_deliveries', 'delivered_at', '', 'FALSE'))
        .all({ cut, runId }) as SelectionRow[])
    ]
  }

  /** Acknowledged sends of one room's producers that brokers of another room stored, after a time. */
  sendsVia(runId: number, clientRoom: string, brokerRoom: string, afterMs = -Infinity): number {
    return (
      this.db
        .prepare(
          `SELECT COUNT(*) AS n FROM ledger_sends WHERE run_id = ? AND status = 'acked'
              AND client_room = ? AND broker_room = ? AND started_at >= ?`
        )
        .get(runId, clientRoom, brokerRoom, afterMs) as { n: number }
    ).n
  }

  /**
   * Messages each client moved between rooms, both ways: acknowledged sends from the client's room
   * to the storing broker's (`produce`), deliveries from the broker's room to the client's
   * (`consume`). Same-room rows included, so shares can be taken.
   */
  roomFlows(runId: number): RoomFlowRow[] {
    return this.db
      .prepare(
        `SELECT 'produce' AS kind, client_id AS clientId, client_id AS producerId,
                client_room AS fromRoom, broker_room AS toRoom, COUNT(*) AS messages
           FROM ledger_sends WHERE run_id = ? AND status = 'acked' AND broker_room IS NOT NULL
          GROUP BY client_id, client_room, broker_room
         UNION ALL
         SELECT 'consume', d.client_id, s.client_id, d.broker_room, d.client_room, COUNT(*)
           FROM ledger_deliveries d
           LEFT JOIN ledger_sends s ON s.run_id = d.run_id AND s.msg_key = d.msg_key
          WHERE d.run_id = ? AND d.broker_room IS NOT NULL
          GROUP BY d.client_id, s.client_id, d.broker_room, d.client_room
         ORDER BY 1, 2, 3, 4, 5`
      )
      .all(runId, runId) as RoomFlowRow[]
  }

  /** Deliveries from brokers of one room to consumers of another, after a time. */
  consumedAcross(
    runId: number,
    brokerRoom: string,
    consumerRoom: string,
    afterMs = -Infinity
  ): number {
    return (
      this.db
        .prepare(
          `SELECT COUNT(*) AS n FROM ledger_deliveries WHERE run_id = ? AND broker_room = ?
              AND client_room = ? AND delivered_at >= ?`
        )
        .get(runId, brokerRoom, consumerRoom, afterMs) as { n: number }
    ).n
  }

  /** First delivery matching a broker room and consumer room after a time (takeover timing). */
  firstDeliveryAcross(
    runId: number,
    brokerRoom: string,
    consumerRoom: string,
    afterMs: number
  ): number | null {
    const r = this.db
      .prepare(
        `SELECT MIN(delivered_at) AS t FROM ledger_deliveries WHERE run_id = ? AND broker_room = ?
            AND client_room = ? AND delivered_at >= ?`
      )
      .get(runId, brokerRoom, consumerRoom, afterMs) as { t: number | null }
    return r.t
  }

  /** Deliveries recorded after a time (late redeliveries once the drain completed). */
  deliveriesSince(runId: number, afterMs: number): number {
    return (
      this.db
        .prepare(
          'SELECT COUNT(*) AS n FROM ledger_deliveries WHERE run_id = ? AND delivered_at > ?'
        )
        .get(runId, afterMs) as { n: number }
    ).n
  }

  /** Per producer: sends the schedule skipped, by reason (from `sends-skipped` events). */
  skippedSends(runId: number): Map<string, { down: number; inflightCap: number }> {
    const rows = this.db
      .prepare(
        `SELECT client_id AS clientId, SUM(json_extract(data_json, '$.down')) AS down,
                SUM(json_extract(data_json, '$.inflightCap')) AS inflightCap
           FROM ledger_events WHERE run_id = ? AND kind = 'sends-skipped' GROUP BY client_id`
      )
      .all(runId) as { clientId: string; down: number; inflightCap: number }[]
    return new Map(
      rows.map((r) => [r.clientId, { down: r.down ?? 0, inflightCap: r.inflightCap ?? 0 }])
    )
  }

  /**
   * Acknowledged sends stored by some broker sets, with whether each was ever consumed (the RPO
   * figures of controller-mode groups). Transactional sends are left out: their offsets are the half topic's.
   */
  ackedSendsTo(runId: number, brokerNames: readonly string[]): AckedSendRow[] {
    if (brokerNames.length === 0) return []
    const list = brokerNames.map(() => '?').join(', ')
    return (
      this.db
        .prepare(
          `SELECT s.msg_key AS key, s.client_id AS clientId, s.broker_name AS brokerName,
                  s.broker_room AS brokerRoom, s.queue_id AS queueId, s.queue_offset AS queueOffset,
                  s.ended_at AS ackedAt,
                  EXISTS (SELECT 1 FROM ledger_deliveries d WHERE d.run_id = s.run_id AND d.msg_key = s.msg_key) AS consumed
             FROM ledger_sends s
            WHERE s.run_id = ? AND s.status = 'acked' AND s.tx_decision IS NULL
              AND s.broker_name IN (${list})
              AND s.queue_id IS NOT NULL AND s.queue_offset IS NOT NULL`
        )
        .all(runId, ...brokerNames) as (Omit<AckedSendRow, 'consumed'> & { consumed: number })[]
    ).map((r) => ({ ...r, consumed: r.consumed === 1 }))
  }

  /** Periodic per-client counters, for send-rate and failure plots. */
  counters(runId: number): CounterSample[] {
    return this.events(runId, { kinds: ['counters'] }).map((e) => ({
      atMs: e.atMs,
      clientId: e.clientId ?? '',
      values: e.data as Record<string, number>
    }))
  }
}
