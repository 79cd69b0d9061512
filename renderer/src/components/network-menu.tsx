import {
  ArrowRight,
  Bandage,
  Ban,
  CircleSlash2,
  Droplets,
  Gauge,
  Scissors,
  Snail,
  Unplug
} from 'lucide-react'
import type { ReactNode } from 'react'
import { useCallback } from 'react'
import type { NetworkEntry, NetworkGate, NetworkIcon } from '../model/network-menu'
import { linkMenuEntries, roomMenuEntries } from '../model/network-menu'
import { useEditorStore } from '../stores/editor-store'
import { useNetworkStore } from '../stores/network-store'
import { useReplayStore } from '../stores/replay-store'
import { useRunStore } from '../stores/run-store'
import type { MenuItem } from './menu'
import { Menu } from './menu'
import './network.css'

const ICONS: Record<NetworkIcon, ReactNode> = {
  isolate: <Unplug size={14} />,
  cut: <Scissors size={14} />,
  'one-way': <ArrowRight size={14} />,
  delay: <Snail size={14} />,
  loss: <Droplets size={14} />,
  bandwidth: <Gauge size={14} />,
  heal: <Bandage size={14} />,
  drop: <CircleSlash2 size={14} />,
  reject: <Ban size={14} />
}

/** What the network menus need to decide what is enabled. */
export function useNetworkGate(): NetworkGate {
  const running = useRunStore((s) => s.running)
  const replaying = useReplayStore((s) => s.active)
  const status = useNetworkStore((s) => s.status)
  return { running, replaying, status }
}

/** Network menu entries as menu items: apply now, open a dialog, or switch drop/reject. */
export function networkMenuItems(entries: readonly NetworkEntry[]): MenuItem[] {
  return entries.map((e) => {
    const common = {
      label: e.label,
      icon: ICONS[e.icon],
      ...(e.separated ? { separated: true } : {}),
      ...(e.disabled ? { disabled: true } : {})
    }
    if (e.type === 'mode') {
      return {
        ...common,
        checked: e.checked,
        description: e.description,
        onSelect: () => useNetworkStore.getState().setBlockMode(e.mode)
      }
    }
    const description = e.disabled ?? e.description
    return {
      ...common,
      ...(e.hint ? { hint: e.hint, hintHidden: true } : {}),
      ...(description ? { description } : {}),
      onSelect:
        e.type === 'apply'
          ? () => void useNetworkStore.getState().act(e.faults)
          : () => useNetworkStore.getState().openDialog(e.dialog)
    }
  })
}

/** The menu of a room or of the link between two rooms (right click, its button or Shift+F10). */
export function NetworkMenu() {
  const menu = useNetworkStore((s) => s.menu)
  const mode = useNetworkStore((s) => s.blockMode)
  const rooms = useEditorStore((s) => s.history.present.rooms)
  const gate = useNetworkGate()
  const close = useCallback(() => useNetworkStore.getState().openMenu(null), [])
  if (!menu) return null
  const subject = menu.subject
  const entries =
    subject.kind === 'room'
      ? roomMenuEntries(
          subject.room,
          rooms.map((r) => r.id),
          gate,
          mode
        )
      : linkMenuEntries(subject.a, subject.b, gate, mode)
  const label =
    subject.kind === 'room'
      ? `Network actions for ${subject.room}`
      : `Network actions for ${subject.a} ~ ${subject.b}`
  return (
    <Menu
      label={label}
      x={menu.x}
      y={menu.y}
      onClose={close}
      returnFocus={menu.returnFocus ?? null}
      items={networkMenuItems(entries)}
    />
  )
}
