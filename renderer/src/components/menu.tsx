import type { KeyboardEvent, ReactNode } from 'react'
import { Fragment, useEffect, useLayoutEffect, useRef, useState } from 'react'

export interface MenuItem {
  label: string
  onSelect: () => void
  disabled?: boolean
  icon?: ReactNode
  hint?: string
  /** Draws a separator above the item. */
  separated?: boolean
}

interface MenuProps {
  label: string
  items: MenuItem[]
  x: number
  y: number
  onClose: () => void
  returnFocus?: HTMLElement | null
}

/**
 * An accessible popup menu (role="menu"): arrow keys, Home/End, Enter/Space, Escape, first-letter
 * jump. Focus moves to the first enabled item and returns to the opener on close.
 */
export function Menu({ label, items, x, y, onClose, returnFocus }: MenuProps) {
  const ref = useRef<HTMLDivElement>(null)
  const [pos, setPos] = useState({ x, y })

  useLayoutEffect(() => {
    const el = ref.current
    if (!el) return
    const r = el.getBoundingClientRect()
    setPos({
      x: Math.max(4, Math.min(x, window.innerWidth - r.width - 4)),
      y: Math.max(4, Math.min(y, window.innerHeight - r.height - 4))
    })
    el.querySelector<HTMLElement>('[role="menuitem"]:not([aria-disabled="true"])')?.focus()
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
    const all = [...(ref.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])]
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
      {items.map((item) => (
        <Fragment key={item.label}>
          {item.separated && <div role="separator" className="menu-separator" />}
          <div
            role="menuitem"
            tabIndex={-1}
            aria-disabled={item.disabled ? 'true' : undefined}
            className="menu-item"
            onClick={() => {
              if (item.disabled) return
              close()
              item.onSelect()
            }}
            onKeyDown={(e) => {
              if ((e.key === 'Enter' || e.key === ' ') && !item.disabled) {
                e.preventDefault()
                e.stopPropagation()
                close()
                item.onSelect()
              }
            }}
          >
            <span className="menu-icon">{item.icon}</span>
            <span className="menu-label">{item.label}</span>
            {item.hint && <span className="menu-hint">{item.hint}</span>}
          </div>
        </Fragment>
      ))}
    </div>
  )
}
