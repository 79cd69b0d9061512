import { ChevronDown, ChevronRight } from 'lucide-react'
import type { ReactNode } from 'react'
import { memo } from 'react'

/** A collapsible bottom-dock panel: a region named by its title, with a toggle and a count. */
export const DockSection = memo(function DockSection({
  title,
  open,
  onToggle,
  badge,
  actions,
  children
}: {
  title: string
  open: boolean
  onToggle: () => void
  badge?: ReactNode
  actions?: ReactNode
  children: ReactNode
}) {
  return (
    <section className={`dock-section${open ? '' : ' collapsed'}`} aria-label={title}>
      <div className="dock-header">
        <h2 className="dock-title">
          <button type="button" className="dock-toggle" aria-expanded={open} onClick={onToggle}>
            {open ? (
              <ChevronDown size={14} aria-hidden="true" />
            ) : (
              <ChevronRight size={14} aria-hidden="true" />
            )}
            {title}
            {badge}
          </button>
        </h2>
        {open && actions && <div className="dock-actions">{actions}</div>}
      </div>
      {open && <div className="dock-body">{children}</div>}
    </section>
  )
})
