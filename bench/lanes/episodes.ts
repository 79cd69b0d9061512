/**
 * Failover measured as an episode, one per producer and fault, from the fault command on: when the
 * fault was in place (the JVM's exit, the rule installed), when the producer first learned of it (a
 * failed or timed-out attempt at a node the fault hit), when the send that recovered started (a
 * retry, or the next send), and when another broker acknowledged it. The RTO every lane is ranked on
 * is fault → that acknowledgement, clipped at nothing.
 *
 * Two choices keep the clock fair to clients that spread traffic over rooms (issue 23): the clock
 * starts at the fault for every lane, not at the lane's own first failure; and an acknowledgement
 * only counts if its send started after the producer learned of the fault (or retried a send the
 * fault hit), so a send already in flight to the other room when the fault struck is not a recovery.
 * A lane that spreads traffic over rooms recovers with its first send after the fault that another
 * room acknowledged, as its application sees it; a client that sends one send at a time (the Java
 * lanes, ours) pays for a hung request first either way.
 */

/** One attempt of a send: each failed attempt, and the final attempt of every acknowledged send. */
export interface AttemptRow {
  key: string
  /** null where the lane does not say which broker it tried (a proxy lane's failed send). */
  brokerName: string | null
  brokerRoom: string | null
  startMs: number
  endMs: number
  ok: boolean
}

/** What a fault took away, as seen by a producer. */
export type FaultReach =
  /** Node faults: these brokers, from everywhere. */
  | { kind: 'brokers'; brokerNames: readonly string[] }
  /** Network faults: traffic between `room` and `peer` (null: every other room) in either direction. */
  | { kind: 'link'; room: string; peer: string | null }

export interface FaultMoment {
  /** The fault command was sent (epoch ms). */
  commandAt: number
  /** The fault took effect: the last hit process gone, the rule in place; null when not observed. */
  inPlaceAt: number | null
  reach: FaultReach
  /** The repair step (restart, resume, heal); Infinity without one. */
  repairAt: number
  /** The run's workload ended: a producer not recovered by then never was. */
  endAt: number
}

/** Whether a producer in `producerRoom` lost `broker` to the fault. */
export function reaches(
  reach: FaultReach,
  producerRoom: string,
  brokerName: string | null,
  brokerRoom: string | null
): boolean {
  if (reach.kind === 'brokers') return brokerName !== null && reach.brokerNames.includes(brokerName)
  if (brokerRoom === null || brokerRoom === producerRoom) return false
  const pair = (a: string, b: string): boolean =>
    a === reach.room && (reach.peer === null || b === reach.peer)
  return pair(producerRoom, brokerRoom) || pair(brokerRoom, producerRoom)
}

/** Milliseconds after the fault command; null where the step did not happen. */
export interface FailoverEpisode {
  producer: string
  room: string
  outcome: 'recovered' | 'unrecovered' | 'unaffected'
  inPlaceMs: number | null
  /** First failed attempt at a hit broker ended (connection closed, refused, or timed out). */
  detectMs: number | null
  /** The attempt that recovered started: a retry of a hit send, or a send begun after detection. */
  retryMs: number | null
  /** Another broker acknowledged it: the RTO. */
  ackMs: number | null
  recoveredBy: 'retry' | 'next-send' | null
  /**
   * A request to a hit broker was in flight at the fault command; otherwise the producer learned
   * of the fault only with its next send (the open-loop schedule's gap is part of its RTO).
   */
  inFlight: boolean
  /** Attempts the producer made at hit brokers after the fault (each one a wait the app paid). */
  hitAttempts: number
}

/** How far before the fault a producer must have used a hit broker to count as sending to it. */
export const SENDING_LOOKBACK_MS = 2000

/**
 * The episode of one producer, or null when it was not sending to a node the fault hit in the
 * `SENDING_LOOKBACK_MS` before it (nothing to fail over from).
 */
export function failoverEpisode(
  producer: string,
  room: string,
  attempts: readonly AttemptRow[],
  fault: FaultMoment
): FailoverEpisode | null {
  const hit = (a: AttemptRow): boolean => reaches(fault.reach, room, a.brokerName, a.brokerRoom)
  const t = fault.commandAt
  const wasSending = attempts.some(
    (a) => hit(a) && a.startMs < t && a.startMs >= t - SENDING_LOOKBACK_MS
  )
  if (!wasSending) return null
  // A failure counts once the fault was commanded; one whose request started before it still
  // tells the client at its end. Failures of an unknown broker (a proxy lane) also tell it.
  const failures = attempts
    .filter((a) => !a.ok && a.endMs >= t && a.endMs <= fault.endAt)
    .filter((a) => a.brokerName === null || hit(a))
  const detectAt = failures.reduce((m, a) => Math.min(m, a.endMs), Infinity)
  const hitKeys = new Set(failures.map((a) => a.key))
  const recovered = attempts
    .filter(
      (a) =>
        a.ok &&
        !hit(a) &&
        a.endMs >= t &&
        a.endMs <= fault.endAt &&
        (hitKeys.has(a.key) || a.startMs >= t)
    )
    .sort((a, b) => a.endMs - b.endMs)[0]
  const hitAttempts = attempts.filter((a) => hit(a) && a.startMs >= t).length
  const inFlight = attempts.some((a) => hit(a) && a.startMs < t && a.endMs >= t)
  const inPlaceMs = fault.inPlaceAt === null ? null : fault.inPlaceAt - t
  const detectMs = Number.isFinite(detectAt) ? detectAt - t : null
  if (recovered) {
    return {
      producer,
      room,
      outcome: 'recovered',
      inPlaceMs,
      detectMs,
      retryMs: recovered.startMs - t,
      ackMs: recovered.endMs - t,
      recoveredBy: hitKeys.has(recovered.key) ? 'retry' : 'next-send',
      inFlight,
      hitAttempts
    }
  }
  // Never served elsewhere: unaffected if the hit brokers kept acknowledging it before the repair
  // (the fault did not stop its sends), unrecovered otherwise.
  const servedByHit = attempts.some(
    (a) => a.ok && hit(a) && a.startMs >= t && a.endMs < Math.min(fault.repairAt, fault.endAt)
  )
  return {
    producer,
    room,
    outcome: failures.length === 0 && servedByHit ? 'unaffected' : 'unrecovered',
    inPlaceMs,
    detectMs,
    retryMs: null,
    ackMs: null,
    recoveredBy: null,
    inFlight,
    hitAttempts
  }
}

/** The RTOs of episodes as ranked: unrecovered is ∞, unaffected is left out. */
export function episodeRtos(episodes: readonly FailoverEpisode[]): number[] {
  return episodes.flatMap((e) =>
    e.outcome === 'recovered' ? [e.ackMs!] : e.outcome === 'unrecovered' ? [Infinity] : []
  )
}
