import type { Op } from './metrics'
import { percentile } from './metrics'
import type { AbortRules } from './schema'

/** Why a workload was stopped early; `reason` is the sentence the user reads. */
export interface AbortBreach {
  rule: 'maxFailedShare' | 'maxSendP99Ms'
  actual: number
  limit: number
  sends: number
  reason: string
}

export type AbortVerdict = { breached: false; sends: number } | ({ breached: true } & AbortBreach)

/** Sends that count at `nowMs`: those that ended within the window, the only ones the verdict reads. */
export function sendsInWindow(sends: readonly Op[], nowMs: number, windowMs: number): Op[] {
  const from = nowMs - windowMs
  return sends.filter((s) => s.endMs > from && s.endMs <= nowMs)
}

/** Drops sends too old to matter again, so a caller's buffer stays bounded. */
export function pruneSends(sends: Op[], nowMs: number, windowMs: number): Op[] {
  const from = nowMs - windowMs
  return sends.some((s) => s.endMs <= from) ? sends.filter((s) => s.endMs > from) : sends
}

function pct(share: number): string {
  return `${Math.round(share * 1000) / 10}%`
}

/**
 * Judges the sends of the last `windowMs` against the scenario's abort block. The failed share is
 * over every send; the p99 is over acknowledged sends (a failed send's latency is its timeout).
 * Failed share is checked first: it is the louder symptom and the one users set most.
 */
export function evaluateAbort(
  rules: AbortRules,
  sends: readonly Op[],
  nowMs: number
): AbortVerdict {
  const window = sendsInWindow(sends, nowMs, rules.windowMs)
  const seconds = `${Math.round(rules.windowMs / 100) / 10} s`
  if (window.length < rules.minSends) return { breached: false, sends: window.length }
  if (rules.maxFailedShare !== undefined) {
    const failed = window.filter((s) => !s.ok).length
    const share = failed / window.length
    if (share > rules.maxFailedShare) {
      return {
        breached: true,
        rule: 'maxFailedShare',
        actual: share,
        limit: rules.maxFailedShare,
        sends: window.length,
        reason:
          `${failed} of ${window.length} sends failed (${pct(share)}) in the last ${seconds}, ` +
          `above abort.maxFailedShare ${pct(rules.maxFailedShare)}`
      }
    }
  }
  if (rules.maxSendP99Ms !== undefined) {
    const acked = window.filter((s) => s.ok).map((s) => s.endMs - s.startMs)
    const p99 = percentile(acked, 99)
    if (p99 !== null && p99 > rules.maxSendP99Ms) {
      return {
        breached: true,
        rule: 'maxSendP99Ms',
        actual: p99,
        limit: rules.maxSendP99Ms,
        sends: window.length,
        reason:
          `the 99th percentile send took ${Math.round(p99)} ms over the last ${seconds} ` +
          `(${acked.length} acknowledged sends), above abort.maxSendP99Ms ${rules.maxSendP99Ms} ms`
      }
    }
  }
  return { breached: false, sends: window.length }
}
