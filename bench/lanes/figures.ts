// What one run says about one lane, read from the ledger the run wrote (the engine's own record
// of every send, attempt and delivery), then reduced by the pure functions of stats.ts.
import { computeRto } from '../../common/scenario/metrics'
import type { ScenarioReport } from '../../common/scenario/schema'
import { LedgerReader } from '../../main/services/ledger/ledger-reader'
import type { Recorder } from '../../main/services/ledger/recorder'
import type { LaneCase } from './cases'
import type { DeliveryRow, Recovery, SendRow } from './stats'
import type { FailoverEpisode } from './episodes'
import {
  faultMoment,
  lastConsumerDied,
  laneEpisodes,
  LINK_FAULTS,
  NODE_FAULTS,
  REPAIRS
} from './episode-figures'
import type { Takeover } from './stats'
import { backHome, crossRoomShare, lossAndDuplicates, takeover, waited } from './stats'

const FAULTS = new Set([...NODE_FAULTS, ...LINK_FAULTS])
/** Sandbox node states in which a node serves (a slow one answers, late). */
const SERVING = new Set(['up', 'slow'])

/** Raw per-run figures of one lane, kept in the JSON so every summary can be re-derived. */
export interface LaneRun {
  runId: number
  /** Room-1 producers' recovery from the fault (attempt-level where the lane exposes attempts). */
  recoveries: Recovery[]
  failedSends: number
  /** What the application waited for sends due between fault and repair (ms, from the schedule). */
  faultWindowWaits: number[]
  /** ...and for sends due before the fault (the lane's own pre-fault tail, to subtract). */
  preFaultWaits: number[]
  /** Every send's schedule lag (due → started: no CPU, or a busy event loop), any case. */
  lags: number[]
  /** Every producer of the lane that was sending to what the fault hit (episodes.ts). */
  episodes: FailoverEpisode[]
  /**
   * Room-1 producers: ms from the repaired nodes serving again (servingAgainAt) to the first
   * own-room acknowledgement; 'stayed' when it never left, 'not-served' when the repaired nodes
   * did not serve again before the workload ended.
   */
  backHome: (number | 'stayed' | 'not-served')[]
  /** Acknowledged sends due before the fault, and how many of them another room stored. */
  healthyAcked: number
  healthyCrossRoom: number
  /** All acknowledged sends of the run, by whether they crossed rooms (healthy case). */
  healthyWaits: number[]
  /** Of those, the part before the send began (schedule lag: no CPU, or a busy event loop)... */
  healthyLags: number[]
  /** ...and the send itself (client, network, broker). */
  healthySendTimes: number[]
  lost: number
  duplicates: number
  takeover: Takeover | null
  hedges: number
  hedgesWon: number
}

/** The fault step's time, its repair's (epoch ms) and the nodes the repair named; null fault for the healthy case. */
export function faultWindow(report: ScenarioReport): {
  fault: number | null
  repair: number
  repairNodes: string[]
} {
  const steps = report.faults.map((f) => ({ ...f, abs: report.originMs + f.atMs }))
  const fault = steps.find((f) => FAULTS.has(f.action))
  if (!fault) return { fault: null, repair: Infinity, repairNodes: [] }
  const repair = steps.find((f) => f.abs >= fault.abs && REPAIRS.has(f.action))
  return repair
    ? { fault: fault.abs, repair: repair.abs, repairNodes: repair.nodes }
    : { fault: fault.abs, repair: Infinity, repairNodes: [] }
}

/**
 * When a repair took effect: the last of the nodes it restarted serving again (the sandbox's
 * node-state `up` after the step), so a JVM's boot (about 28 s under the lane benchmark's load)
 * does not count as the client's time to come home. The step's own time for a repair that serves
 * at once (resume, heal).
 */
export function servingAgainAt(
  repairStep: { abs: number; nodes: string[] } | undefined,
  nodeStates: readonly { atMs: number; nodeId: string; state: string }[]
): number {
  if (!repairStep) return Infinity
  let at = repairStep.abs
  for (const id of repairStep.nodes) {
    const up = nodeStates.find(
      (e) => e.nodeId === id && SERVING.has(e.state) && e.atMs >= repairStep.abs
    )
    // A node that was never seen up again: its clients cannot come home before the run ends.
    if (!up) return nodeStates.some((e) => e.nodeId === id) ? Infinity : at
    at = Math.max(at, up.atMs)
  }
  return at
}

function rows(
  recorder: Recorder,
  runId: number,
  ids: string[]
): { sends: SendRow[]; deliveries: DeliveryRow[] } {
  const inList = ids.map(() => '?').join(',') || "''"
  const sends = recorder.db
    .prepare(
      `SELECT msg_key AS key, client_id AS clientId, client_room AS clientRoom, broker_room AS brokerRoom,
              scheduled_at AS scheduledAt, started_at AS startedAt, ended_at AS endedAt, status
         FROM ledger_sends WHERE run_id = ? AND client_id IN (${inList})`
    )
    .all(runId, ...ids) as SendRow[]
  const deliveries = recorder.db
    .prepare(
      `SELECT msg_key AS key, client_id AS clientId, client_room AS clientRoom, broker_name AS brokerName,
              broker_room AS brokerRoom, queue_id AS queueId, delivered_at AS deliveredAt
         FROM ledger_deliveries WHERE run_id = ? AND client_id IN (${inList})`
    )
    .all(runId, ...ids) as DeliveryRow[]
  return { sends, deliveries }
}

