import { Loader2 } from 'lucide-react'
import type { KeyboardEvent, ReactNode } from 'react'
import { useEffect, useId, useRef } from 'react'

interface DialogProps {
  title: string
  role?: 'dialog' | 'alertdialog'
  onClose: () => void
  children: ReactNode
  footer?: ReactNode
  wide?: boolean
  /** `full`: nearly the whole window, for views such as Runs. */
  size?: 'normal' | 'full'
  /** Selector of the element to focus first; defaults to the first focusable element. */
  initialFocus?: string
  describedBy?: string
}

const FOCUSABLE =
  'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea, [tabindex]:not([tabindex="-1"])'

/** Modal dialog: labelled by its title, traps Tab, closes on Escape, restores focus. */
export function Dialog({
  title,
  role = 'dialog',
  onClose,
  children,
  footer,
  wide,
  size = 'normal',
  initialFocus,
  describedBy
}: DialogProps) {
  const ref = useRef<HTMLDivElement>(null)
  const titleId = useId()
  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null
    const el = ref.current
    const first =
      (initialFocus && el?.querySelector<HTMLElement>(initialFocus)) ||
      el?.querySelector<HTMLElement>(FOCUSABLE)
    first?.focus()
    return () => previous?.focus?.()
  }, [initialFocus])
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    e.stopPropagation()
    if (e.key === 'Escape') {
      e.preventDefault()
      onClose()
    } else if (e.key === 'Tab') {
      const items = [...(ref.current?.querySelectorAll<HTMLElement>(FOCUSABLE) ?? [])]
      if (!items.length) return
      const first = items[0]!
      const last = items[items.length - 1]!
      if (e.shiftKey && document.activeElement === first) {
        e.preventDefault()
        last.focus()
      } else if (!e.shiftKey && document.activeElement === last) {
        e.preventDefault()
        first.focus()
      }
    }
  }
  return (
    <div className="backdrop">
      <div
        ref={ref}
        role={role}
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={describedBy}
        className={`dialog${wide ? ' dialog-wide' : ''}${size === 'full' ? ' dialog-full' : ''}`}
        onKeyDown={onKeyDown}
      >
        <h2 id={titleId} className="dialog-title">
          {title}
        </h2>
        <div className="dialog-body">{children}</div>
        {footer && <div className="dialog-footer">{footer}</div>}
      </div>
    </div>
  )
}

/** A dialog's Cancel and its primary action, which spins while `busy`. */
export function CancelAndAct({
  label,
  onCancel,
  onAct,
  busy,
  disabled
}: {
  label: string
  onCancel: () => void
  onAct: () => void
  busy: boolean
  disabled: boolean
}) {
  return (
    <>
      <button type="button" className="btn" onClick={onCancel}>
        Cancel
      </button>
      <button type="button" className="btn btn-primary" disabled={disabled} onClick={onAct}>
        {busy && <Loader2 size={14} className="spin" aria-hidden="true" />}
        {label}
      </button>
    </>
  )
}
