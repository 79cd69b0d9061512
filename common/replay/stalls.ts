// Consumers' stalled queues from the ledger's events: one reducer for the live canvas badge
// (renderer/src/stores/stall-store.ts) and the replay's (replay-state.ts).

/**
 * Why a queue a consumer owns delivers nothing to it: `lock`, an orderly consumer the broker refuses
 * the queue's lock; `unreachable`, its pulls fail (the broker is down, cut off or hung).
 */
export type StallCause = 'lock' | 'unreachable'

export interface StalledQueue {
  /** `brokerName#queueId` */
  queue: string
  cause: StallCause
}

/** Consumer id → the queues it owns but cannot consume, in the order they stalled. */
export type Stalls = Readonly<Record<string, readonly StalledQueue[]>>

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null)

function without(stalls: Stalls, clientId: string, keep: (q: StalledQueue) => boolean): Stalls {
  const open = stalls[clientId]
  if (!open) return stalls
  const left = open.filter(keep)
  if (left.length === open.length) return stalls
  const next = { ...stalls }
  if (left.length) next[clientId] = left
  else delete next[clientId]
  return next
}

function opened(stalls: Stalls, clientId: string, queue: string, cause: StallCause): Stalls {
  const open = stalls[clientId] ?? []
  // A queue stalls once: the first cause stands until it clears.
  if (open.some((q) => q.queue === queue)) return stalls
  return { ...stalls, [clientId]: [...open, { queue, cause }] }
}

/**
 * Applies one ledger event to the open stalls. A queue stalls at `queue-lock-wait` (until
 * `queue-locked`) or at a `pull-failed` that names it (until `pull-resumed`), and the stall ends
 * for the consumer when a rebalance takes the queue away or the consumer stops. Other events, and a
 * `pull-failed` without a queue (a gRPC consumer's, of a whole proxy), return the stalls unchanged.
 */
export function applyStallEvent(stalls: Stalls, raw: unknown): Stalls {
  if (typeof raw !== 'object' || raw === null) return stalls
  const e = raw as { kind?: unknown; clientId?: unknown; data?: Record<string, unknown> }
  const clientId = str(e.clientId)
  if (!clientId) return stalls
  const d = e.data ?? {}
  const queue = `${str(d.brokerName) ?? '?'}#${String(d.queueId)}`
  const clears = (cause: StallCause) => (q: StalledQueue) => q.queue !== queue || q.cause !== cause
  switch (e.kind) {
    case 'queue-lock-wait':
      return opened(stalls, clientId, queue, 'lock')
    case 'queue-locked':
      return without(stalls, clientId, clears('lock'))
    case 'pull-failed':
      return typeof d.queueId === 'number' ? opened(stalls, clientId, queue, 'unreachable') : stalls
    case 'pull-resumed':
      return without(stalls, clientId, clears('unreachable'))
    case 'rebalance': {
      const owned = new Set(
        (Array.isArray(d.queues) ? d.queues : []).map(
          (q: { brokerName?: unknown; queueId?: unknown }) =>
            `${str(q.brokerName) ?? '?'}#${String(q.queueId)}`
        )
      )
      return without(stalls, clientId, (q) => owned.has(q.queue))
    }
    case 'client-stopped':
      return without(stalls, clientId, () => false)
    default:
      return stalls
  }
}

/** The badge's words for a consumer's stalled queues, grouped by cause. */
export function describeStalls(queues: readonly StalledQueue[]): string {
  const of = (cause: StallCause) => queues.filter((q) => q.cause === cause).map((q) => q.queue)
  const parts: string[] = []
  const lock = of('lock')
  const unreachable = of('unreachable')
  if (lock.length) {
    parts.push(`no lock for ${lock.join(', ')} (another client holds it)`)
  }
  if (unreachable.length) {
    parts.push(`pulls from ${unreachable.join(', ')} fail (the broker does not answer)`)
  }
  return `Nothing of these queues is consumed: ${parts.join('; ')}`
}
