/** What the management node knows about one name server between probes. */
export interface NameServerHealth {
  /** Listed in /rocketmq/nsaddr. Starts false: nothing is served before a probe succeeds. */
  available: boolean
  /** Epoch ms of the last completed probe, undefined before the first one. */
  lastProbeAt: number | undefined
  /** Round-trip of the last successful probe. */
  latencyMs: number | undefined
  /** Message of the last failed probe; cleared by a success. */
  lastError: string | undefined
  consecutiveFailures: number
  consecutiveSuccesses: number
}

/**
 * One probe outcome. `timedOut`: no answer in time, which a stalled process and a merely slow one
 * (a loaded host, a GC) both give; any other failure (refused, reset, closed) means nothing listens.
 */
export type ProbeResult =
  | { ok: true; at: number; latencyMs: number }
  | { ok: false; at: number; error: string; timedOut?: boolean }

/**
 * How many probes in a row flip a name server. A refusal is proof, so 1 reacts on the next probe;
 * timeouts need `timeoutsBeforeDown` failures in a row, so one slow answer on a busy host does not
 * send every client of the room to another room's name server (and back a round later).
 */
export interface AvailabilityPolicy {
  failuresBeforeDown: number
  timeoutsBeforeDown: number
  successesBeforeUp: number
}

export const DEFAULT_POLICY: AvailabilityPolicy = {
  failuresBeforeDown: 1,
  timeoutsBeforeDown: 2,
  successesBeforeUp: 1
}

/** State of a name server nobody has probed yet. */
export function initialHealth(): NameServerHealth {
  return {
    available: false,
    lastProbeAt: undefined,
    latencyMs: undefined,
    lastError: undefined,
    consecutiveFailures: 0,
    consecutiveSuccesses: 0
  }
}

/**
 * The availability state machine: folds one probe result into the state. Pure, so the flapping and
 * hysteresis rules are tested exhaustively without sockets or timers.
 */
export function applyProbe(
  state: NameServerHealth,
  result: ProbeResult,
  policy: AvailabilityPolicy = DEFAULT_POLICY
): NameServerHealth {
  if (result.ok) {
    const successes = state.consecutiveSuccesses + 1
    return {
      available: state.available || successes >= policy.successesBeforeUp,
      lastProbeAt: result.at,
      latencyMs: result.latencyMs,
      lastError: undefined,
      consecutiveFailures: 0,
      consecutiveSuccesses: successes
    }
  }
  const failures = state.consecutiveFailures + 1
  const needed = result.timedOut === true ? policy.timeoutsBeforeDown : policy.failuresBeforeDown
  return {
    available: state.available && failures < needed,
    lastProbeAt: result.at,
    latencyMs: state.latencyMs,
    lastError: result.error,
    consecutiveFailures: failures,
    consecutiveSuccesses: 0
  }
}

/** A configured name server. */
export interface NameServerEntry {
  id: string
  room: string
  address: string
}

/**
 * Order served to clients: own room first, then the others, each group in configuration order
 * (stable, so a diff between two fetches means a real change).
 */
export function orderForRoom<T extends { room: string }>(entries: readonly T[], room: string): T[] {
  return [...entries.filter((e) => e.room === room), ...entries.filter((e) => e.room !== room)]
}

/** RocketMQ's address-server body: `ip:port;ip:port` of the available name servers. */
export function formatNsaddr(
  entries: readonly (NameServerEntry & { available: boolean })[],
  room: string
): string {
  return orderForRoom(
    entries.filter((e) => e.available),
    room
  )
    .map((e) => e.address)
    .join(';')
}
