import type { HeadroomReport } from './schema'

/** What the ledger says about one fault window: sends offered per client room, acks per broker room. */
export interface FaultWindowCounts {
  /** The fault, as the timeline or the operator wrote it (e.g. "kill all brokers of room1"). */
  fault: string
  /** Relative to the workload start (ms). */
  atMs: number
  /** The first repair after it, or the end of the workload. */
  untilMs: number
  /** Sends scheduled in the window, by the sending client's room. */
  offered: readonly { room: string; sends: number }[]
  /** Sends acknowledged in the window, by the room whose broker stored them. */
  carried: readonly { room: string; acked: number }[]
  /** The brokers' load samples in the window (`broker-load` rows), by room. */
  load?: readonly { room: string; cpuPct: number | null; sendQueue: number | null }[]
}

/** The highest non-null value, or null. */
function peak(values: readonly (number | null)[]): number | null {
  const known = values.filter((v): v is number => v !== null)
  return known.length ? Math.max(...known) : null
}

const rate = (n: number, ms: number): number => Math.round((n / (ms / 1000)) * 10) / 10

/**
 * Headroom: could the rooms left carry the load while a fault lasted? Per fault window, the rate
 * offered (sends scheduled) against the rate carried (sends acknowledged), in total and per room:
 * offered by the clients of a room, carried by the brokers of a room. A window shorter than a
 * second is too short to read a rate from and is left out.
 */
export function headroomOf(windows: readonly FaultWindowCounts[]): HeadroomReport[] {
  return windows
    .filter((w) => w.untilMs - w.atMs >= 1000)
    .map((w) => {
      const span = w.untilMs - w.atMs
      const offered = w.offered.reduce((n, o) => n + o.sends, 0)
      const carried = w.carried.reduce((n, c) => n + c.acked, 0)
      const rooms = [...new Set([...w.offered.map((o) => o.room), ...w.carried.map((c) => c.room)])]
        .sort()
        .map((room) => {
          const load = (w.load ?? []).filter((l) => l.room === room)
          return {
            room,
            offeredPerS: rate(w.offered.find((o) => o.room === room)?.sends ?? 0, span),
            carriedPerS: rate(w.carried.find((c) => c.room === room)?.acked ?? 0, span),
            peakCpuPct: peak(load.map((l) => l.cpuPct)),
            peakSendQueue: peak(load.map((l) => l.sendQueue))
          }
        })
      return {
        fault: w.fault,
        atMs: w.atMs,
        untilMs: w.untilMs,
        offeredPerS: rate(offered, span),
        carriedPerS: rate(carried, span),
        share: offered > 0 ? Math.round((carried / offered) * 1000) / 1000 : null,
        rooms
      }
    })
}

/** The worst window's carried share: what the gate minThroughputDuringFault judges. */
export function worstHeadroomShare(headroom: readonly HeadroomReport[]): number | null {
  const shares = headroom.map((h) => h.share).filter((s): s is number => s !== null)
  return shares.length ? Math.min(...shares) : null
}

/** One window in words, as a label (the fault and when) and its figures: every view says the same. */
export function headroomParts(h: HeadroomReport): { label: string; value: string } {
  const share = h.share === null ? '–' : `${(h.share * 100).toFixed(1)} %`
  const rooms = h.rooms
    .map((r) => {
      const load = [
        r.peakCpuPct == null ? '' : `broker CPU up to ${r.peakCpuPct} %`,
        r.peakSendQueue == null ? '' : `send queue up to ${r.peakSendQueue}`
      ].filter(Boolean)
      return `${r.room} offered ${r.offeredPerS.toFixed(1)}, carried ${r.carriedPerS.toFixed(1)}${load.length ? ` (${load.join(', ')})` : ''}`
    })
    .join('; ')
  return {
    label: `${h.fault} (${(h.atMs / 1000).toFixed(1)}–${(h.untilMs / 1000).toFixed(1)} s)`,
    value: `carried ${h.carriedPerS.toFixed(1)} of ${h.offeredPerS.toFixed(1)} msg/s offered (${share}); ${rooms}`
  }
}

/** One window as a line (the CLI scorecard and the HTML report). */
export function headroomLine(h: HeadroomReport): string {
  const { label, value } = headroomParts(h)
  return `${label}: ${value}`
}
