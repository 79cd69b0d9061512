import { useId, useMemo, useState } from 'react'
import type { BlockMode, Direction } from '../../../common/scenario/schema'
import { isAttached, listNodes } from '../../../common/topology'
import type { DraftField, FaultDraft } from '../model/network-dialog'
import {
  EVERY_OTHER_ROOM,
  dialogTitle,
  directionOptions,
  draftFaults
} from '../model/network-dialog'
import type { NetworkDialogRequest } from '../model/network-menu'
import { BLOCK_MODE_TEXT, OWN_NAMESPACE_KINDS } from '../model/network-menu'
import { useEditorStore } from '../stores/editor-store'
import { useNetworkStore } from '../stores/network-store'
import { Dialog } from './dialog'

function NumberInput({
  field,
  label,
  value,
  onChange,
  error,
  hint
}: {
  field: DraftField
  label: string
  value: string
  onChange: (v: string) => void
  error: string | undefined
  hint?: string
}) {
  const id = useId()
  return (
    <div className={`field${error ? ' field-invalid' : ''}`}>
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <input
        id={id}
        name={field}
        className="input mono"
        type="text"
        inputMode="decimal"
        autoComplete="off"
        spellCheck={false}
        value={value}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error || hint ? `${id}-msg` : undefined}
        onChange={(e) => onChange(e.target.value)}
      />
      {error ? (
        <div id={`${id}-msg`} className="field-error" role="alert">
          {error}
        </div>
      ) : hint ? (
        <div id={`${id}-msg`} className="field-hint">
          {hint}
        </div>
      ) : null}
    </div>
  )
}

function Select<T extends string>({
  label,
  value,
  options,
  onChange,
  error
}: {
  label: string
  value: T
  options: readonly { value: T; label: string }[]
  onChange: (v: T) => void
  error?: string | undefined
}) {
  const id = useId()
  return (
    <div className={`field${error ? ' field-invalid' : ''}`}>
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <select
        id={id}
        className="input"
        value={value}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? `${id}-msg` : undefined}
        onChange={(e) => onChange(e.target.value as T)}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {error && (
        <div id={`${id}-msg`} className="field-error" role="alert">
          {error}
        </div>
      )}
    </div>
  )
}

function ModeChoice({ value, onChange }: { value: BlockMode; onChange: (m: BlockMode) => void }) {
  const name = useId()
  return (
    <fieldset className="field net-mode">
      <legend className="field-label">Cut packets by</legend>
      {(['drop', 'reject'] as const).map((m) => (
        <label key={m} className="net-mode-option">
          <input
            type="radio"
            name={name}
            value={m}
            checked={value === m}
            onChange={() => onChange(m)}
          />
          <span>
            <strong>{BLOCK_MODE_TEXT[m].label}</strong>{' '}
            <span className="muted">{BLOCK_MODE_TEXT[m].description}</span>
          </span>
        </label>
      ))}
    </fieldset>
  )
}

/** Peers a fault on `target` may name: other rooms, and for cuts the servers with their own namespace. */
function usePeerOptions(req: NetworkDialogRequest) {
  const doc = useEditorStore((s) => s.history.present)
  return useMemo(() => {
    const rooms = doc.rooms.map((r) => r.id)
    const others = rooms.filter((r) => r !== req.target)
    const opts: { value: string; label: string }[] = [{ value: '', label: 'Choose…' }]
    const targetIsRoom = rooms.includes(req.target)
    if (targetIsRoom && req.kind !== 'cut' && others.length > 1) {
      opts.push({ value: EVERY_OTHER_ROOM, label: 'Every other room' })
    }
    for (const r of others) opts.push({ value: r, label: `room ${r}` })
    if (req.kind === 'cut') {
      for (const n of listNodes(doc)) {
        if (n.id === req.target || !OWN_NAMESPACE_KINDS.has(n.kind) || isAttached(n)) continue
        opts.push({ value: n.id, label: `${n.id} (${n.kind} in ${n.room})` })
      }
    }
    return { rooms, opts }
  }, [doc, req.target, req.kind])
}

