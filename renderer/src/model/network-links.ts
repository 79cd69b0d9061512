import type { NetworkStatusPayload } from '../../../common/contract'
import type { BlockMode, Direction } from '../../../common/scenario/schema'
import type { LinkSpec, NetworkSettings } from '../../../common/topology'
import { configuredLink, linkKey } from '../../../common/topology/network'

/** What one direction of a room link does to packets (the lab's `DirectedLink`). */
export interface DirectedShape {
  blocked: BlockMode | null
  lossPct: number
  latencyMs: number
  jitterMs: number
  bandwidthMbit: number | null
}

/**
 * Where a link's figures come from: the running network lab, the topology alone (not running, or
 * rooms on loopback), or a replayed run's ledger.
 */
export type LinkSource = 'lab' | 'design' | 'replay'

/** A room pair as the canvas draws it. */
export interface LinkView {
  key: string
  a: string
  b: string
  configured: LinkSpec
  /** Packets from a to b. */
  ab: DirectedShape
  ba: DirectedShape
  /** A network fault acts on this link now. */
  faulted: boolean
  source: LinkSource
  /** Why the configured shape is not in effect (rooms on loopback); null when it is or may be. */
  notApplied: string | null
}

/** A network fault as the canvas needs it to reshape links (a replay's or a status's). */
export interface LinkFault {
  action: string
  target: string
  peer?: string | undefined
  direction?: Direction | undefined
  mode?: BlockMode | undefined
  latencyMs?: number | undefined
  jitterMs?: number | undefined
  lossPct?: number | undefined
  mbit?: number | undefined
}

function fromSpec(spec: LinkSpec): DirectedShape {
  return {
    blocked: null,
    lossPct: spec.lossPct,
    latencyMs: spec.latencyMs,
    jitterMs: spec.jitterMs,
    bandwidthMbit: spec.bandwidthMbit
  }
}

function pairs(target: string, peer: string, direction: Direction): [string, string][] {
  if (direction === 'to') return [[target, peer]]
  if (direction === 'from') return [[peer, target]]
  return [
    [target, peer],
    [peer, target]
  ]
}

/**
 * Every room pair as configured, with room-to-room faults laid over in order (the lab's link model,
 * for the views that have no lab: design, loopback and replay). Node-level faults leave links alone.
 */
export function designLinks(
  rooms: readonly string[],
  network: NetworkSettings | undefined,
  faults: readonly LinkFault[] = [],
  source: LinkSource = 'design',
  notApplied: string | null = null
): LinkView[] {
  const out: LinkView[] = []
  for (let i = 0; i < rooms.length; i++) {
    for (let j = i + 1; j < rooms.length; j++) {
      const a = rooms[i]!
      const b = rooms[j]!
      const configured = configuredLink(network, a, b)
      out.push({
        key: linkKey(a, b, rooms),
        a,
        b,
        configured,
        ab: fromSpec(configured),
        ba: fromSpec(configured),
        faulted: false,
        source,
        notApplied
      })
    }
  }
  const isRoom = new Set(rooms)
  for (const f of faults) {
    if (!isRoom.has(f.target)) continue
    let directed: [string, string][]
    if (f.action === 'isolate') {
      directed = rooms.filter((r) => r !== f.target).flatMap((r) => pairs(f.target, r, 'both'))
    } else if (f.peer && isRoom.has(f.peer)) {
      directed = pairs(f.target, f.peer, f.direction ?? 'both')
    } else continue
    for (const [src, dst] of directed) {
      const link = out.find((l) => (l.a === src && l.b === dst) || (l.a === dst && l.b === src))
      if (!link) continue
      link.faulted = true
      const d = link.a === src ? link.ab : link.ba
      switch (f.action) {
        case 'isolate':
        case 'partition':
          d.blocked = f.mode ?? 'drop'
          break
        case 'delay':
          d.latencyMs = f.latencyMs ?? d.latencyMs
          d.jitterMs = f.jitterMs ?? 0
          break
        case 'loss':
          d.lossPct = f.lossPct ?? d.lossPct
          break
        case 'bandwidth':
          d.bandwidthMbit = f.mbit ?? d.bandwidthMbit
          break
      }
    }
  }
  return out
}

