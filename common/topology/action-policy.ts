import type { OperatorAction, Topology } from './schema'
import { DESTRUCTIVE_ACTIONS, offeredActions } from './actions'
import { findNode, isAttached } from './model'

/** What the session remembers between operator actions. */
export interface ActionSession {
  /** The user confirmed a destructive action on someone else's cluster in this session. */
  confirmed: boolean
}

/** Whether to ask before this action: only the first destructive one of a session asks. */
export function needsConfirmation(action: OperatorAction, session: ActionSession): boolean {
  return DESTRUCTIVE_ACTIONS.has(action) && !session.confirmed
}

/** The session after the user answered the confirmation of `action`. */
export function afterConfirmation(
  session: ActionSession,
  action: OperatorAction,
  answer: 'confirm' | 'cancel'
): ActionSession {
  return answer === 'confirm' && DESTRUCTIVE_ACTIONS.has(action) ? { confirmed: true } : session
}

/** The question the confirmation asks, naming the node, its address and the command. */
export function confirmationText(
  node: { id: string; address?: string },
  action: OperatorAction,
  command: string
): {
  title: string
  message: string
  confirmLabel: string
} {
  const where = node.address ? ` (${node.address})` : ''
  return {
    title: `${action[0]!.toUpperCase()}${action.slice(1)} ${node.id} on your cluster?`,
    message:
      `${node.id}${where} is not DR Studio's: this runs your command \`${command}\`. ` +
      'DR Studio will not ask again this session.',
    confirmLabel: `Run ${action}`
  }
}

/** An operator action a headless run would take: from the timeline or an interactive step. */
export interface PlannedAction {
  action: OperatorAction
  nodeId: string
}

export type ActionGate = { ok: true } | { ok: false; message: string }

/**
 * `drstudio scenario run` on an attached topology runs operator commands only with
 * `--allow-actions`; without it the run is refused up front, listing what it would have run.
 * A step on an attached node with no command for that action is refused whatever the flag.
 */
export function cliActionGate(
  topology: Topology,
  planned: PlannedAction[],
  allowActions: boolean
): ActionGate {
  const operator = planned.filter((p) => {
    const node = findNode(topology, p.nodeId)
    return node !== undefined && isAttached(node)
  })
  const missing = operator.filter((p) => !offeredActions(topology, p.nodeId).includes(p.action))
  if (missing.length > 0) {
    return {
      ok: false,
      message:
        `the scenario would ${missing.map((m) => `${m.action} ${m.nodeId}`).join(', ')}, but the topology has no command for ` +
        `${missing.length === 1 ? 'it' : 'them'}; add "actions": {"${missing[0]!.action}": "…"} to the node (or to its room's actions) with your own command`
    }
  }
  if (operator.length === 0 || allowActions) return { ok: true }
  return {
    ok: false,
    message:
      `the scenario would run your commands on your cluster (${operator.map((m) => `${m.action} ${m.nodeId}`).join(', ')}); ` +
      'pass --allow-actions to let it'
  }
}
