import { X } from 'lucide-react'
import { useUiStore } from '../stores/ui-store'

/** Toast area; one polite live region so screen readers announce each message once. */
export function Toasts() {
  const toasts = useUiStore((s) => s.toasts)
  const dismiss = useUiStore((s) => s.dismissToast)
  return (
    <div className="toasts" role="status" aria-live="polite" aria-label="Notifications">
      {toasts.map((t) => (
        <div key={t.id} className={`toast toast-${t.level}${t.kind ? ` toast-${t.kind}` : ''}`}>
          <span className="toast-msg">{t.message}</span>
          <button
            type="button"
            className="icon-btn"
            aria-label="Dismiss notification"
            onClick={() => dismiss(t.id)}
          >
            <X size={14} aria-hidden="true" />
          </button>
        </div>
      ))}
    </div>
  )
}
