import type { NodeAction, NodeState } from '../../../common/contract/sandbox'

export type { NodeAction, NodeState }

/** Why a process went away, from the sandbox's point of view. */
export type ExitIntent = 'stop' | 'kill' | undefined

/** State after the process exited: what we asked for, a boot failure, or an unexpected death. */
export function stateAfterExit(state: NodeState, intent: ExitIntent): NodeState {
  if (intent === 'kill') return 'killed'
  if (intent === 'stop') return 'stopped'
  if (state === 'starting') return 'failed'
  return 'down'
}

/** State right after a signal was delivered to a live process. */
export function stateAfterSignal(state: NodeState, action: 'pause' | 'resume'): NodeState {
  if (action === 'pause') return state === 'up' ? 'paused' : state
  return state === 'paused' ? 'up' : state
}
