import { FileText, Pause, Play, Power, RotateCcw, Skull, Square } from 'lucide-react'
import type { ReactNode } from 'react'
import { useCallback } from 'react'
import type { NodeAction } from '../../../common/contract'
import type { Topology } from '../../../common/topology'
import { findNode, isAttached } from '../../../common/topology'
import { OWN_NAMESPACE_KINDS, nodeMenuEntries } from '../model/network-menu'
import { operatorMenuEntries } from '../model/operator-menu'
import { ownActionDisabled } from '../model/own-node-menu'
import { useEditorStore } from '../stores/editor-store'
import { useRunStore } from '../stores/run-store'
import { useUiStore } from '../stores/ui-store'
import type { MenuItem } from './menu'
import { Menu } from './menu'
import { networkMenuItems, useNetworkGate } from './network-menu'

/** Run actions for one node, opened by right click, the node's Actions button or Shift+F10. */
export function NodeMenu() {
  const menu = useUiStore((s) => s.nodeMenu)
  const running = useRunStore((s) => s.running)
  const state = useRunStore((s) => (menu ? s.states[menu.nodeId] : undefined))
  const close = useCallback(() => useUiStore.getState().openNodeMenu(null), [])
  const gate = useNetworkGate()
  const doc = useEditorStore((s) => s.history.present)
  if (!menu) return null
  const node = findNode(doc, menu.nodeId)
  const act = useRunStore.getState().nodeAction
  const id = menu.nodeId
  const attached = node !== undefined && isAttached(node)
  return (
    <Menu
      label={`Actions for ${id}`}
      x={menu.x}
      y={menu.y}
      onClose={close}
      returnFocus={menu.returnFocus ?? null}
      items={[
        ...(attached ? operatorItems(doc, id, state, running) : ownItems()),
        ...(node
          ? networkMenuItems(
              nodeMenuEntries(
                {
                  id,
                  room: node.room,
                  ownNamespace: OWN_NAMESPACE_KINDS.has(node.kind) && !attached
                },
                gate
              )
            )
          : []),
        {
          label: 'Show log',
          icon: <FileText size={14} />,
          separated: true,
          onSelect: () => void useRunStore.getState().showLog(id)
        }
      ]}
    />
  )

  function ownItems(): MenuItem[] {
    return [
      {
        label: 'Kill',
        icon: <Skull size={14} />,
        hint: 'SIGKILL',
        disabled: ownActionDisabled('kill', state, running),
        onSelect: () => void act(id, 'kill')
      },
      {
        label: 'Pause',
        icon: <Pause size={14} />,
        hint: 'SIGSTOP',
        disabled: ownActionDisabled('pause', state, running),
        onSelect: () => void act(id, 'pause')
      },
      {
        label: 'Resume',
        icon: <Play size={14} />,
        hint: 'SIGCONT',
        disabled: ownActionDisabled('resume', state, running),
        onSelect: () => void act(id, 'resume')
      },
      {
        label: 'Restart',
        icon: <RotateCcw size={14} />,
        disabled: ownActionDisabled('restart', state, running),
        onSelect: () => void act(id, 'restart')
      }
    ]
  }
}

const OPERATOR_ICONS: Record<NodeAction, ReactNode> = {
  kill: <Skull size={14} />,
  pause: <Pause size={14} />,
  resume: <Play size={14} />,
  restart: <RotateCcw size={14} />,
  stop: <Square size={14} />,
  start: <Power size={14} />
}

/** An attached node offers exactly the operator commands its topology gives, each shown. */
function operatorItems(
  doc: Topology,
  id: string,
  state: Parameters<typeof operatorMenuEntries>[2],
  running: boolean
): MenuItem[] {
  const entries = operatorMenuEntries(doc, id, state, running)
  if (entries.length === 0) {
    return [
      {
        label: 'No commands for this node',
        disabled: true,
        description: `${id} is not DR Studio's: add "actions" (kill, restart, …) with your own commands to it or its room to fault it from here`,
        onSelect: () => undefined
      }
    ]
  }
  return entries.map((e) => ({
    label: e.label,
    icon: OPERATOR_ICONS[e.action],
    hint: 'your command',
    description: `runs ${e.command}`,
    disabled: e.disabled,
    onSelect: () => void useRunStore.getState().operatorAction(id, e.action)
  }))
}