export interface CanvasLinkInput {
  rooms: readonly string[]
  network: NetworkSettings | undefined
  running: boolean
  status: NetworkStatusPayload | null
  /** The replayed run's faults in effect at the playhead; null outside a replay. */
  replay: readonly LinkFault[] | null
}

/**
 * The links the canvas draws: a replay's from its ledger, the running lab's as it reports them,
 * otherwise the topology's design (marked not applied while rooms share loopback).
 */
export function canvasLinks(input: CanvasLinkInput): LinkView[] {
  const { rooms, network, status } = input
  if (input.replay) return designLinks(rooms, network, input.replay, 'replay')
  if (input.running && status?.mode === 'namespaces' && status.links.length) {
    const known = new Set(rooms)
    return status.links
      .filter((l) => known.has(l.a) && known.has(l.b))
      .map((l) => ({
        key: l.key,
        a: l.a,
        b: l.b,
        configured: l.configured ?? configuredLink(network, l.a, l.b),
        ab: l.ab,
        ba: l.ba,
        faulted: l.faultIds.length > 0,
        source: 'lab' as const,
        notApplied: null
      }))
  }
  const loopback = input.running && status?.mode === 'loopback'
  return designLinks(
    rooms,
    network,
    [],
    'design',
    loopback
      ? `rooms share loopback${status.faultsDisabled ? ` (${status.faultsDisabled})` : ''}`
      : null
  )
}

function num(n: number): string {
  return String(Math.round(n * 100) / 100)
}

/** "20 ms ± 2 · 30 % loss · 10 Mbit/s", "cut", or "0 ms" for an untouched link. */
export function shapeText(d: DirectedShape): string {
  if (d.blocked) return 'cut'
  const parts: string[] = []
  if (d.latencyMs > 0 || d.jitterMs > 0) {
    parts.push(`${num(d.latencyMs)} ms${d.jitterMs > 0 ? ` ± ${num(d.jitterMs)}` : ''}`)
  }
  if (d.lossPct > 0) parts.push(`${num(d.lossPct)} % loss`)
  if (d.bandwidthMbit !== null) parts.push(`${num(d.bandwidthMbit)} Mbit/s`)
  return parts.length ? parts.join(' · ') : '0 ms'
}

function sameShape(x: DirectedShape, y: DirectedShape): boolean {
  return (
    x.blocked === y.blocked &&
    x.lossPct === y.lossPct &&
    x.latencyMs === y.latencyMs &&
    x.jitterMs === y.jitterMs &&
    x.bandwidthMbit === y.bandwidthMbit
  )
}

function longText(d: DirectedShape): string {
  return d.blocked ? `cut (${d.blocked})` : shapeText(d)
}

/** Drawn state: both ways cut, one way cut, shaped by a fault, or as configured. */
export type LinkState = 'cut' | 'cut-one-way' | 'faulted' | 'configured'

export function linkState(v: LinkView): LinkState {
  if (v.ab.blocked && v.ba.blocked) return 'cut'
  if (v.ab.blocked || v.ba.blocked) return 'cut-one-way'
  return v.faulted ? 'faulted' : 'configured'
}

/**
 * The link's short caption, read left to right on the canvas (`leftIsA`: room a is drawn left of
 * b): "20 ms", "cut", "cut →" (only the left-to-right direction is cut), "→ 80 ms · ← 20 ms".
 * The second line says what the link is configured to when a fault changed it, or why the
 * configuration is not in effect.
 */
