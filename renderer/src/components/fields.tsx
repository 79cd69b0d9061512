import type { KeyboardEvent, ReactNode } from 'react'
import { useEffect, useId, useState } from 'react'

interface FieldShellProps {
  id: string
  label: string
  error?: string | undefined
  hint?: string | undefined
  children: ReactNode
}

function FieldShell({ id, label, error, hint, children }: FieldShellProps) {
  return (
    <div className={`field${error ? ' field-invalid' : ''}`}>
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      {children}
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

export interface TextFieldProps {
  label: string
  value: string
  /** Called on blur or Enter with the edited text; return an error to keep the draft open. */
  onCommit: (value: string) => string | void
  error?: string | undefined
  hint?: string | undefined
  placeholder?: string
  type?: 'text' | 'number'
  mono?: boolean
}

/**
 * A text input that commits on blur or Enter (one undo step per edit, not per key press);
 * Escape restores the saved value.
 */
export function TextField({
  label,
  value,
  onCommit,
  error,
  hint,
  placeholder,
  type = 'text',
  mono
}: TextFieldProps) {
  const id = useId()
  const [draft, setDraft] = useState(value)
  const [localError, setLocalError] = useState<string | undefined>()
  useEffect(() => {
    setDraft(value)
    setLocalError(undefined)
  }, [value])
  const commit = () => {
    if (draft === value) {
      setLocalError(undefined)
      return
    }
    const err = onCommit(draft)
    setLocalError(err || undefined)
  }
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') {
      e.preventDefault()
      commit()
    } else if (e.key === 'Escape') {
      e.preventDefault()
      e.stopPropagation()
      setDraft(value)
      setLocalError(undefined)
    }
  }
  const shown = localError ?? error
  return (
    <FieldShell id={id} label={label} error={shown} hint={hint}>
      <input
        id={id}
        className={`input${mono ? ' mono' : ''}`}
        type="text"
        inputMode={type === 'number' ? 'numeric' : undefined}
        value={draft}
        placeholder={placeholder}
        aria-invalid={shown ? 'true' : undefined}
        aria-describedby={shown || hint ? `${id}-msg` : undefined}
        spellCheck={false}
        autoComplete="off"
        onChange={(e) => setDraft(e.target.value)}
        onBlur={commit}
        onKeyDown={onKeyDown}
      />
    </FieldShell>
  )
}

export interface SelectFieldProps {
  label: string
  value: string
  options: { value: string; label: string }[]
  onChange: (value: string) => void
  error?: string | undefined
  hint?: string | undefined
}

export function SelectField({ label, value, options, onChange, error, hint }: SelectFieldProps) {
  const id = useId()
  return (
    <FieldShell id={id} label={label} error={error} hint={hint}>
      <select
        id={id}
        className="input"
        value={value}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error || hint ? `${id}-msg` : undefined}
        onChange={(e) => onChange(e.target.value)}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </FieldShell>
  )
}

export function CheckboxField({
  label,
  checked,
  onChange,
  hint
}: {
  label: string
  checked: boolean
  onChange: (checked: boolean) => void
  hint?: string
}) {
  const id = useId()
  return (
    <div className="field field-check">
      <input
        id={id}
        type="checkbox"
        checked={checked}
        onChange={(e) => onChange(e.target.checked)}
      />
      <label htmlFor={id}>{label}</label>
      {hint && <div className="field-hint">{hint}</div>}
    </div>
  )
}

/** Parses an optional number field: '' clears it, anything else must be a number. */
export function parseOptionalNumber(
  text: string
): { ok: true; value: number | undefined } | { ok: false; error: string } {
  const t = text.trim()
  if (!t) return { ok: true, value: undefined }
  const n = Number(t)
  return Number.isFinite(n) ? { ok: true, value: n } : { ok: false, error: 'enter a number' }
}
