import type { RecordedNodeState } from '../scenario/events'
import type { Topology } from '../topology/schema'
import { listNodes } from '../topology/model'
import type { Stalls } from './stalls'
import { applyStallEvent } from './stalls'

/** A ledger row as `runs:get` returns it (epoch `atMs`); `id` orders rows of equal time. */
export interface ReplayEvent {
  id?: number
  atMs: number
  kind: string
  clientId: string | null
  room: string | null
  data: Record<string, unknown>
}

/** What the reducer needs from the run's topology: node kinds and rooms, brokerName → master id. */
export interface ReplayTopology {
  nodes: ReadonlyMap<string, { kind: string; room: string }>
  /** brokerName → the topology node id of its master (the node a client edge ends at). */
  masters: ReadonlyMap<string, string>
}

export interface ReplayNode {
  state: RecordedNodeState
  /** When the node entered this state. */
  since: number
  detail?: string
}

export interface ReplayQueue {
  brokerName: string
  room: string | null
  queueId: number
}

export interface ReplayClient {
  clientId: string
  role: 'producer' | 'consumer' | null
  room: string | null
  /** False after client-stopped or a kill/stop fault; edges are drawn for running clients only. */
  running: boolean
  /** How it stopped, when it did: a crash reads as killed. */
  stopMode: 'crash' | 'graceful' | null
  namesrvId: string | null
  namesrvRoom: string | null
  brokerName: string | null
  brokerRoom: string | null
  /** Topology node id of the broker master, when its name resolves. */
  brokerId: string | null
  /** Consumers: queues owned since the last rebalance. */
  queues: readonly ReplayQueue[]
  lastFailoverAt: number | null
}

export interface ActiveFault {
  at: number
  action: string
  nodeId: string
}

export interface ActiveNetworkFault {
  at: number
  key: string
  action: string
  target: string[]
  peer: string[]
  params: Record<string, number>
}

export interface ReplayFailover {
  at: number
  clientId: string
  kind: 'broker' | 'namesrv' | 'consumer-takeover'
  from: string | null
  fromRoom: string | null
  to: string | null
  toRoom: string | null
  durationMs: number | null
}

export interface ReplayNamesrvView {
  at: number
  brokers: readonly { brokerName: string; room: string | null }[]
  error: string | null
}

/** Everything the canvas shows of a run at one instant. */
export interface ReplayState {
  /** The instant (epoch ms) this state describes. */
  t: number
  /** Rows folded in so far. */
  applied: number
  phase: string | null
  nodes: Readonly<Record<string, ReplayNode>>
  clients: Readonly<Record<string, ReplayClient>>
  /** Node faults in effect (kill, pause, stop not yet undone by resume, start or restart). */
  faults: readonly ActiveFault[]
  networkFaults: readonly ActiveNetworkFault[]
  /** Failovers so far, oldest first. */
  failovers: readonly ReplayFailover[]
  /** Latest sample of each name server (`namesrv-view`). */
  views: Readonly<Record<string, ReplayNamesrvView>>
  /** Orderly consumers' queues stalled for a lock at this instant (the canvas badge). */
  stalls: Stalls
}

/** Node and client lookups from the run's topology (kinds, rooms, broker masters). */
export function replayTopology(topology: Topology | null): ReplayTopology {
  const nodes = new Map<string, { kind: string; room: string }>()
  const masters = new Map<string, string>()
  if (!topology) return { nodes, masters }
  for (const n of listNodes(topology)) {
    nodes.set(n.id, { kind: n.kind, room: n.room })
    if (n.kind === 'broker' && n.spec.role === 'master' && !masters.has(n.spec.brokerName)) {
      masters.set(n.spec.brokerName, n.id)
    }
  }
  return { nodes, masters }
}

export function emptyReplayState(t = -Infinity): ReplayState {
  return {
    t,
    applied: 0,
    phase: null,
    nodes: {},
    clients: {},
    faults: [],
    networkFaults: [],
    failovers: [],
    views: {},
    stalls: {}
  }
}

