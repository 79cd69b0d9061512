/** Why a request to a broker or name server failed, as the ledger reports it. */
export type FailureReason =
  'refused' | 'reset' | 'timeout' | `code-${number}` | 'no-route' | 'error'

export interface FailureClass {
  reason: FailureReason
  /** Try another broker within the same send. */
  retry: boolean
  /** Mark the broker faulty until a probe succeeds. */
  isolate: boolean
}

/**
 * Broker codes after which another broker may succeed (Java's retryResponseCodes):
 * SYSTEM_ERROR, SYSTEM_BUSY, SERVICE_NOT_AVAILABLE, NO_PERMISSION, TOPIC_NOT_EXIST,
 * NO_BUYER_ID, NOT_IN_CURRENT_UNIT, FLOW_CONTROL, GO_AWAY.
 */
export const RETRYABLE_BROKER_CODES: ReadonlySet<number> = new Set([
  1, 2, 14, 16, 17, 204, 205, 215, 1500
])

/**
 * Classifies an error from the remoting layer by its `code` (and `responseCode` for broker
 * answers); duck-typed so tests need no real sockets.
 */
export function classifyFailure(error: unknown): FailureClass {
  const e = error as { code?: unknown; responseCode?: unknown } | null | undefined
  switch (e?.code) {
    case 'connect-failed':
      return { reason: 'refused', retry: true, isolate: true }
    case 'connection-closed':
      return { reason: 'reset', retry: true, isolate: true }
    case 'timeout':
      return { reason: 'timeout', retry: true, isolate: true }
    case 'remote-error': {
      const rc = typeof e.responseCode === 'number' ? e.responseCode : -1
      const retry = RETRYABLE_BROKER_CODES.has(rc)
      return { reason: `code-${rc}`, retry, isolate: retry }
    }
    default:
      return { reason: 'error', retry: true, isolate: false }
  }
}
