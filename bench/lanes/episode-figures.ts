// A run's failover episodes and takeover as the ledger has them: the rows episodes.ts and
// stats.ts reduce, read once per lane. The fault's moments come from the run's own record: the
// step's start (command sent), the sandbox's node-state of the hit brokers (process gone) or the
// ledger's fault event (a network rule in place).
import type { ScenarioReport } from '../../common/scenario/schema'
import type { Recorder } from '../../main/services/ledger/recorder'
import type { AttemptRow, FailoverEpisode, FaultMoment, FaultReach } from './episodes'
import { failoverEpisode } from './episodes'

/** The fault steps the lane benchmark measures (node faults and link faults) and their repairs. */
export const NODE_FAULTS: ReadonlySet<string> = new Set(['kill', 'pause', 'stop'])
export const LINK_FAULTS: ReadonlySet<string> = new Set(['isolate', 'partition', 'loss'])
export const REPAIRS: ReadonlySet<string> = new Set(['restart', 'resume', 'start', 'heal'])
/** Node states in which a hit broker no longer answers. */
const GONE = new Set(['killed', 'paused', 'stopped', 'down', 'failed'])

/** The first broker or link fault of a run as episodes see it; null when the run has none. */
export function faultMoment(
  report: ScenarioReport,
  recorder: Recorder,
  brokerNameOf: ReadonlyMap<string, string>
): FaultMoment | null {
  const step = report.faults.find(
    (f) =>
      (NODE_FAULTS.has(f.action) && f.nodes.some((n) => brokerNameOf.has(n))) ||
      LINK_FAULTS.has(f.action)
  )
  if (!step) return null
  const commandAt = report.originMs + step.atMs
  const endAt = report.originMs + report.timings.workloadMs
  const repair = report.faults.find((f) => f.atMs > step.atMs && REPAIRS.has(f.action))
  const repairAt = repair ? report.originMs + repair.atMs : Infinity
  const runId = report.runId
  if (LINK_FAULTS.has(step.action)) {
    const applied = recorder.db
      .prepare(
        `SELECT MIN(at_ms) AS at FROM ledger_events
          WHERE run_id = ? AND kind = 'fault' AND at_ms >= ? AND json_extract(data_json, '$.action') = ?`
      )
      .get(runId, commandAt, step.action) as { at: number | null }
    const reach: FaultReach = {
      kind: 'link',
      room: step.nodes[0] ?? '',
      peer: step.nodes[1] ?? null
    }
    return { commandAt, inPlaceAt: applied.at, reach, repairAt, endAt }
  }
  const hit = step.nodes.filter((n) => brokerNameOf.has(n))
  const gone = recorder.db
    .prepare(
      `SELECT json_extract(data_json, '$.nodeId') AS nodeId, MIN(at_ms) AS at FROM ledger_events
        WHERE run_id = ? AND kind = 'node-state' AND at_ms >= ?
          AND json_extract(data_json, '$.state') IN (${[...GONE].map(() => '?').join(',')})
        GROUP BY nodeId`
    )
    .all(runId, commandAt, ...GONE) as { nodeId: string; at: number }[]
  const at = hit.map((n) => gone.find((g) => g.nodeId === n)?.at ?? null)
  return {
    commandAt,
    inPlaceAt: at.includes(null) ? null : Math.max(...(at as number[])),
    reach: { kind: 'brokers', brokerNames: hit.map((n) => brokerNameOf.get(n)!) },
    repairAt,
    endAt
  }
}

/**
 * A producer's attempts: every failed attempt the lane reported, the final attempt of each
 * acknowledged send, and each failed send (the only failures a lane without an attempt hook shows).
 * A broker name the topology does not have (a proxy's) is unknown: null.
 */
function attemptsOf(
  recorder: Recorder,
  runId: number,
  producer: string,
  brokers: ReadonlySet<string>
): AttemptRow[] {
  const known = (name: string | null): string | null => (name && brokers.has(name) ? name : null)
  const failed = recorder.db
    .prepare(
      `SELECT json_extract(data_json, '$.key') AS key, json_extract(data_json, '$.brokerName') AS brokerName,
              json_extract(data_json, '$.brokerRoom') AS brokerRoom, json_extract(data_json, '$.startMs') AS startMs,
              json_extract(data_json, '$.endMs') AS endMs
         FROM ledger_events WHERE run_id = ? AND client_id = ? AND kind = 'send-attempt-failed'`
    )
    .all(runId, producer) as Omit<AttemptRow, 'ok'>[]
  const sends = recorder.db
    .prepare(
      `SELECT msg_key AS key, broker_name AS brokerName, broker_room AS brokerRoom,
              COALESCE(attempt_started_at, started_at) AS startMs, ended_at AS endMs, status
         FROM ledger_sends WHERE run_id = ? AND client_id = ?`
    )
    .all(runId, producer) as (Omit<AttemptRow, 'ok'> & { status: string })[]
  return [
    ...failed.map((f) => ({ ...f, brokerName: known(f.brokerName), ok: false })),
    ...sends.map(({ status, ...s }) => {
      const name = known(s.brokerName)
      return {
        ...s,
        brokerName: name,
        brokerRoom: name ? s.brokerRoom : null,
        ok: status === 'acked'
      }
    })
  ]
}

/** Every producer of the lane (both rooms) that was sending to what the fault hit. */
export function laneEpisodes(
  recorder: Recorder,
  runId: number,
  producers: readonly { id: string; room: string }[],
  fault: FaultMoment,
  brokers: ReadonlySet<string>
): FailoverEpisode[] {
  return producers.flatMap((p) => {
    const e = failoverEpisode(p.id, p.room, attemptsOf(recorder, runId, p.id, brokers), fault)
    return e ? [e] : []
  })
}

/** When the last of these consumers crashed in [from, until), or `from` if no crash was recorded. */
export function lastConsumerDied(
  recorder: Recorder,
  runId: number,
  consumers: readonly string[],
  from: number,
  until: number
): number {
  if (consumers.length === 0) return from
  const row = recorder.db
    .prepare(
      `SELECT MAX(at_ms) AS at FROM ledger_events
        WHERE run_id = ? AND kind = 'client-stopped' AND at_ms >= ? AND at_ms < ?
          AND json_extract(data_json, '$.mode') = 'crash'
          AND client_id IN (${consumers.map(() => '?').join(',')})`
    )
    .get(runId, from, until, ...consumers) as { at: number | null }
  return row.at ?? from
}
