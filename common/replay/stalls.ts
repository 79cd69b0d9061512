// Orderly consumers' stalled queues from the ledger's lock events: one reducer for the live canvas
// badge (renderer/src/stores/stall-store.ts) and the replay's (replay-state.ts).

/** Consumer id → the queues (`brokerName#queueId`) it owns but cannot consume for want of a lock. */
export type Stalls = Readonly<Record<string, readonly string[]>>

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null)

function without(stalls: Stalls, clientId: string, keep: (q: string) => boolean): Stalls {
  const open = stalls[clientId]
  if (!open) return stalls
  const left = open.filter(keep)
  if (left.length === open.length) return stalls
  const next = { ...stalls }
  if (left.length) next[clientId] = left
  else delete next[clientId]
  return next
}

/**
 * Applies one ledger event to the open stalls: an orderly consumer's queue stalls at
 * `queue-lock-wait` and resumes at `queue-locked`, or ends for it when a rebalance takes the
 * queue away or the consumer stops. Other events return the stalls unchanged.
 */
export function applyStallEvent(stalls: Stalls, raw: unknown): Stalls {
  if (typeof raw !== 'object' || raw === null) return stalls
  const e = raw as { kind?: unknown; clientId?: unknown; data?: Record<string, unknown> }
  const clientId = str(e.clientId)
  if (!clientId) return stalls
  const d = e.data ?? {}
  const queue = `${str(d.brokerName) ?? '?'}#${String(d.queueId)}`
  switch (e.kind) {
    case 'queue-lock-wait': {
      const open = stalls[clientId] ?? []
      return open.includes(queue) ? stalls : { ...stalls, [clientId]: [...open, queue] }
    }
    case 'queue-locked':
      return without(stalls, clientId, (q) => q !== queue)
    case 'rebalance': {
      const owned = new Set(
        (Array.isArray(d.queues) ? d.queues : []).map(
          (q: { brokerName?: unknown; queueId?: unknown }) =>
            `${str(q.brokerName) ?? '?'}#${String(q.queueId)}`
        )
      )
      return without(stalls, clientId, (q) => owned.has(q))
    }
    case 'client-stopped':
      return without(stalls, clientId, () => false)
    default:
      return stalls
  }
}
