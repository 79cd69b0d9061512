import type { LiveMetrics } from '../../../common/contract'
import type { LedgerEvent } from '../../../common/scenario/events'
import { percentile } from '../../../common/scenario/metrics'
import type { Topology } from '../../../common/topology/schema'
import { listNodes } from '../../../common/topology/model'
import type { DeliveryRecord, LedgerPort, SendRecord } from '../ledger/types'
import type { TimerPort } from './periodic-sweep'
import { NODE_TIMERS } from './periodic-sweep'

/** What the aggregator knows of the topology: roles, rooms, broker masters and message sizes. */
export interface MetricsTopology {
  clients: ReadonlyMap<string, { role: 'producer' | 'consumer'; room: string }>
  masters: ReadonlyMap<string, string>
  /** Body bytes of one message a client sends (producers) or receives (consumers, their topic's). */
  messageBytes: ReadonlyMap<string, number>
}

/** Roles, rooms, masters and configured message sizes from the run's topology. */
export function metricsTopology(topology: Topology): MetricsTopology {
  const clients = new Map<string, { role: 'producer' | 'consumer'; room: string }>()
  const masters = new Map<string, string>()
  const bytes = new Map<string, number>()
  const topicBytes = new Map<string, number>()
  const nodes = listNodes(topology)
  for (const n of nodes) {
    if (n.kind === 'broker' && n.spec.role === 'master' && !masters.has(n.spec.brokerName)) {
      masters.set(n.spec.brokerName, n.id)
    }
    if (n.kind === 'producer') {
      clients.set(n.id, { role: 'producer', room: n.room })
      bytes.set(n.id, n.spec.messageSize)
      topicBytes.set(n.spec.topic, Math.max(topicBytes.get(n.spec.topic) ?? 0, n.spec.messageSize))
    }
  }
  for (const n of nodes) {
    if (n.kind !== 'consumer') continue
    clients.set(n.id, { role: 'consumer', room: n.room })
    bytes.set(n.id, topicBytes.get(n.spec.topic) ?? 0)
  }
  return { clients, masters, messageBytes: bytes }
}

export interface LiveMetricsOptions {
  topology: MetricsTopology
  runId: number | null
  emit: (snapshot: LiveMetrics) => void
  /** How often a snapshot is emitted (default 500 ms). */
  intervalMs?: number
  /** Rates and p99 are over this sliding window (default 2000 ms). */
  windowMs?: number
  now?: () => number
  timers?: TimerPort
}

/** Timestamps (and optional values) of one key, oldest first; pruned to the window on read. */
class Window {
  private times: number[] = []
  private values: number[] = []
  private head = 0

  push(t: number, v = 0): void {
    this.times.push(t)
    this.values.push(v)
  }

  prune(from: number): void {
    while (this.head < this.times.length && this.times[this.head]! < from) this.head++
    // Compact once the dead prefix dominates, so memory follows the window, not the run.
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head)
      this.values = this.values.slice(this.head)
      this.head = 0
    }
  }

  get count(): number {
    return this.times.length - this.head
  }

  live(): number[] {
    return this.values.slice(this.head)
  }
}

interface LinkTotals {
  messages: number
  bytes: number
  recent: Window
}

const round1 = (v: number) => Math.round(v * 10) / 10

/**
 * Live figures of a run for the canvas: fed the rows the ledger gets (sends, deliveries, events),
 * it emits a throttled snapshot, so a busy run costs the renderer one small message per interval
 * however many messages flow.
 */
export class LiveMetricsAggregator {
  private readonly intervalMs: number
  private readonly windowMs: number
  private readonly now: () => number
  private readonly timers: TimerPort
  private timer: unknown = null
  private readonly served = new Map<string, Window>()
  private readonly latency = new Map<string, Window>()
  private readonly failures = new Map<string, Window>()
  private readonly edges = new Map<string, Window>()
  private readonly brokerPut = new Map<string, Window>()
  private readonly brokerGet = new Map<string, Window>()
  private readonly brokerRoom = new Map<string, string | null>()
  private readonly links = new Map<string, LinkTotals>()
  /** Per direction: replication bytes since the run began, and their rate at the last read. */
  private readonly replicated = new Map<string, { bytes: number; perSecond: number; at: number }>()

