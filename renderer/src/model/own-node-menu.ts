import type { NodeAction, NodeState } from '../../../common/contract'
import { checkAction } from '../../../common/contract'

/**
 * Whether a node DR Studio runs offers `action` in its menu: only while a run is on, and only what
 * the engine's state machine would accept (Pause on a killed broker would only be refused).
 * A node whose state has not been reported yet offers everything and lets the engine decide.
 */
export function ownActionDisabled(
  action: NodeAction,
  state: NodeState | undefined,
  running: boolean
): boolean {
  if (!running) return true
  if (state === undefined) return false
  return !checkAction(state, action).ok
}
