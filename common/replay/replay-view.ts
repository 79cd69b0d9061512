import type { NodeState } from '../contract/sandbox'
import type { ReplayEvent, ReplayState, ReplayTopology } from './replay-state'

/** The canvas's node states (the sandbox's vocabulary: `observed-down` shows as down). */
export type CanvasNodeState = NodeState

/** A client's edges as the live view draws them (see renderer `ClientChoice`). */
export interface ReplayChoice {
  clientId: string
  namesrvId: string | null
  brokerId: string | null
  room?: string
}

/**
 * Node states for the canvas at this instant. Server nodes without a recorded state are up (the
 * run had booted them); clients are up while running, else killed or stopped.
 */
export function replayNodeStates(
  state: ReplayState,
  topo: ReplayTopology
): Record<string, CanvasNodeState> {
  const out: Record<string, CanvasNodeState> = {}
  for (const [id, n] of topo.nodes) {
    if (n.kind === 'producer' || n.kind === 'consumer') {
      const c = state.clients[id]
      out[id] = !c ? 'stopped' : c.running ? 'up' : c.stopMode === 'crash' ? 'killed' : 'stopped'
      continue
    }
    const s = state.nodes[id]?.state ?? 'up'
    out[id] = s === 'observed-down' ? 'down' : s
  }
  for (const [id, n] of Object.entries(state.nodes)) {
    if (!(id in out)) out[id] = n.state === 'observed-down' ? 'down' : n.state
  }
  return out
}

/** Edges of running clients: the name server and broker each one uses at this instant. */
export function replayChoices(state: ReplayState): Record<string, ReplayChoice> {
  const out: Record<string, ReplayChoice> = {}
  for (const c of Object.values(state.clients)) {
    if (!c.running || (!c.namesrvId && !c.brokerId)) continue
    out[c.clientId] = {
      clientId: c.clientId,
      namesrvId: c.namesrvId,
      brokerId: c.brokerId,
      ...(c.room ? { room: c.room } : {})
    }
  }
  return out
}

export interface ReplayMarker {
  atMs: number
  kind: 'fault' | 'failover' | 'network'
  label: string
}

const FAILOVER_KINDS = new Set(['broker-failover', 'namesrv-failover', 'consumer-takeover'])

function list(v: unknown): string {
  return Array.isArray(v) ? v.map(String).join(', ') : ''
}

/** Scrub-bar marks: faults, network faults and heals, and failovers, in time order. */
export function replayMarkers(events: readonly ReplayEvent[]): ReplayMarker[] {
  const out: ReplayMarker[] = []
  for (const e of events) {
    const d = e.data
    if (e.kind === 'fault') {
      const nodes = list(d.nodes) || list(d.target)
      out.push({
        atMs: e.atMs,
        kind: 'fault',
        label: `${typeof d.action === 'string' ? d.action : 'fault'} ${nodes}`.trim()
      })
    } else if (e.kind === 'network-fault' || e.kind === 'network-heal') {
      const ends = [list(d.target), list(d.peer)].filter(Boolean).join(' ↔ ')
      const what = e.kind === 'network-heal' ? 'heal' : typeof d.action === 'string' ? d.action : ''
      out.push({ atMs: e.atMs, kind: 'network', label: `${what} ${ends}`.trim() })
    } else if (FAILOVER_KINDS.has(e.kind) && e.clientId) {
      const to =
        e.kind === 'consumer-takeover'
          ? `takes over ${typeof d.fromRoom === 'string' ? d.fromRoom : '?'}'s queues`
          : `${e.kind === 'broker-failover' ? 'broker' : 'name server'} → ${typeof d.to === 'string' ? d.to : 'none'}`
      out.push({ atMs: e.atMs, kind: 'failover', label: `${e.clientId} ${to}` })
    }
  }
  return out.sort((a, b) => a.atMs - b.atMs)
}
