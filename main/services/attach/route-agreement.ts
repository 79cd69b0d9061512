import type { TopicCheck } from './topic-check'

/** One serving name server's answer about the run's topic; `check` is null when it did not answer. */
export interface NameServerRoute {
  nameServer: string
  room: string
  check: TopicCheck | null
  error?: string
}

export interface RouteWaits {
  /** How long a topic routed without some room's queues by every name server is waited for. */
  partialMs: number
  /** How long name servers that route it differently are waited for to agree. */
  agreementMs: number
}

/**
 * What a run does with an attached cluster's topic, given every serving name server's route:
 * - `ready`: every name server that answered routes it with queues in every room;
 * - `wait`: some name server lags (a broker that restarted registers with each name server on its
 *   own, every 30 s by default) or none routes every room yet: ask again;
 * - `go`: name servers still disagree after `agreementMs`: run anyway, and say which lag, since the
 *   clients of their rooms will not see the brokers they lack;
 * - `refuse`: the topic is missing, or no name server routes every room after `partialMs`.
 */
export type RouteDecision =
  | { kind: 'ready' }
  | { kind: 'wait'; reason: string }
  | { kind: 'go'; note: string }
  | { kind: 'refuse'; check: TopicCheck | null; reason: string }

export function decideTopicRoute(
  routes: NameServerRoute[],
  waitedMs: number,
  waits: RouteWaits
): RouteDecision {
  const answered = routes.filter((r) => r.check !== null)
  if (answered.length === 0) {
    const errors = routes.map((r) => `${r.nameServer}: ${r.error ?? 'no answer'}`)
    return {
      kind: 'refuse',
      check: null,
      reason: `no name server answered (${errors.join('; ') || 'none is serving'})`
    }
  }
  const ok = answered.filter((r) => r.check!.ok)
  if (ok.length === answered.length) return { kind: 'ready' }
  if (ok.length > 0) {
    const lag = laggingLines(answered)
    if (waitedMs < waits.agreementMs) {
      return { kind: 'wait', reason: `waiting for name servers to agree: ${lag}` }
    }
    return {
      kind: 'go',
      note:
        `name servers still disagreed on ${ok[0].check!.topic} after ${Math.round(waits.agreementMs / 1000)} s: ${lag}; ` +
        `clients that ask them do not see those brokers until the brokers register again`
    }
  }
  // No name server routes every room: a partial route beats a missing topic as the explanation.
  const checks = answered.map((r) => r.check!).filter((c) => !c.ok)
  const best = checks.find((c) => !c.missing) ?? checks[0]!
  if (!best.missing && waitedMs < waits.partialMs) return { kind: 'wait', reason: best.message }
  return { kind: 'refuse', check: best, reason: best.message }
}

/** "ns-1 (room1) lacks broker-a" for each name server that does not route every room. */
function laggingLines(answered: NameServerRoute[]): string {
  const brokersOf = (r: NameServerRoute): Set<string> =>
    new Set(r.check!.rooms.flatMap((x) => x.brokers))
  const all = new Set(answered.flatMap((r) => [...brokersOf(r)]))
  return answered
    .flatMap((r) => {
      const check = r.check!
      if (check.ok) return []
      const have = brokersOf(r)
      const lacks = [...all].filter((b) => !have.has(b)).sort()
      const what = lacks.length > 0 ? `lacks ${lacks.join(', ')}` : check.message
      return [`${r.nameServer} (${r.room}) ${what}`]
    })
    .join('; ')
}