/** Ledger order: by time, then by row id (rows of one batch share a millisecond). */
export function compareEvents(a: ReplayEvent, b: ReplayEvent): number {
  return a.atMs - b.atMs || (a.id ?? 0) - (b.id ?? 0)
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null)
const num = (v: unknown): number | null => (typeof v === 'number' && isFinite(v) ? v : null)
const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []

/** State a node is in after a successful fault action on it (the action's end state). */
const FAULT_END_STATE: Record<string, RecordedNodeState> = {
  kill: 'killed',
  pause: 'paused',
  stop: 'stopped',
  resume: 'up',
  restart: 'up',
  start: 'up'
}
/** Actions that leave a fault in effect; the others undo it. */
const LASTING = new Set(['kill', 'pause', 'stop'])

const CLIENT_KINDS = new Set(['producer', 'consumer'])

/** A mutable working copy: maps are cloned once per batch, records when touched. */
interface Draft {
  t: number
  applied: number
  phase: string | null
  nodes: Record<string, ReplayNode>
  clients: Record<string, ReplayClient>
  faults: ActiveFault[]
  networkFaults: ActiveNetworkFault[]
  failovers: ReplayFailover[]
  views: Record<string, ReplayNamesrvView>
  /** Immutable: the stall reducer returns a new object on change. */
  stalls: Stalls
}

function draftOf(s: ReplayState): Draft {
  return {
    t: s.t,
    applied: s.applied,
    phase: s.phase,
    nodes: { ...s.nodes },
    clients: { ...s.clients },
    faults: [...s.faults],
    networkFaults: [...s.networkFaults],
    failovers: [...s.failovers],
    views: { ...s.views },
    stalls: s.stalls
  }
}

function client(d: Draft, id: string, e: ReplayEvent, topo: ReplayTopology): ReplayClient {
  const prev = d.clients[id]
  const kind = topo.nodes.get(id)?.kind
  const next: ReplayClient = prev
    ? { ...prev }
    : {
        clientId: id,
        role: kind === 'producer' || kind === 'consumer' ? kind : null,
        room: e.room ?? topo.nodes.get(id)?.room ?? null,
        running: true,
        stopMode: null,
        namesrvId: null,
        namesrvRoom: null,
        brokerName: null,
        brokerRoom: null,
        brokerId: null,
        queues: [],
        lastFailoverAt: null
      }
  d.clients[id] = next
  return next
}

function setBroker(
  c: ReplayClient,
  name: string | null,
  room: string | null,
  topo: ReplayTopology
): void {
  c.brokerName = name
  c.brokerRoom = room
  c.brokerId = name ? (topo.masters.get(name) ?? null) : null
}

/** The broker a consumer's edge shows: one of its own room when it has such queues, else the first. */
function servedBroker(queues: readonly ReplayQueue[], room: string | null): ReplayQueue | null {
  const sorted = [...queues].sort(
    (a, b) => a.brokerName.localeCompare(b.brokerName) || a.queueId - b.queueId
  )
  return sorted.find((q) => q.room === room) ?? sorted[0] ?? null
}

function applyFault(d: Draft, e: ReplayEvent, topo: ReplayTopology): void {
  if (e.data.ok === false) return
  const action = str(e.data.action) ?? ''
  const nodes = strings(e.data.nodes).length ? strings(e.data.nodes) : strings(e.data.target)
  for (const nodeId of nodes) {
    d.faults = d.faults.filter((f) => f.nodeId !== nodeId)
    if (LASTING.has(action)) d.faults.push({ at: e.atMs, action, nodeId })
    const kind = topo.nodes.get(nodeId)?.kind
    if (kind && CLIENT_KINDS.has(kind)) {
      const c = client(d, nodeId, { ...e, room: null }, topo)
      const stopped = action === 'kill' || action === 'stop'
      c.running = !stopped
      c.stopMode = stopped ? (action === 'kill' ? 'crash' : 'graceful') : null
      continue
    }
    const state = FAULT_END_STATE[action]
    if (state) d.nodes[nodeId] = { state, since: e.atMs }
  }
}

function networkKey(data: Record<string, unknown>): string {
  return (
    str(data.faultId) ??
    `${str(data.action) ?? ''}:${strings(data.target).join(',')}:${strings(data.peer).join(',')}`
  )
}

