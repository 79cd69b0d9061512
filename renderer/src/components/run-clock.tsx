import { useEffect, useState } from 'react'
import { useRunStore } from '../stores/run-store'

/** Elapsed run time as H:MM:SS. */
export function formatElapsed(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000))
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = total % 60
  return `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`
}

/** Ticks on its own so the rest of the UI does not re-render every second. */
export function RunClock() {
  const startedAt = useRunStore((s) => (s.running ? s.startedAt : null))
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    if (startedAt === null) return
    const t = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(t)
  }, [startedAt])
  if (startedAt === null) return null
  const text = formatElapsed(now - startedAt)
  return (
    <span className="run-clock" role="timer" aria-label={`Run time ${text}`}>
      {text}
    </span>
  )
}