export function linkCaption(v: LinkView, leftIsA: boolean): { main: string; note: string | null } {
  const fwd = leftIsA ? v.ab : v.ba
  const back = leftIsA ? v.ba : v.ab
  let main: string
  if (sameShape(fwd, back)) main = shapeText(fwd)
  else if (fwd.blocked && back.blocked) main = 'cut'
  else if (fwd.blocked || back.blocked) {
    const open = fwd.blocked ? back : fwd
    const cut = fwd.blocked ? 'cut →' : '← cut'
    const rest = shapeText(open)
    main = rest === '0 ms' ? cut : fwd.blocked ? `${cut} · ← ${rest}` : `${rest} → · ${cut}`
  } else main = `→ ${shapeText(fwd)} · ← ${shapeText(back)}`
  const configured = shapeText(fromSpec(v.configured))
  let note: string | null = null
  if (v.notApplied) note = 'not applied: loopback'
  else if (v.faulted && !(fwd.blocked && back.blocked) && configured !== main) {
    note = `configured ${configured}`
  }
  return { main, note }
}

/** "Network link room1 ~ room2: both ways cut (drop)" and friends; what tests and screen readers read. */
export function linkAriaLabel(v: LinkView): string {
  const dirs = sameShape(v.ab, v.ba)
    ? `both ways ${longText(v.ab)}`
    : `${v.a} → ${v.b} ${longText(v.ab)}; ${v.b} → ${v.a} ${longText(v.ba)}`
  const configured = shapeText(fromSpec(v.configured))
  const extra = v.notApplied
    ? `; configured ${configured}, not applied: ${v.notApplied}`
    : v.faulted
      ? `; configured ${configured}`
      : ''
  const replay = v.source === 'replay' ? ' (replay)' : ''
  return `Network link ${v.a} ~ ${v.b}${replay}: ${dirs}${extra}`
}

/** A replay's network fault in effect (common/replay's `ActiveNetworkFault`). */
export interface ReplayedNetworkFault {
  at: number
  key: string
  action: string
  target: readonly string[]
  peer: readonly string[]
  params: Readonly<Record<string, number>>
}

/** The replay's key of a `network-fault` row (its fault id, else action:target:peer). */
function replayKey(f: Record<string, unknown>): string {
  if (typeof f.faultId === 'string') return f.faultId
  const end = (v: unknown) => (typeof v === 'string' ? v : '')
  return `${end(f.action)}:${end(f.target)}:${end(f.peer)}`
}

/**
 * The full faults behind a run's `network-fault` rows, by time and replay key: the `fault` row
 * written with each carries direction and mode, which the `network-fault` row leaves out.
 */
export function networkShapesOf(
  events: readonly { kind: string; atMs: number; data: Record<string, unknown> }[]
): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>()
  for (const e of events) {
    if (e.kind !== 'fault' || e.data.ok === false) continue
    const n = e.data.network
    if (!n || typeof n !== 'object' || Array.isArray(n)) continue
    const f = n as Record<string, unknown>
    if (f.action === 'heal') continue
    out.set(`${e.atMs}|${replayKey(f)}`, f)
  }
  return out
}

const opt = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined)

/** The replayed faults in effect as link faults, with direction and mode where the ledger has them. */
export function replayLinkFaults(
  active: readonly ReplayedNetworkFault[],
  shapes: ReadonlyMap<string, Record<string, unknown>>
): LinkFault[] {
  return active.flatMap((f) => {
    const shape = shapes.get(`${f.at}|${f.key}`)
    const target = f.target[0]
    if (!target) return []
    const kbit = f.params.bandwidthKbit
    const dir = shape?.direction
    const mode = shape?.mode
    return [
      {
        action: f.action,
        target,
        peer: f.peer[0],
        direction: dir === 'to' || dir === 'from' || dir === 'both' ? dir : 'both',
        mode: mode === 'reject' ? 'reject' : 'drop',
        latencyMs: opt(shape?.latencyMs) ?? f.params.delayMs,
        jitterMs: opt(shape?.jitterMs) ?? f.params.jitterMs,
        lossPct: opt(shape?.lossPct) ?? f.params.lossPercent,
        mbit: opt(shape?.mbit) ?? (kbit === undefined ? undefined : kbit / 1000)
      }
    ]
  })
}
