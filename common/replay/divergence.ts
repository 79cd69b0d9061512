/** One `namesrv-view` row, reduced to what divergence needs. */
export interface NamesrvSample {
  atMs: number
  namesrvId: string
  room: string
  /** Broker names the name server listed (its cluster info). */
  brokers: readonly string[]
  /** A sampled topic's route: the broker names it hands out for that topic. */
  route?: { topic: string; brokers: readonly string[] }
  /** Set when the name server did not answer: it hands out nothing, so it is not compared. */
  error?: string
}

/** Parses `namesrv-view` ledger rows into samples; rows of other kinds or without an id are skipped. */
export function namesrvSamples(
  events: readonly { atMs: number; kind: string; data: Record<string, unknown> }[]
): NamesrvSample[] {
  const names = (v: unknown): string[] =>
    Array.isArray(v)
      ? v.flatMap((b) =>
          typeof (b as { brokerName?: unknown })?.brokerName === 'string'
            ? [(b as { brokerName: string }).brokerName]
            : []
        )
      : []
  const out: NamesrvSample[] = []
  for (const e of events) {
    if (e.kind !== 'namesrv-view') continue
    const d = e.data
    if (typeof d.namesrvId !== 'string') continue
    const route = d.route as { topic?: unknown; brokers?: unknown } | undefined
    out.push({
      atMs: e.atMs,
      namesrvId: d.namesrvId,
      room: typeof d.room === 'string' ? d.room : '?',
      brokers: names(d.brokers),
      ...(route && typeof route.topic === 'string'
        ? { route: { topic: route.topic, brokers: names(route.brokers) } }
        : {}),
      ...(typeof d.error === 'string' ? { error: d.error } : {})
    })
  }
  return out.sort((a, b) => a.atMs - b.atMs)
}

/** A broker some name servers hand out and others (of another room) do not. */
export interface BrokerDisagreement {
  /** `cluster` for the broker list, else the topic whose route differs. */
  scope: string
  brokerName: string
  listedBy: string[]
  missingFrom: string[]
}

/** A span during which name servers of different rooms disagreed. */
export interface DivergenceWindow {
  startMs: number
  /** The first sample that agreed again, or the last sample when it never did. */
  endMs: number
  durationMs: number
  /** True when the samples ended while they still disagreed. */
  open: boolean
  /** Every broker they disagreed about during the window. */
  brokers: BrokerDisagreement[]
}

export interface DivergenceOptions {
  /** A name server whose last answer is older than this is left out (default 5000 ms). */
  staleMs?: number
}

type Latest = Map<string, NamesrvSample>

const key = (xs: readonly string[]) => [...new Set(xs)].sort().join('\u0000')

/** Disagreements between fresh, answering name servers of different rooms at one instant. */
export function disagreementsAt(latest: Latest, t: number, staleMs = 5000): BrokerDisagreement[] {
  const live = [...latest.values()].filter((s) => !s.error && t - s.atMs <= staleMs)
  if (new Set(live.map((s) => s.room)).size < 2) return []
  const scopes = new Map<string, Map<string, readonly string[]>>()
  const put = (scope: string, ns: string, brokers: readonly string[]) => {
    let m = scopes.get(scope)
    if (!m) scopes.set(scope, (m = new Map()))
    m.set(ns, brokers)
  }
  for (const s of live) {
    put('cluster', s.namesrvId, s.brokers)
    if (s.route) put(s.route.topic, s.namesrvId, s.route.brokers)
  }
  const roomOf = new Map(live.map((s) => [s.namesrvId, s.room]))
  const out: BrokerDisagreement[] = []
  for (const [scope, byNs] of scopes) {
    if (new Set([...byNs.values()].map(key)).size < 2) continue
    const all = [...new Set([...byNs.values()].flat())].sort()
    for (const brokerName of all) {
      const listedBy = [...byNs].filter(([, b]) => b.includes(brokerName)).map(([ns]) => ns)
      const missingFrom = [...byNs].filter(([, b]) => !b.includes(brokerName)).map(([ns]) => ns)
      if (!missingFrom.length) continue
      // Only a difference between rooms counts: clients of different rooms get different answers.
      const acrossRooms = listedBy.some((a) =>
        missingFrom.some((b) => roomOf.get(a) !== roomOf.get(b))
      )
      if (!acrossRooms) continue
      out.push({ scope, brokerName, listedBy: listedBy.sort(), missingFrom: missingFrom.sort() })
    }
  }
  return out
}