  constructor(private readonly opts: LiveMetricsOptions) {
    this.intervalMs = opts.intervalMs ?? 500
    this.windowMs = opts.windowMs ?? 2000
    this.now = opts.now ?? Date.now
    this.timers = opts.timers ?? NODE_TIMERS
  }

  /** A producer's final send outcome (LedgerPort.send). */
  send(r: SendRecord): void {
    const t = r.endedAt
    if (r.status === 'failed') {
      win(this.failures, r.clientId).push(t)
      return
    }
    win(this.served, r.clientId).push(t)
    win(this.latency, r.clientId).push(t, r.endedAt - (r.scheduledAt ?? r.startedAt))
    if (!r.brokerName) return
    win(this.edges, `${r.clientId}\u0000${r.brokerName}`).push(t)
    win(this.brokerPut, r.brokerName).push(t)
    this.brokerRoom.set(r.brokerName, r.brokerRoom)
    this.cross(r.clientRoom, r.brokerRoom, r.clientId, t)
  }

  /** One delivery to a consumer (LedgerPort.delivery). */
  delivery(d: DeliveryRecord): void {
    const t = d.deliveredAt
    win(this.served, d.clientId).push(t)
    if (d.bornAt !== null) win(this.latency, d.clientId).push(t, d.deliveredAt - d.bornAt)
    win(this.edges, `${d.clientId}\u0000${d.brokerName}`).push(t)
    win(this.brokerGet, d.brokerName).push(t)
    this.brokerRoom.set(d.brokerName, d.brokerRoom)
    this.cross(d.brokerRoom, d.clientRoom, d.clientId, t)
  }

  /** A ledger event (LedgerPort.event); failed attempts and pulls count as failures. */
  event(e: Pick<LedgerEvent, 'kind' | 'clientId' | 'atMs'>): void {
    if (!e.clientId) return
    if (e.kind === 'send-attempt-failed' || e.kind === 'pull-failed') {
      win(this.failures, e.clientId).push(e.atMs)
    }
  }

  /**
   * What replication moved between rooms since the run began, read from the brokers at `atMs`. A
   * replica that did not answer (killed, paused) drops out of a read: the totals shown never go
   * down, and a direction missing from a read keeps its total at no rate.
   */
  replication(
    links: readonly { fromRoom: string; toRoom: string; bytes: number }[],
    atMs: number
  ): void {
    const read = new Map(links.map((l) => [`${l.fromRoom}\u0000${l.toRoom}`, l.bytes]))
    for (const k of new Set([...read.keys(), ...this.replicated.keys()])) {
      const prev = this.replicated.get(k)
      const bytes = Math.max(prev?.bytes ?? 0, read.get(k) ?? 0)
      const dt = prev ? atMs - prev.at : 0
      const perSecond = prev && dt > 0 ? ((bytes - prev.bytes) * 1000) / dt : 0
      this.replicated.set(k, { bytes, perSecond: Math.round(perSecond), at: atMs })
    }
  }

  /** Emits a snapshot every interval until stop(). */
  start(): void {
    if (this.timer !== null) return
    const tick = () => {
      this.opts.emit(this.snapshot())
      this.timer = this.timers.setTimeout(tick, this.intervalMs)
    }
    this.timer = this.timers.setTimeout(tick, this.intervalMs)
  }

  /** Stops the interval and emits one last snapshot, so the canvas ends on the final figures. */
  stop(): void {
    if (this.timer === null) return
    this.timers.clearTimeout(this.timer)
    this.timer = null
    this.opts.emit(this.snapshot())
  }