/** The sandbox's brokers: node id → broker name (what clients call them). */
export type BrokerNames = ReadonlyMap<string, string>

export function laneRun(
  c: LaneCase,
  lane: string,
  report: ScenarioReport,
  recorder: Recorder,
  brokerNameOf: BrokerNames
): LaneRun {
  const reader = new LedgerReader(recorder.db)
  const runId = report.runId
  const mine = report.clients.filter((x) => laneOfClient(x.id) === lane)
  const ids = mine.map((x) => x.id)
  const { sends, deliveries } = rows(recorder, runId, ids)
  const room1 = mine.filter((x) => x.role === 'producer' && x.room === 'room1').map((x) => x.id)
  const { fault, repair, repairNodes } = faultWindow(report)
  const served = servingAgainAt(
    fault !== null && repair !== Infinity ? { abs: repair, nodes: repairNodes } : undefined,
    reader.events(runId, { kinds: ['node-state'] }).map((e) => ({
      atMs: e.atMs,
      nodeId: String(e.data.nodeId),
      state: String(e.data.state)
    }))
  )
  const t0 = report.originMs
  const end = t0 + report.timings.workloadMs
  const recoveries: Recovery[] = []
  const home: LaneRun['backHome'] = []
  let waits: number[] = []
  if (fault !== null) {
    for (const id of room1) {
      const ep = computeRto(reader.sendOps(runId, id), [fault, repair]).find(
        (e) => e.boundaryMs === fault
      )
      recoveries.push(
        !ep
          ? { kind: 'no-failure' }
          : ep.rtoMs === null
            ? { kind: 'unrecovered' }
            : { kind: 'rto', ms: ep.rtoMs }
      )
      // The restarted node was not serving before the workload ended: nothing to come home to.
      home.push(
        served >= end
          ? 'not-served'
          : backHome(
              sends.filter((s) => s.clientId === id),
              fault,
              served,
              end
            )
      )
    }
    waits = sends
      .filter((s) => {
        const due = s.scheduledAt ?? s.startedAt
        return due >= fault && due < Math.min(repair, end)
      })
      .map(waited)
  }
  const healthy = sends.filter((s) => fault === null || (s.scheduledAt ?? s.startedAt) < fault)
  const acked = healthy.filter((s) => s.status === 'acked' && s.brokerRoom !== null)
  const healthyAcked = healthy.filter((s) => s.status === 'acked')
  const share = crossRoomShare(healthy)
  const { lost, duplicates } = lossAndDuplicates(sends, deliveries)
  const hedged = reader
    .events(runId, { kinds: ['send-hedged'] })
    .filter((e) => e.clientId !== null && ids.includes(e.clientId))
  return {
    runId,
    recoveries,
    failedSends: sends.filter((s) => s.status === 'failed').length,
    faultWindowWaits: waits,
    backHome: home,
    healthyAcked: acked.length,
    healthyCrossRoom: share === null ? 0 : Math.round(share * acked.length),
    healthyWaits: fault === null ? healthyAcked.map(waited) : [],
    healthyLags:
      fault === null ? healthyAcked.map((s) => s.startedAt - (s.scheduledAt ?? s.startedAt)) : [],
    healthySendTimes: fault === null ? healthyAcked.map((s) => s.endedAt - s.startedAt) : [],
    lost,
    duplicates,
    preFaultWaits:
      fault === null ? [] : sends.filter((s) => (s.scheduledAt ?? s.startedAt) < fault).map(waited),
    lags: sends.map((s) => s.startedAt - (s.scheduledAt ?? s.startedAt)),
    episodes: episodesOf(report, recorder, brokerNameOf, mine),
    takeover:
      c.focus === 'takeover' && fault !== null
        ? takeover(
            deliveries,
            'room1',
            t0,
            lastConsumerDied(
              recorder,
              runId,
              mine.filter((x) => x.role === 'consumer' && x.room === 'room1').map((x) => x.id),
              fault,
              repair
            ),
            repair
          )
        : null,
    hedges: hedged.length,
    hedgesWon: hedged.filter((e) => (e.data as { won?: boolean }).won).length
  }
}

function episodesOf(
  report: ScenarioReport,
  recorder: Recorder,
  brokerNameOf: BrokerNames,
  clients: readonly { id: string; role: string; room: string }[]
): FailoverEpisode[] {
  const moment = faultMoment(report, recorder, brokerNameOf)
  if (!moment) return []
  const producers = clients.filter((x) => x.role === 'producer')
  return laneEpisodes(recorder, report.runId, producers, moment, new Set(brokerNameOf.values()))
}

/** The lane (or variant) a benchmark client belongs to: `producer-room1-2-java-zone` → `java-zone`. */
export function laneOfClient(id: string): string | null {
  return /^(?:producer|consumer)-[^-]+-\d+-(.+)$/.exec(id)?.[1] ?? null
}
