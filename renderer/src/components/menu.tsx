import type { KeyboardEvent, ReactNode } from 'react'
import { Fragment, useEffect, useId, useLayoutEffect, useRef, useState } from 'react'

export interface MenuItem {
  label: string
  onSelect: () => void
  disabled?: boolean
  icon?: ReactNode
  hint?: string
  /** The hint is for the eye only (the description says it for screen readers). */
  hintHidden?: boolean
  /** Said after the name (accessible description) and shown as a tooltip: e.g. why it is greyed out. */
  description?: string
  /** A choice among siblings (role menuitemradio); choosing it keeps the menu open. */
  checked?: boolean
  /** Draws a separator above the item. */
  separated?: boolean
}

const ITEMS = '[role="menuitem"], [role="menuitemradio"]'

interface MenuProps {
  label: string
  items: MenuItem[]
  x: number
  y: number
  onClose: () => void
  returnFocus?: HTMLElement | SVGElement | null
}

/**
 * An accessible popup menu (role="menu"): arrow keys, Home/End, Enter/Space, Escape, first-letter
 * jump. Focus moves to the first enabled item and returns to the opener on close.
 */
export function Menu({ label, items, x, y, onClose, returnFocus }: MenuProps) {
  const ref = useRef<HTMLDivElement>(null)
  const menuId = useId()
  const [pos, setPos] = useState({ x, y })

  useLayoutEffect(() => {
    const el = ref.current
    if (!el) return
    const r = el.getBoundingClientRect()
    setPos({
      x: Math.max(4, Math.min(x, window.innerWidth - r.width - 4)),
      y: Math.max(4, Math.min(y, window.innerHeight - r.height - 4))
    })
    el.querySelector<HTMLElement>(
      '[role="menuitem"]:not([aria-disabled="true"]), [role="menuitemradio"]:not([aria-disabled="true"])'
    )?.focus()
  }, [x, y])

  useEffect(() => {
    const onDown = (e: PointerEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) onClose()
    }
    window.addEventListener('pointerdown', onDown, true)
    return () => window.removeEventListener('pointerdown', onDown, true)
  }, [onClose])

  const close = () => {
    onClose()
    returnFocus?.focus()
  }

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const all = [...(ref.current?.querySelectorAll<HTMLElement>(ITEMS) ?? [])]
    const enabled = all.filter((el) => el.getAttribute('aria-disabled') !== 'true')
    const i = enabled.indexOf(document.activeElement as HTMLElement)
    const focus = (n: number) => enabled[(n + enabled.length) % enabled.length]?.focus()
    e.stopPropagation()
    switch (e.key) {
      case 'ArrowDown':
        e.preventDefault()
        focus(i + 1)
        return
      case 'ArrowUp':
        e.preventDefault()
        focus(i - 1)
        return
      case 'Home':
        e.preventDefault()
        focus(0)
        return
      case 'End':
        e.preventDefault()
        focus(enabled.length - 1)
        return
      case 'Escape':
        e.preventDefault()
        close()
        return
      case 'Tab':
        e.preventDefault()
        close()
        return
      default:
        if (e.key.length === 1 && /\S/.test(e.key)) {
          const k = e.key.toLowerCase()
          const start = Math.max(i, -1)
          for (let d = 1; d <= enabled.length; d++) {
            const el = enabled[(start + d) % enabled.length]!
            if (el.textContent?.trim().toLowerCase().startsWith(k)) {
              el.focus()
              break
            }
          }
        }
    }
  }

  return (
    <div
      ref={ref}
      role="menu"
      aria-label={label}
      className="menu"
      style={{ left: pos.x, top: pos.y }}
      onKeyDown={onKeyDown}
    >
      {items.map((item, i) => {
        const radio = item.checked !== undefined
        const choose = () => {
          if (item.disabled) return
          // A radio choice changes a setting of the menu; the user goes on to pick an action.
          if (!radio) close()
          item.onSelect()
        }
        const descId = item.description ? `${menuId}-d${i}` : undefined
        return (
          <Fragment key={item.label}>
            {item.separated && <div role="separator" className="menu-separator" />}
            <div
              role={radio ? 'menuitemradio' : 'menuitem'}
              aria-checked={radio ? item.checked : undefined}
              tabIndex={-1}
              aria-disabled={item.disabled ? 'true' : undefined}
              aria-describedby={descId}
              title={item.description}
              className={`menu-item${radio ? ' menu-radio' : ''}`}
              onClick={choose}
              onKeyDown={(e) => {
                if ((e.key === 'Enter' || e.key === ' ') && !item.disabled) {
                  e.preventDefault()
                  e.stopPropagation()
                  choose()
                }
              }}
            >
              <span className="menu-icon">{item.icon}</span>
              <span className="menu-label">{item.label}</span>
              {item.hint && (
                <span className="menu-hint" aria-hidden={item.hintHidden ? 'true' : undefined}>
                  {item.hint}
                </span>
              )}
            </div>
            {descId && (
              <span id={descId} hidden>
                {item.description}
              </span>
            )}
          </Fragment>
        )
      })}
    </div>
  )
}
