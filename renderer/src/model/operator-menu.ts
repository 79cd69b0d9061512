import type { NodeAction, NodeState } from '../../../common/contract'
import type { Topology } from '../../../common/topology'
import { OPERATOR_ACTIONS, offeredActions, renderNodeAction } from '../../../common/topology'

/** One entry of an attached node's menu: an operator command the topology gives for it. */
export interface OperatorMenuEntry {
  action: NodeAction
  label: string
  /** The command that will run, so the user sees it before choosing. */
  command: string
  disabled: boolean
}

const LABELS: Record<NodeAction, string> = {
  kill: 'Kill',
  pause: 'Pause',
  resume: 'Resume',
  restart: 'Restart',
  stop: 'Stop',
  start: 'Start'
}

/** Actions that make no sense in the node's observed state (e.g. resume a node that is up). */
function pointless(action: NodeAction, state: NodeState | undefined): boolean {
  switch (action) {
    case 'kill':
    case 'pause':
    case 'stop':
      return state === 'down'
    case 'resume':
    case 'start':
      return state === 'up'
    case 'restart':
      return false
  }
}

/**
 * The menu of a node DR Studio does not run: exactly the actions its topology gives commands
 * for (in the usual order), each showing its command; nothing when it has none.
 */
export function operatorMenuEntries(
  topology: Topology,
  nodeId: string,
  state: NodeState | undefined,
  running: boolean
): OperatorMenuEntry[] {
  const offered = new Set(offeredActions(topology, nodeId))
  return OPERATOR_ACTIONS.filter((a) => offered.has(a)).map((action) => ({
    action,
    label: LABELS[action],
    command: renderNodeAction(topology, nodeId, action)!.command,
    disabled: !running || pointless(action, state)
  }))
}
