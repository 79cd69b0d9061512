import { memo, useEffect, useRef } from 'react'
import { describeLedgerEvent, ledgerSeverity } from '../model/ledger-text'
import type { StoredEvent } from '../model/plot-data'

function clock(atMs: number, originMs: number | null): string {
  if (originMs !== null) return `${((atMs - originMs) / 1000).toFixed(2)} s`
  const d = new Date(atMs)
  return `${d.toLocaleTimeString([], { hour12: false })}.${String(d.getMilliseconds()).padStart(3, '0')}`
}

type ListedEvent = StoredEvent & { seq?: number; repeats?: number; lastAtMs?: number }

const Row = memo(function Row({ e, originMs }: { e: ListedEvent; originMs: number | null }) {
  return (
    <li className={`event event-${ledgerSeverity(e.kind)}`}>
      <span className="event-time mono">{clock(e.atMs, originMs)}</span>
      <span className="event-kind">{e.kind}</span>
      <span className="event-client mono">{e.clientId ?? '—'}</span>
      <span className="event-room">{e.room ?? ''}</span>
      <span className="event-desc">
        {describeLedgerEvent(e)}
        {e.repeats !== undefined && e.repeats > 1 && (
          <span className="event-repeats mono">
            {` ×${e.repeats}, last at ${clock(e.lastAtMs ?? e.atMs, originMs)}`}
          </span>
        )}
      </span>
    </li>
  )
})

/**
 * Ledger events, newest last; follows the end while the user is at the bottom.
 *
 * Callers cap the list (the live timeline keeps 500), so plain rendering stays cheap.
 */
export const EventList = memo(function EventList({
  events,
  label,
  originMs = null,
  follow = false
}: {
  events: readonly ListedEvent[]
  label: string
  originMs?: number | null
  follow?: boolean
}) {
  const ref = useRef<HTMLOListElement>(null)
  const atEnd = useRef(true)
  useEffect(() => {
    const el = ref.current
    if (follow && el && atEnd.current) el.scrollTop = el.scrollHeight
  }, [events, follow])
  return (
    <ol
      ref={ref}
      className="event-list"
      aria-label={label}
      tabIndex={0}
      onScroll={(ev) => {
        const el = ev.currentTarget
        atEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24
      }}
    >
      {events.map((e, i) => (
        <Row key={e.seq ?? e.id ?? i} e={e} originMs={originMs} />
      ))}
    </ol>
  )
})
