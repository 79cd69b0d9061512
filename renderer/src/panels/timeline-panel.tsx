import { memo } from 'react'
import { EventList } from '../components/event-list'
import { TIMELINE_CAP, useTimelineStore } from '../stores/timeline-store'
import { DockSection } from './dock-section'

const TimelineBody = memo(function TimelineBody() {
  const events = useTimelineStore((s) => s.events)
  const dropped = useTimelineStore((s) => s.dropped)
  if (!events.length) {
    return (
      <p className="muted pad">
        No events yet. Start the sandbox or run a scenario: routing decisions, failovers and faults
        appear here as they happen.
      </p>
    )
  }
  return (
    <>
      {dropped > 0 && (
        <p className="muted timeline-note">
          Showing the last {TIMELINE_CAP} events ({dropped} older in the run&apos;s ledger).
        </p>
      )}
      <EventList events={events} label="Live events" follow />
    </>
  )
})

/** The live run's ledger events (decisions, failovers, faults), newest last. */
export const TimelinePanel = memo(function TimelinePanel({
  open,
  onToggle
}: {
  open: boolean
  onToggle: () => void
}) {
  const count = useTimelineStore((s) => s.events.length + s.dropped)
  const runId = useTimelineStore((s) => s.runId)
  return (
    <DockSection
      title="Timeline"
      open={open}
      onToggle={onToggle}
      badge={
        <span className="count" aria-label={`${count} events`}>
          {count}
        </span>
      }
      actions={
        runId !== null ? (
          <span className="muted mono" aria-label={`run ${runId}`}>
            run {runId}
          </span>
        ) : null
      }
    >
      <TimelineBody />
    </DockSection>
  )
})
