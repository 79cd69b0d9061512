import type { NodeAction, NodeState } from './sandbox'

// The node state machine's rules, shared by the engine (which refuses an illegal action) and the
// renderer (whose node menu offers only the legal ones), so the two cannot disagree.

/** States in which the node has a live process. */
export const RUNNING_STATES: readonly NodeState[] = [
  'starting',
  'up',
  'electing',
  'syncing',
  'paused'
]

/** States in which the node's process answers requests (a replica answers before its group is ready). */
export const ANSWERING_STATES: readonly NodeState[] = ['up', 'electing', 'syncing']

/** States from which a node may be started again. */
const STARTABLE: readonly NodeState[] = ['stopped', 'killed', 'down', 'failed']

/** Which states each action may be applied in; anything else is refused with a reason. */
const ALLOWED: Record<NodeAction, readonly NodeState[]> = {
  start: STARTABLE,
  stop: [...RUNNING_STATES, ...STARTABLE],
  kill: RUNNING_STATES,
  pause: ['up'],
  resume: ['paused'],
  restart: [...RUNNING_STATES, ...STARTABLE]
}

/** Outcome of asking whether `action` may run in `state`: the decision, or why not. */
export type ActionCheck = { ok: true; noop: boolean } | { ok: false; reason: string }

/** Decides if an action is legal; `stop` on a stopped node is a no-op rather than an error. */
export function checkAction(state: NodeState, action: NodeAction): ActionCheck {
  if (state === 'attached') return { ok: false, reason: 'attached' }
  if (!ALLOWED[action].includes(state)) {
    const allowed = ALLOWED[action].join(', ')
    return { ok: false, reason: `it is ${state}; ${action} needs one of: ${allowed}` }
  }
  return { ok: true, noop: action === 'stop' && !RUNNING_STATES.includes(state) }
}