function applyNetwork(d: Draft, e: ReplayEvent): void {
  const data = e.data
  if (e.kind === 'network-fault') {
    if (data.ok === false) return
    const key = networkKey(data)
    const params: Record<string, number> = {}
    for (const p of ['delayMs', 'jitterMs', 'lossPercent', 'bandwidthKbit']) {
      const v = num(data[p])
      if (v !== null) params[p] = v
    }
    d.networkFaults = d.networkFaults.filter((f) => f.key !== key)
    d.networkFaults.push({
      at: e.atMs,
      key,
      action: str(data.action) ?? 'fault',
      target: strings(data.target),
      peer: strings(data.peer),
      params
    })
    return
  }
  const id = str(data.faultId)
  const target = strings(data.target)
  const peer = strings(data.peer)
  if (id) d.networkFaults = d.networkFaults.filter((f) => f.key !== id)
  else if (!target.length) d.networkFaults = []
  else {
    // A heal of a target (and peer) undoes every fault on exactly those ends.
    const same = (a: string[], b: string[]) => a.join(',') === b.join(',')
    d.networkFaults = d.networkFaults.filter(
      (f) => !(same(f.target, target) && (!peer.length || same(f.peer, peer)))
    )
  }
}

function applyFailover(d: Draft, c: ReplayClient, e: ReplayEvent): void {
  const data = e.data
  const kind =
    e.kind === 'broker-failover'
      ? 'broker'
      : e.kind === 'namesrv-failover'
        ? 'namesrv'
        : 'consumer-takeover'
  d.failovers.push({
    at: e.atMs,
    clientId: c.clientId,
    kind,
    from: kind === 'consumer-takeover' ? null : str(data.from),
    fromRoom: str(data.fromRoom),
    to: kind === 'consumer-takeover' ? c.clientId : str(data.to),
    toRoom: str(data.toRoom),
    durationMs: num(data.durationMs)
  })
  c.lastFailoverAt = e.atMs
}

function applyClientEvent(d: Draft, e: ReplayEvent, topo: ReplayTopology): void {
  const data = e.data
  const c = client(d, e.clientId!, e, topo)
  switch (e.kind) {
    case 'client-started': {
      const role = str(data.role)
      if (role === 'producer' || role === 'consumer') c.role = role
      c.running = true
      c.stopMode = null
      return
    }
    case 'client-stopped': {
      c.running = false
      c.stopMode = data.mode === 'crash' ? 'crash' : 'graceful'
      return
    }
    case 'namesrv-choice':
      c.namesrvId = str(data.namesrvId)
      c.namesrvRoom = str(data.namesrvRoom)
      return
    case 'namesrv-failover':
      c.namesrvId = str(data.to)
      c.namesrvRoom = str(data.toRoom)
      applyFailover(d, c, e)
      return
    case 'broker-choice':
      setBroker(c, str(data.brokerName), str(data.brokerRoom), topo)
      return
    case 'broker-failover':
      setBroker(c, str(data.to), str(data.toRoom), topo)
      applyFailover(d, c, e)
      return
    case 'rebalance': {
      const queues = Array.isArray(data.queues)
        ? (data.queues as Record<string, unknown>[]).flatMap((q) =>
            typeof q?.brokerName === 'string'
              ? [{ brokerName: q.brokerName, room: str(q.room), queueId: num(q.queueId) ?? 0 }]
              : []
          )
        : []
      c.queues = queues
      const served = servedBroker(queues, c.room)
      setBroker(c, served?.brokerName ?? null, served?.room ?? null, topo)
      return
    }
    case 'consumer-takeover':
      applyFailover(d, c, e)
      return
  }
}

const CLIENT_EVENTS = new Set([
  'client-started',
  'client-stopped',
  'namesrv-choice',
  'namesrv-failover',
  'broker-choice',
  'broker-failover',
  'rebalance',
  'consumer-takeover'
])

