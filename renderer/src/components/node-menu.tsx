import { FileText, Pause, Play, RotateCcw, Skull } from 'lucide-react'
import { useCallback } from 'react'
import { findNode, isAttached } from '../../../common/topology'
import { OWN_NAMESPACE_KINDS, nodeMenuEntries } from '../model/network-menu'
import { useEditorStore } from '../stores/editor-store'
import { useRunStore } from '../stores/run-store'
import { useUiStore } from '../stores/ui-store'
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
  const notRunning = !running
  return (
    <Menu
      label={`Actions for ${id}`}
      x={menu.x}
      y={menu.y}
      onClose={close}
      returnFocus={menu.returnFocus ?? null}
      items={[
        {
          label: 'Kill',
          icon: <Skull size={14} />,
          hint: 'SIGKILL',
          disabled: notRunning || state === 'killed' || state === 'down',
          onSelect: () => void act(id, 'kill')
        },
        {
          label: 'Pause',
          icon: <Pause size={14} />,
          hint: 'SIGSTOP',
          disabled: notRunning || state === 'paused',
          onSelect: () => void act(id, 'pause')
        },
        {
          label: 'Resume',
          icon: <Play size={14} />,
          hint: 'SIGCONT',
          disabled: notRunning || state !== 'paused',
          onSelect: () => void act(id, 'resume')
        },
        {
          label: 'Restart',
          icon: <RotateCcw size={14} />,
          disabled: notRunning,
          onSelect: () => void act(id, 'restart')
        },
        ...(node
          ? networkMenuItems(
              nodeMenuEntries(
                {
                  id,
                  room: node.room,
                  ownNamespace: OWN_NAMESPACE_KINDS.has(node.kind) && !isAttached(node)
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
}
