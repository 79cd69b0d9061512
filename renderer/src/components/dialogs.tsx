import { RefreshCw } from 'lucide-react'
import { useEffect, useId, useRef } from 'react'
import { COMMANDS } from '../lib/commands'
import { useRunStore } from '../stores/run-store'
import { useUiStore } from '../stores/ui-store'
import { Dialog } from './dialog'

/** "Discard unsaved changes?" and other yes/no questions (role="alertdialog"). */
export function ConfirmDialog() {
  const confirm = useUiStore((s) => s.confirm)
  const descId = useId()
  if (!confirm) return null
  const answer = useUiStore.getState().answer
  return (
    <Dialog
      title={confirm.title}
      role="alertdialog"
      onClose={() => answer('cancel')}
      describedBy={descId}
      initialFocus="[data-autofocus]"
      footer={
        <>
          <button type="button" className="btn" data-autofocus onClick={() => answer('cancel')}>
            Cancel
          </button>
          {confirm.alternateLabel && (
            <button type="button" className="btn" onClick={() => answer('alternate')}>
              {confirm.alternateLabel}
            </button>
          )}
          <button type="button" className="btn btn-danger" onClick={() => answer('confirm')}>
            {confirm.confirmLabel}
          </button>
        </>
      }
    >
      <p id={descId}>{confirm.message}</p>
    </Dialog>
  )
}

/** A node's process log (`node:log`), refreshable. */
export function LogDialog() {
  const log = useUiStore((s) => s.log)
  const pre = useRef<HTMLPreElement>(null)
  useEffect(() => {
    // A log tail is read from the bottom.
    if (pre.current) pre.current.scrollTop = pre.current.scrollHeight
  }, [log?.text])
  if (!log) return null
  const close = () => useUiStore.getState().setLog(null)
  return (
    <Dialog
      title={`Log of ${log.nodeId}`}
      wide
      onClose={close}
      footer={
        <>
          <button
            type="button"
            className="btn"
            onClick={() => void useRunStore.getState().showLog(log.nodeId)}
          >
            <RefreshCw size={14} aria-hidden="true" /> Refresh
          </button>
          <button type="button" className="btn btn-primary" onClick={close}>
            Close
          </button>
        </>
      }
    >
      {log.path && <p className="log-path mono">{log.path}</p>}
      {log.loading ? (
        <p>Loading…</p>
      ) : log.error ? (
        <p className="field-error" role="alert">
          {log.error}
        </p>
      ) : (
        <pre ref={pre} className="log-text" tabIndex={0} aria-label={`Log text of ${log.nodeId}`}>
          {log.text || '(empty)'}
        </pre>
      )}
    </Dialog>
  )
}

/** Every shortcut, from the same table the keyboard handler uses. */
export function ShortcutsDialog() {
  const open = useUiStore((s) => s.shortcutsOpen)
  if (!open) return null
  const close = () => useUiStore.getState().setShortcutsOpen(false)
  const rows = Object.values(COMMANDS).filter((c) => c.keys)
  return (
    <Dialog
      title="Keyboard shortcuts"
      onClose={close}
      footer={
        <button type="button" className="btn btn-primary" onClick={close}>
          Close
        </button>
      }
    >
      <table className="shortcuts">
        <tbody>
          {rows.map((c) => (
            <tr key={c.label}>
              <td>{c.label}</td>
              <td>
                <kbd>{c.keys}</kbd>
              </td>
            </tr>
          ))}
          <tr>
            <td>Node actions (Kill, Pause, Resume, Restart, Show log)</td>
            <td>
              <kbd>Shift+F10</kbd> on a node, or right click
            </td>
          </tr>
          <tr>
            <td>Network actions (Isolate, Cut, Slow…, Lossy…, Bandwidth…, Heal)</td>
            <td>
              <kbd>Shift+F10</kbd> on a room or a link between rooms, or right click
            </td>
          </tr>
          <tr>
            <td>Select focused node / move selected nodes</td>
            <td>
              <kbd>Tab</kbd>, <kbd>Enter</kbd>, arrow keys
            </td>
          </tr>
        </tbody>
      </table>
    </Dialog>
  )
}