function applyOne(d: Draft, e: ReplayEvent, topo: ReplayTopology): void {
  d.applied++
  d.t = Math.max(d.t, e.atMs)
  d.stalls = applyStallEvent(d.stalls, e)
  if (e.clientId && CLIENT_EVENTS.has(e.kind)) return applyClientEvent(d, e, topo)
  switch (e.kind) {
    case 'node-state': {
      const nodeId = str(e.data.nodeId)
      const state = str(e.data.state) as RecordedNodeState | null
      if (!nodeId || !state) return
      const detail = str(e.data.detail)
      d.nodes[nodeId] = { state, since: e.atMs, ...(detail ? { detail } : {}) }
      return
    }
    case 'fault':
      return applyFault(d, e, topo)
    case 'network-fault':
    case 'network-heal':
      return applyNetwork(d, e)
    case 'namesrv-view': {
      const id = str(e.data.namesrvId)
      if (!id) return
      const brokers = Array.isArray(e.data.brokers)
        ? (e.data.brokers as Record<string, unknown>[]).flatMap((b) =>
            typeof b?.brokerName === 'string'
              ? [{ brokerName: b.brokerName, room: str(b.room) }]
              : []
          )
        : []
      d.views[id] = { at: e.atMs, brokers, error: str(e.data.error) }
      return
    }
    case 'phase':
      d.phase = str(e.data.phase)
      return
  }
}

/**
 * Folds rows (already in ledger order) into a state; rows past `t` are not read. Does not
 * change `state`.
 */
export function applyReplayEvents(
  state: ReplayState,
  events: readonly ReplayEvent[],
  topo: ReplayTopology,
  t = Infinity
): ReplayState {
  const d = draftOf(state)
  for (const e of events) {
    if (e.atMs > t) break
    applyOne(d, e, topo)
  }
  if (t !== Infinity) d.t = Math.max(d.t, t)
  return d
}

/** The run as it stood at `t` (epoch ms): a pure function of the ledger rows with `atMs ≤ t`. */
export function replayStateAt(
  events: readonly ReplayEvent[],
  t: number,
  topo: ReplayTopology
): ReplayState {
  const sorted = [...events].sort(compareEvents)
  return applyReplayEvents(emptyReplayState(), sorted, topo, t)
}

/** How many rows of `sorted` have `atMs ≤ t` (binary search). */
export function rowsUpTo(sorted: readonly ReplayEvent[], t: number): number {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (sorted[mid]!.atMs <= t) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * Playback over a run: moving forward folds only the new rows; moving back restarts from the
 * nearest checkpoint (one every `checkpointEvery` rows), so scrubbing stays cheap on long runs.
 * Every state it returns equals `replayStateAt(events, t)`.
 */
export class ReplayCursor {
  readonly events: readonly ReplayEvent[]
  private readonly checkpoints: ReplayState[] = []
  private current: ReplayState
  private index = 0

  constructor(
    events: readonly ReplayEvent[],
    private readonly topo: ReplayTopology,
    private readonly checkpointEvery = 500
  ) {
    this.events = [...events].sort(compareEvents)
    this.current = emptyReplayState()
    this.checkpoints.push(this.current)
  }

  get state(): ReplayState {
    return this.current
  }

  /** First and last row times; null for a run without rows. */
  get span(): { startMs: number; endMs: number } | null {
    if (!this.events.length) return null
    return { startMs: this.events[0]!.atMs, endMs: this.events[this.events.length - 1]!.atMs }
  }

  /** Moves to `t` and returns the state there. */
  seek(t: number): ReplayState {
    const target = rowsUpTo(this.events, t)
    if (target < this.index) {
      const k = Math.floor(target / this.checkpointEvery)
      this.index = k * this.checkpointEvery
      this.current = this.checkpoints[k]!
    }
    while (this.index < target) {
      const next = Math.min(
        target,
        (Math.floor(this.index / this.checkpointEvery) + 1) * this.checkpointEvery
      )
      this.current = applyReplayEvents(this.current, this.events.slice(this.index, next), this.topo)
      this.index = next
      const k = next / this.checkpointEvery
      if (Number.isInteger(k) && this.checkpoints.length === k) this.checkpoints.push(this.current)
    }
    this.current = { ...this.current, t }
    return this.current
  }
}