function mergeBrokers(into: BrokerDisagreement[], more: BrokerDisagreement[]): void {
  for (const d of more) {
    const have = into.find((x) => x.scope === d.scope && x.brokerName === d.brokerName)
    if (!have) {
      into.push({ ...d, listedBy: [...d.listedBy], missingFrom: [...d.missingFrom] })
      continue
    }
    have.listedBy = [...new Set([...have.listedBy, ...d.listedBy])].sort()
    have.missingFrom = [...new Set([...have.missingFrom, ...d.missingFrom])].sort()
  }
}

/**
 * Windows in which name servers of different rooms disagreed about the broker set or a topic's
 * route, e.g. one still handing out a killed broker the others dropped. A window opens at the
 * first sample that shows a difference and closes at the first sample that shows none.
 */
export function divergenceWindows(
  samples: readonly NamesrvSample[],
  options: DivergenceOptions = {}
): DivergenceWindow[] {
  const staleMs = options.staleMs ?? 5000
  const sorted = [...samples].sort((a, b) => a.atMs - b.atMs)
  const latest: Latest = new Map()
  const out: DivergenceWindow[] = []
  let open: DivergenceWindow | null = null
  for (let i = 0; i < sorted.length; i++) {
    const s = sorted[i]!
    latest.set(s.namesrvId, s)
    // Samples of one sweep share a time; judge once the whole sweep is in.
    if (sorted[i + 1]?.atMs === s.atMs) continue
    const diff = disagreementsAt(latest, s.atMs, staleMs)
    if (diff.length) {
      if (!open) open = { startMs: s.atMs, endMs: s.atMs, durationMs: 0, open: true, brokers: [] }
      mergeBrokers(open.brokers, diff)
      open.endMs = s.atMs
    } else if (open) {
      out.push({ ...open, endMs: s.atMs, durationMs: s.atMs - open.startMs, open: false })
      open = null
    }
  }
  if (open) out.push({ ...open, durationMs: open.endMs - open.startMs })
  return out
}

export interface FaultMark {
  atMs: number
  label: string
}

export interface FaultDivergence {
  fault: FaultMark | null
  /** The longest window that started at or after this fault and before the next; null if none. */
  longest: DivergenceWindow | null
  windows: number
}

/** Longest divergence window per fault; windows before the first fault go under `fault: null`. */
export function longestWindowPerFault(
  windows: readonly DivergenceWindow[],
  faults: readonly FaultMark[]
): FaultDivergence[] {
  const sorted = [...faults].sort((a, b) => a.atMs - b.atMs)
  const groups: FaultDivergence[] = sorted.map((fault) => ({ fault, longest: null, windows: 0 }))
  const before: FaultDivergence = { fault: null, longest: null, windows: 0 }
  for (const w of windows) {
    let g = before
    for (let i = sorted.length - 1; i >= 0; i--) {
      if (sorted[i]!.atMs <= w.startMs) {
        g = groups[i]!
        break
      }
    }
    g.windows++
    if (!g.longest || w.durationMs > g.longest.durationMs) g.longest = w
  }
  return before.windows ? [before, ...groups] : groups
}

/** One stretch of a name server's swimlane: what it listed from `startMs` to `endMs`. */
export interface LaneSegment {
  startMs: number
  endMs: number
  brokers: string[]
  error: string | null
}

export interface NamesrvLane {
  namesrvId: string
  room: string
  segments: LaneSegment[]
}

/** Per name server, consecutive samples that listed the same brokers merged into one segment. */
export function namesrvLanes(samples: readonly NamesrvSample[], endMs?: number): NamesrvLane[] {
  const sorted = [...samples].sort((a, b) => a.atMs - b.atMs)
  const last = endMs ?? sorted[sorted.length - 1]?.atMs ?? 0
  const lanes = new Map<string, NamesrvLane>()
  for (const s of sorted) {
    let lane = lanes.get(s.namesrvId)
    if (!lane)
      lanes.set(s.namesrvId, (lane = { namesrvId: s.namesrvId, room: s.room, segments: [] }))
    const brokers = [...new Set(s.brokers)].sort()
    const error = s.error ?? null
    const prev = lane.segments[lane.segments.length - 1]
    if (prev && prev.error === error && key(prev.brokers) === key(brokers)) continue
    if (prev) prev.endMs = s.atMs
    lane.segments.push({ startMs: s.atMs, endMs: last, brokers, error })
  }
  return [...lanes.values()].sort(
    (a, b) => a.room.localeCompare(b.room) || a.namesrvId.localeCompare(b.namesrvId)
  )
}
