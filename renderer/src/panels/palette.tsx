import { Building2 } from 'lucide-react'
import { useCallback, useId, useMemo, useState } from 'react'
import type { NodeKind, Topology } from '../../../common/topology'
import { Menu } from '../components/menu'
import type { MenuItem } from '../components/menu'
import { KindIcon } from '../canvas/kind-icon'
import { roomIdOf } from '../model/document'
import { selectDoc, useEditorStore } from '../stores/editor-store'
import { useUiStore } from '../stores/ui-store'

const SIMPLE_KINDS: { kind: NodeKind; label: string }[] = [
  { kind: 'nameserver', label: 'Name server' },
  { kind: 'broker', label: 'Broker (master)' },
  { kind: 'management', label: 'Management node' },
  { kind: 'proxy', label: 'Proxy' },
  { kind: 'producer', label: 'Producer' },
  { kind: 'consumer', label: 'Consumer' }
]

/** Masters a new slave can join, as `{id, group}`. */
function mastersOf(doc: Topology): { id: string; group: string }[] {
  return doc.rooms.flatMap((r) =>
    (r.brokers ?? [])
      .filter((b) => b.role === 'master')
      .map((b) => ({ id: b.id, group: `${b.brokerName} in ${r.id}` }))
  )
}

function useTargetRoom(): string | undefined {
  return useEditorStore((s) => {
    const doc = selectDoc(s)
    return s.selection.map((id) => roomIdOf(doc, id)).find((r) => !!r) ?? doc.rooms[0]?.id
  })
}

/** Left sidebar: add rooms and, inside the target room, every kind of node. */
export function Palette() {
  const doc = useEditorStore(selectDoc)
  const target = useTargetRoom()
  const selectId = useId()
  const masterSelectId = useId()
  const masters = useMemo(() => mastersOf(doc), [doc])
  const [chosenMaster, setMasterId] = useState('')
  const masterId = masters.some((m) => m.id === chosenMaster)
    ? chosenMaster
    : (masters[0]?.id ?? '')
  const editor = useEditorStore.getState

  const onRoomChange = useCallback((roomId: string) => {
    useEditorStore.getState().select([roomId])
  }, [])

  const noRoom = !target
  return (
    <aside className="palette" aria-label="Palette">
      <h2 className="panel-title">Add</h2>
      <button type="button" className="palette-btn" onClick={() => editor().addRoom()}>
        <Building2 size={16} aria-hidden="true" /> Add room
      </button>
      <label className="field-label" htmlFor={selectId}>
        Into room
      </label>
      <select
        id={selectId}
        className="input"
        value={target ?? ''}
        disabled={noRoom}
        onChange={(e) => onRoomChange(e.target.value)}
      >
        {noRoom && <option value="">(no rooms)</option>}
        {doc.rooms.map((r) => (
          <option key={r.id} value={r.id}>
            {r.name && r.name !== r.id ? `${r.name} (${r.id})` : r.id}
          </option>
        ))}
      </select>
      <div className="palette-group" role="group" aria-label="Add node">
        {SIMPLE_KINDS.map(({ kind, label }) => (
          <button
            key={kind}
            type="button"
            className="palette-btn"
            disabled={noRoom}
            onClick={() => editor().addNode(kind, target ? { roomId: target } : {})}
          >
            <KindIcon kind={kind} /> Add {label.toLowerCase()}
          </button>
        ))}
      </div>
      <div className="palette-slave">
        <label className="field-label" htmlFor={masterSelectId}>
          Slave of master
        </label>
        <select
          id={masterSelectId}
          className="input"
          disabled={noRoom || !masters.length}
          value={masterId}
          onChange={(e) => setMasterId(e.target.value)}
        >
          {!masters.length && <option value="">(no masters)</option>}
          {masters.map((m) => (
            <option key={m.id} value={m.id}>
              {m.id} ({m.group})
            </option>
          ))}
        </select>
        <button
          type="button"
          className="palette-btn"
          disabled={noRoom || !masters.length}
          onClick={() => {
            if (masterId)
              editor().addNode('broker', { ...(target ? { roomId: target } : {}), masterId })
          }}
        >
          <KindIcon kind="broker" /> Add slave broker
        </button>
      </div>
      <p className="palette-tip">
        Press <kbd>N</kbd> for the add menu, <kbd>?</kbd> for all shortcuts. Drag a node onto
        another room to move it.
      </p>
    </aside>
  )
}

/** The N-key menu: the same additions as the palette, for keyboard users. */
export function AddNodeMenu() {
  const open = useUiStore((s) => s.addMenuOpen)
  const doc = useEditorStore(selectDoc)
  const target = useTargetRoom()
  const close = useCallback(() => useUiStore.getState().setAddMenuOpen(false), [])
  if (!open) return null
  const anchor = document.getElementById('add-node-button')
  const r = anchor?.getBoundingClientRect()
  const editor = useEditorStore.getState()
  const opts = target ? { roomId: target } : {}
  const items: MenuItem[] = [
    { label: 'Room', icon: <Building2 size={14} />, hint: 'R', onSelect: () => editor.addRoom() },
    ...SIMPLE_KINDS.map(({ kind, label }, i) => ({
      label,
      icon: <KindIcon kind={kind} size={14} />,
      disabled: !target,
      separated: i === 0,
      onSelect: () => editor.addNode(kind, opts)
    })),
    ...mastersOf(doc).map((m, i) => ({
      label: `Slave of ${m.id}`,
      icon: <KindIcon kind="broker" size={14} />,
      hint: m.group,
      disabled: !target,
      separated: i === 0,
      onSelect: () => editor.addNode('broker', { ...opts, masterId: m.id })
    }))
  ]
  return (
    <Menu
      label={target ? `Add node to ${target}` : 'Add node'}
      items={items}
      x={r ? r.left : window.innerWidth / 2 - 100}
      y={r ? r.bottom + 4 : 120}
      onClose={close}
      returnFocus={anchor}
    />
  )
}
