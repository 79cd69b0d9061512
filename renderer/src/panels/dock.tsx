import { memo, useCallback, useState } from 'react'
import { ScenariosPanel } from './scenarios-panel'
import { TimelinePanel } from './timeline-panel'

/** Bottom dock under the canvas: Scenarios and Timeline side by side, each collapsible. */
export const Dock = memo(function Dock() {
  const [scenarios, setScenarios] = useState(false)
  const [timeline, setTimeline] = useState(false)
  const toggleScenarios = useCallback(() => setScenarios((o) => !o), [])
  const toggleTimeline = useCallback(() => setTimeline((o) => !o), [])
  return (
    <div
      className={`dock${scenarios || timeline ? ' dock-open' : ''}${scenarios !== timeline ? ' dock-one' : ''}`}
    >
      <ScenariosPanel open={scenarios} onToggle={toggleScenarios} />
      <TimelinePanel open={timeline} onToggle={toggleTimeline} />
    </div>
  )
})
