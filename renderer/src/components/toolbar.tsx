import {
  Cable,
  FileOutput,
  FilePlus2,
  FolderOpen,
  History,
  Keyboard,
  ListChecks,
  LayoutGrid,
  Loader2,
  Maximize,
  Play,
  Plus,
  Redo2,
  Save,
  SaveAll,
  Square,
  Undo2
} from 'lucide-react'
import type { ReactNode } from 'react'
import { useCallback, useRef, useState } from 'react'
import type { CommandId } from '../lib/commands'
import { COMMANDS, runCommand } from '../lib/commands'
import { selectCanRedo, selectCanUndo, selectDirty, useEditorStore } from '../stores/editor-store'
import { openRecent, useFileStore } from '../stores/file-store'
import { useRunStore } from '../stores/run-store'
import { useUiStore } from '../stores/ui-store'
import { Menu } from './menu'
import { RunClock } from './run-clock'

function ToolButton({
  command,
  icon,
  disabled,
  primary,
  id,
  label,
  showLabel = true,
  extra
}: {
  command: CommandId
  icon: ReactNode
  disabled?: boolean
  primary?: boolean
  id?: string
  label?: string
  showLabel?: boolean
  extra?: Record<string, string>
}) {
  const info = COMMANDS[command]
  const name = label ?? info.label
  return (
    <button
      type="button"
      id={id}
      className={`tool${primary ? ' tool-primary' : ''}`}
      disabled={disabled}
      aria-label={name}
      title={info.keys ? `${name} (${info.keys})` : name}
      aria-keyshortcuts={info.keys
        ?.split(' or ')
        .map((k) => k.replaceAll('Ctrl', 'Control'))
        .join(' ')}
      onClick={() => runCommand(command)}
      {...extra}
    >
      {icon}
      {showLabel && <span className="tool-label">{name}</span>}
    </button>
  )
}

function RecentMenuButton() {
  const recent = useFileStore((s) => s.recent)
  const [open, setOpen] = useState(false)
  const ref = useRef<HTMLButtonElement>(null)
  const close = useCallback(() => setOpen(false), [])
  const r = ref.current?.getBoundingClientRect()
  return (
    <>
      <button
        ref={ref}
        type="button"
        className="tool"
        aria-label="Recent files"
        aria-haspopup="menu"
        aria-expanded={open}
        title="Recent files"
        onClick={() => {
          void useFileStore.getState().refreshRecent()
          setOpen((o) => !o)
        }}
      >
        <History size={16} aria-hidden="true" />
      </button>
      {open && (
        <Menu
          label="Recent files"
          x={r?.left ?? 0}
          y={(r?.bottom ?? 40) + 4}
          onClose={close}
          returnFocus={ref.current}
          items={
            recent.length
              ? recent.map((f) => ({
                  label: f.name,
                  hint: f.path,
                  onSelect: () => void openRecent(f.path)
                }))
              : [{ label: 'No recent files', disabled: true, onSelect: () => {} }]
          }
        />
      )}
    </>
  )
}

/** Header: product, file name with dirty marker, and every document, edit and run command. */
export function Toolbar() {
  const fileName = useEditorStore((s) => s.fileName)
  const dirty = useEditorStore(selectDirty)
  const canUndo = useEditorStore(selectCanUndo)
  const canRedo = useEditorStore(selectCanRedo)
  const hasRooms = useEditorStore((s) => s.history.present.rooms.length > 0)
  const running = useRunStore((s) => s.running)
  const busy = useRunStore((s) => s.busy)
  const addMenuOpen = useUiStore((s) => s.addMenuOpen)
  return (
    <header className="topbar">
      <div className="brand">
        <span className="brand-mark" aria-hidden="true">
          DR
        </span>
        <h1 className="doc-title">
          <span className="sr-only">DR Studio: </span>
          <span className="file-name" data-testid="file-name">
            {fileName}
          </span>
          {dirty && (
            <span className="dirty" aria-label="unsaved changes" title="Unsaved changes">
              •
            </span>
          )}
        </h1>
      </div>
      <div className="toolbar" role="toolbar" aria-label="Main toolbar">
        <div className="tool-group">
          <ToolButton
            command="new"
            icon={<FilePlus2 size={16} aria-hidden="true" />}
            showLabel={false}
          />
          <ToolButton
            command="open"
            icon={<FolderOpen size={16} aria-hidden="true" />}
            showLabel={false}
          />
          <RecentMenuButton />
          <ToolButton
            command="connect"
            icon={<Cable size={16} aria-hidden="true" />}
            showLabel={false}
          />
          <ToolButton
            command="save"
            icon={<Save size={16} aria-hidden="true" />}
            showLabel={false}
          />
          <ToolButton
            command="save-as"
            icon={<SaveAll size={16} aria-hidden="true" />}
            showLabel={false}
          />
          <ToolButton
            command="export"
            icon={<FileOutput size={16} aria-hidden="true" />}
            disabled={!hasRooms}
            showLabel={false}
          />
        </div>
        <div className="tool-group">
          <ToolButton
            command="undo"
            icon={<Undo2 size={16} aria-hidden="true" />}
            disabled={!canUndo}
            showLabel={false}
          />
          <ToolButton
            command="redo"
            icon={<Redo2 size={16} aria-hidden="true" />}
            disabled={!canRedo}
            showLabel={false}
          />
        </div>
        <div className="tool-group">
          <ToolButton
            command="add-node-menu"
            id="add-node-button"
            icon={<Plus size={16} aria-hidden="true" />}
            extra={{ 'aria-haspopup': 'menu', 'aria-expanded': String(addMenuOpen) }}
          />
          <ToolButton
            command="auto-layout"
            icon={<LayoutGrid size={16} aria-hidden="true" />}
            disabled={!hasRooms}
            showLabel={false}
          />
          <ToolButton
            command="zoom-to-fit"
            icon={<Maximize size={16} aria-hidden="true" />}
            showLabel={false}
          />
        </div>
        <div className="tool-group tool-run">
          <ToolButton
            command="start"
            primary
            icon={
              busy === 'starting' ? (
                <Loader2 size={16} className="spin" aria-hidden="true" />
              ) : (
                <Play size={16} aria-hidden="true" />
              )
            }
            disabled={running || busy !== null || !hasRooms}
          />
          <ToolButton
            command="stop"
            icon={
              busy === 'stopping' ? (
                <Loader2 size={16} className="spin" aria-hidden="true" />
              ) : (
                <Square size={14} aria-hidden="true" />
              )
            }
            disabled={!running || busy !== null}
          />
          <RunClock />
        </div>
        <div className="tool-group">
          <ToolButton command="runs" icon={<ListChecks size={16} aria-hidden="true" />} />
        </div>
        <div className="tool-group tool-end">
          <ToolButton
            command="shortcuts"
            icon={<Keyboard size={16} aria-hidden="true" />}
            showLabel={false}
          />
        </div>
      </div>
    </header>
  )
}
