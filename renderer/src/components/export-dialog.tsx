import { FolderOpen } from 'lucide-react'
import { memo, useId } from 'react'
import { nativeDirectoryPicker, useExportStore } from '../stores/export-store'
import { CancelAndAct, Dialog } from './dialog'

/** File › Export: writes production configuration for the open topology into a folder. */
export const ExportDialog = memo(function ExportDialog() {
  const open = useExportStore((s) => s.open)
  const outDir = useExportStore((s) => s.outDir)
  const busy = useExportStore((s) => s.busy)
  const error = useExportStore((s) => s.error)
  const id = useId()
  if (!open) return null
  const store = useExportStore.getState()
  const close = () => store.setOpen(false)
  const native = nativeDirectoryPicker()
  return (
    <Dialog
      title="Export production configuration"
      onClose={close}
      describedBy={`${id}-desc`}
      initialFocus="input"
      footer={
        <CancelAndAct
          label="Export"
          onCancel={close}
          onAct={() => void store.exportNow()}
          busy={busy}
          disabled={busy || !outDir.trim()}
        />
      }
    >
      <p id={`${id}-desc`} className="dialog-text">
        Writes broker, name-server and client configuration for every room, with the failover
        results of this topology&apos;s latest scenario runs, into the folder.
      </p>
      <div className={`field${error ? ' field-invalid' : ''}`}>
        <label className="field-label" htmlFor={id}>
          Output folder
        </label>
        <div className="input-row">
          <input
            id={id}
            className="input mono"
            value={outDir}
            placeholder={native ? 'Choose a folder…' : '/path/to/folder on this machine'}
            spellCheck={false}
            aria-invalid={!!error}
            aria-describedby={`${id}-msg`}
            onChange={(e) => store.setOutDir(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') void store.exportNow()
            }}
          />
          {native && (
            <button type="button" className="btn" onClick={() => void store.chooseDirectory()}>
              <FolderOpen size={14} aria-hidden="true" /> Browse…
            </button>
          )}
        </div>
        {error ? (
          <div id={`${id}-msg`} className="field-error" role="alert">
            {error}
          </div>
        ) : (
          <div id={`${id}-msg`} className="field-hint">
            {native
              ? 'Existing files with the same names are replaced.'
              : 'A folder on the machine running the engine; it is created if missing.'}
          </div>
        )}
      </div>
    </Dialog>
  )
})
