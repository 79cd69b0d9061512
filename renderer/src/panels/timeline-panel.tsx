import { memo, useMemo } from 'react'
import { EventList } from '../components/event-list'
import { NamesrvSwimlanes } from '../components/namesrv-swimlanes'
import { describeNetworkFault, networkOfFaultRow } from '../model/network-text'
import { useNamesrvStore } from '../stores/namesrv-store'
import { TIMELINE_CAP, useTimelineStore } from '../stores/timeline-store'
import { DockSection } from './dock-section'

/** What each name server lists during the run, and where rooms' name servers disagree. */
const LiveNamesrvLanes = memo(function LiveNamesrvLanes() {
  const samples = useNamesrvStore((s) => s.samples)
  const events = useTimelineStore((s) => s.events)
  const faults = useMemo(
    () =>
      events
        .filter((e) => e.kind === 'fault' || e.kind === 'network-fault')
        .map((e) => {
          const network = networkOfFaultRow(e.data)
          return {
            atMs: e.atMs,
            label:
              (network && describeNetworkFault(network)) ??
              `${String(e.data.action ?? 'fault')} ${Array.isArray(e.data.nodes) ? e.data.nodes.join(', ') : Array.isArray(e.data.target) ? e.data.target.join(', ') : ''}`.trim()
          }
        }),
    [events]
  )
  if (!samples.length) return null
  return (
    <details className="timeline-lanes">
      <summary>Name-server views ({samples.length} samples)</summary>
      <NamesrvSwimlanes samples={samples} faults={faults} originMs={samples[0]!.atMs} />
    </details>
  )
})

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
      <LiveNamesrvLanes />
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
  const count = useTimelineStore((s) => s.events.length + s.dropped + s.folded)
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