  /** The figures now (also what every emitted snapshot is). */
  snapshot(): LiveMetrics {
    const atMs = this.now()
    const from = atMs - this.windowMs
    const perSecond = (w: Window | undefined) => {
      if (!w) return 0
      w.prune(from)
      return round1((w.count * 1000) / this.windowMs)
    }
    const { clients, masters } = this.opts.topology
    const ids = new Set([...clients.keys(), ...this.served.keys(), ...this.failures.keys()])
    const clientRows: LiveMetrics['clients'] = []
    for (const clientId of [...ids].sort()) {
      const info = clients.get(clientId)
      const lat = this.latency.get(clientId)
      lat?.prune(from)
      const p99 = lat ? percentile(lat.live(), 99) : null
      const fails = this.failures.get(clientId)
      fails?.prune(from)
      clientRows.push({
        clientId,
        room: info?.room ?? '?',
        role: info?.role ?? (this.latency.has(clientId) ? 'producer' : 'consumer'),
        rate: perSecond(this.served.get(clientId)),
        p99Ms: p99 === null ? null : round1(p99),
        failures: fails?.count ?? 0
      })
    }
    const brokerNames = [...new Set([...this.brokerPut.keys(), ...this.brokerGet.keys()])].sort()
    const brokers = brokerNames.map((brokerName) => ({
      brokerName,
      brokerId: masters.get(brokerName) ?? null,
      room: this.brokerRoom.get(brokerName) ?? null,
      tps: perSecond(this.brokerPut.get(brokerName)),
      deliveredPerSecond: perSecond(this.brokerGet.get(brokerName))
    }))
    const edges = [...this.edges.keys()].sort().map((k) => {
      const [clientId, brokerName] = k.split('\u0000') as [string, string]
      return {
        clientId,
        brokerName,
        brokerId: masters.get(brokerName) ?? null,
        rate: perSecond(this.edges.get(k))
      }
    })
    const directions = [...new Set([...this.links.keys(), ...this.replicated.keys()])].sort()
    const roomLinks = directions.map((k) => {
      const [fromRoom, toRoom] = k.split('\u0000') as [string, string]
      const l = this.links.get(k)
      l?.recent.prune(from)
      const bytesInWindow = l ? l.recent.live().reduce((a, b) => a + b, 0) : 0
      const r = this.replicated.get(k)
      return {
        fromRoom,
        toRoom,
        messages: l?.messages ?? 0,
        bytes: l?.bytes ?? 0,
        rate: l ? round1((l.recent.count * 1000) / this.windowMs) : 0,
        bytesPerSecond: Math.round((bytesInWindow * 1000) / this.windowMs),
        replicationBytes: r?.bytes ?? 0,
        replicationBytesPerSecond: r?.perSecond ?? 0
      }
    })
    return {
      runId: this.opts.runId,
      atMs,
      windowMs: this.windowMs,
      clients: clientRows,
      brokers,
      edges,
      roomLinks
    }
  }

  private cross(from: string | null, to: string | null, clientId: string, t: number): void {
    if (!from || !to || from === to) return
    const k = `${from}\u0000${to}`
    let l = this.links.get(k)
    if (!l) this.links.set(k, (l = { messages: 0, bytes: 0, recent: new Window() }))
    const bytes = this.opts.topology.messageBytes.get(clientId) ?? 0
    l.messages++
    l.bytes += bytes
    l.recent.push(t, bytes)
  }
}

function win(map: Map<string, Window>, k: string): Window {
  let w = map.get(k)
  if (!w) map.set(k, (w = new Window()))
  return w
}

/**
 * The ledger a run's clients write to, also feeding the live figures: every row reaches the
 * ledger first, then the aggregator. Wrap the run's LedgerWriter with it where the run starts.
 */
export function withLiveMetrics(ledger: LedgerPort, metrics: LiveMetricsAggregator): LedgerPort {
  return {
    event(kind, clientId, room, data, atMs) {
      ledger.event(kind, clientId, room, data, atMs)
      metrics.event({ kind, clientId, atMs: atMs ?? Date.now() })
    },
    send(record) {
      ledger.send(record)
      metrics.send(record)
    },
    delivery(record) {
      ledger.delivery(record)
      metrics.delivery(record)
    }
  }
}