function NetworkFaultForm({ req }: { req: NetworkDialogRequest }) {
  const blockMode = useNetworkStore((s) => s.blockMode)
  const pending = useNetworkStore((s) => s.pending)
  const { rooms, opts } = usePeerOptions(req)
  const [draft, setDraft] = useState<FaultDraft>(() => ({
    kind: req.kind,
    target: req.target,
    peer: req.peer ?? '',
    direction: req.direction,
    mode: blockMode,
    latencyMs: '',
    jitterMs: '',
    lossPct: '',
    mbit: ''
  }))
  const [errors, setErrors] = useState<Partial<Record<DraftField, string>>>({})
  const set = <K extends keyof FaultDraft>(k: K, v: FaultDraft[K]) => {
    setDraft((d) => ({ ...d, [k]: v }))
    setErrors((e) => ({ ...e, [k]: undefined }))
  }
  const close = () => useNetworkStore.getState().openDialog(null)
  const title = dialogTitle(req.kind, req.target, req.peer)
  const submit = async () => {
    const result = draftFaults(draft, rooms)
    if (!result.ok) {
      setErrors(result.errors)
      return
    }
    if (await useNetworkStore.getState().act(result.faults)) close()
  }
  const verb = req.kind === 'cut' ? 'Cut' : req.kind === 'delay' ? 'Slow' : 'Apply'
  return (
    <Dialog
      title={title}
      onClose={close}
      {...(req.kind === 'cut' ? {} : { initialFocus: 'input[inputmode="decimal"]' })}
      footer={
        <>
          <button type="button" className="btn" onClick={close}>
            Cancel
          </button>
          <button
            type="submit"
            form="network-fault-form"
            className="btn btn-primary"
            disabled={pending}
          >
            {verb}
          </button>
        </>
      }
    >
      <form
        id="network-fault-form"
        className="net-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault()
          void submit()
        }}
      >
        {req.peer ? (
          <p className="muted">
            Between <strong>{req.target}</strong> and <strong>{req.peer}</strong>.
          </p>
        ) : (
          <Select
            label="Peer"
            value={draft.peer}
            options={opts}
            onChange={(v) => set('peer', v)}
            error={errors.peer}
          />
        )}
        <Select<Direction>
          label="Direction"
          value={draft.direction}
          options={directionOptions(req.target, draft.peer)}
          onChange={(v) => set('direction', v)}
        />
        {req.kind === 'cut' && <ModeChoice value={draft.mode} onChange={(m) => set('mode', m)} />}
        {req.kind === 'delay' && (
          <>
            <NumberInput
              field="latencyMs"
              label="Latency (ms)"
              value={draft.latencyMs}
              onChange={(v) => set('latencyMs', v)}
              error={errors.latencyMs}
              hint="Added to every packet in the chosen direction, e.g. 20"
            />
            <NumberInput
              field="jitterMs"
              label="Jitter (ms)"
              value={draft.jitterMs}
              onChange={(v) => set('jitterMs', v)}
              error={errors.jitterMs}
              hint="Each packet gets latency ± up to this much; empty for none"
            />
          </>
        )}
        {req.kind === 'loss' && (
          <NumberInput
            field="lossPct"
            label="Loss (%)"
            value={draft.lossPct}
            onChange={(v) => set('lossPct', v)}
            error={errors.lossPct}
            hint="Share of packets dropped at random, e.g. 30"
          />
        )}
        {req.kind === 'bandwidth' && (
          <NumberInput
            field="mbit"
            label="Bandwidth (Mbit/s)"
            value={draft.mbit}
            onChange={(v) => set('mbit', v)}
            error={errors.mbit}
            hint="The most the link carries in the chosen direction, e.g. 10"
          />
        )}
      </form>
    </Dialog>
  )
}

/** The dialog of Cut…, Slow…, Lossy…, Bandwidth… and a node's Cut from…; validates before it applies. */
export function NetworkDialog() {
  const req = useNetworkStore((s) => s.dialog)
  if (!req) return null
  // Keyed so each opening starts from a fresh draft.
  return <NetworkFaultForm key={`${req.kind}:${req.target}:${req.peer ?? ''}`} req={req} />
}
