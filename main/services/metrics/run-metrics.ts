import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import { nodeStateSchema } from '../../../common/contract/sandbox'
import type { LedgerEvent } from '../../../common/scenario/events'
import type { RunPlan } from '../../../common/scenario/run-plan'
import type { ReplicationTraffic } from '../../../common/scenario/schema'
import { listNodes } from '../../../common/topology/model'
import type { DeliveryRecord, SendRecord } from '../ledger/types'
import type { WireRow } from '../worker-wire/protocol'

/** Every node state a `drstudio_node_state` series is kept for (one is 1, the others 0). */
export const NODE_STATES = [...nodeStateSchema.options, 'observed-down'] as const

/** Send latency buckets (seconds): loopback sends take a millisecond, failovers seconds. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

type ClientLabels = Record<'room' | 'client' | 'lane', string>

interface ActiveFault {
  action: string
  target: string
  /** Node faults: the nodes still not up again. Network faults: empty. */
  nodes: Set<string>
  /** Network faults: the rooms or nodes at its ends (target, then peer). */
  ends?: readonly string[]
}

/** Node faults that stay active until their nodes are up again, or a repair names them. */
const NODE_FAULTS = new Set(['kill', 'stop', 'pause', 'observed-down'])
const NODE_REPAIRS = new Set(['start', 'restart', 'resume', 'observed-up'])

/** Keys remembered per lane for duplicates; past it the older half is forgotten (soak runs). */
const DUPLICATE_WINDOW_KEYS = 1_000_000

/**
 * A failure reason as a label: our lane's short words as they are; a Java or gRPC lane's free text
 * (addresses, timings) reduced to a fixed few, so the series count stays bounded.
 */
export function reasonLabel(reason: string): string {
  if (/^[a-z][a-z0-9-]{0,23}$/.test(reason)) return reason
  if (/time(d)? ?out|deadline/i.test(reason)) return 'timeout'
  if (/reset|closed|broken pipe/i.test(reason)) return 'reset'
  if (/refused|connect/i.test(reason)) return 'refused'
  const code = /\bcode[ =:]*(\d+)/i.exec(reason)
  return code ? `code-${code[1]}` : 'other'
}

/**
 * The live figures of the runs a process makes, as Prometheus metrics: fed the rows and events
 * the ledger gets, read on each scrape. One instance serves every run of a process; begin() clears
 * the previous run's series, so a dashboard shows the run in progress (`drstudio_run_info`).
 * Metric names and meanings are listed in the README ("Metrics") and the Grafana dashboard.
 */
export class RunMetrics {
  /**
   * Prometheus text format (0.0.4), what `promtool check metrics` reads and Prometheus falls back
   * to. Not OpenMetrics as well: prom-client renames shared counters in place when it formats
   * OpenMetrics (drops `_total`), which would break the text format's names after one such scrape.
   */
  readonly registry = new Registry()

  private readonly runInfo: Gauge
  private readonly sends: Counter
  private readonly sendLatency: Histogram
  private readonly failedAttempts: Counter
  private readonly deliveries: Counter
  private readonly duplicates: Counter
  private readonly crossRoomShare: Gauge
  private readonly nodeState: Gauge
  private readonly brokerMaster: Gauge
  private readonly masterEpoch: Gauge
  private readonly faultActive: Gauge
  private readonly faults: Counter
  private readonly lastRto: Gauge
  private readonly brokerCpu: Gauge
  private readonly brokerSendQueue: Gauge
  private readonly replicationBytes: Counter

  private clients = new Map<string, ClientLabels>()
  /** Keys delivered so far, per lane: a second delivery of one is a duplicate. */
  private delivered = new Map<string, Set<string>>()
  private directions = new Map<string, { all: number; cross: number }>()
  /** Per producer: its current run of failures, from the first one's start to the last one's end. */
  private failing = new Map<string, { since: number; until: number }>()
  private masters = new Map<string, string>()
  private active = new Map<string, ActiveFault>()
  private nodes = new Map<string, { room: string; kind: string }>()
  /** Per direction: the replication bytes counted so far (reads are totals since the run began). */
  private replicated = new Map<string, number>()

  constructor() {
    const registers = [this.registry]
    const clientLabels = ['room', 'client', 'lane'] as const
    this.runInfo = new Gauge({
      name: 'drstudio_run_info',
      help: 'The run in progress (1): its id, scenario and topology',
      labelNames: ['run_id', 'scenario', 'topology', 'kind'],
      registers
    })
    this.sends = new Counter({
      name: 'drstudio_sends_total',
      help: 'Sends by final outcome (acked or failed); cross_room: the broker that stored it is in another room',
      labelNames: [...clientLabels, 'status', 'broker_room', 'cross_room'],
      registers
    })
    this.sendLatency = new Histogram({
      name: 'drstudio_send_latency_seconds',
      help: 'Acknowledged sends, from when the schedule wanted them made to the acknowledgement',
      labelNames: clientLabels,
      buckets: LATENCY_BUCKETS,
      registers
    })
    this.failedAttempts = new Counter({
      name: 'drstudio_send_attempt_failures_total',
      help: 'Failed requests to a broker (refused, reset, timeout, retryable code), retried or not',
      labelNames: [...clientLabels, 'reason'],
      registers
    })
    this.deliveries = new Counter({
      name: 'drstudio_deliveries_total',
      help: 'Messages delivered to consumers; cross_room: from a broker in another room',
      labelNames: [...clientLabels, 'broker_room', 'cross_room'],
      registers
    })
    this.duplicates = new Counter({
      name: 'drstudio_duplicates_total',
      help: 'Deliveries of a message its lane had already delivered',
      labelNames: clientLabels,
      registers
    })
    this.crossRoomShare = new Gauge({
      name: 'drstudio_cross_room_share',
      help: 'Share of the run so far that crossed rooms, per lane: sends stored, or deliveries pulled, in another room',
      labelNames: ['lane', 'direction'],
      registers
    })
    this.nodeState = new Gauge({
      name: 'drstudio_node_state',
      help: 'A server node is in this state (1) or not (0)',
      labelNames: ['node', 'room', 'kind', 'state'],
      registers
    })
    this.brokerMaster = new Gauge({
      name: 'drstudio_broker_master',
      help: 'The replica that is the master of its broker group (1) or not (0)',
      labelNames: ['group', 'node', 'room'],
      registers
    })
    this.masterEpoch = new Gauge({
      name: 'drstudio_master_epoch',
      help: "A controller-mode group's master epoch, as the controllers last elected it",
      labelNames: ['group'],
      registers
    })
    this.faultActive = new Gauge({
      name: 'drstudio_fault_active',
      help: 'A fault in force (1): a node fault until its nodes are up again, a network fault until healed',
      labelNames: ['action', 'target'],
      registers
    })
    this.faults = new Counter({
      name: 'drstudio_faults_total',
      help: 'Faults and repairs applied, by action and who applied them (timeline, operator, observed)',
      labelNames: ['action', 'source'],
      registers
    })
    this.lastRto = new Gauge({
      name: 'drstudio_last_rto_seconds',
      help: "A producer's last recovery: from the first failure of a run of failures to its next acknowledged send",
      labelNames: clientLabels,
      registers
    })
    this.brokerCpu = new Gauge({
      name: 'drstudio_broker_cpu_percent',
      help: "CPU a broker's process used over the last second (100 = one core); the brokers DR Studio runs",
      labelNames: ['node', 'room'],
      registers
    })
    this.brokerSendQueue = new Gauge({
      name: 'drstudio_broker_send_queue',
      help: "Requests waiting in a broker's send thread pool queue, sampled every second",
      labelNames: ['node', 'room'],
      registers
    })
    this.replicationBytes = new Counter({
      name: 'drstudio_replication_bytes_total',
      help: "Bytes the brokers' replicas copied from a master in another room (HA status, read every 2 s)",
      labelNames: ['from_room', 'to_room'],
      registers
    })
  }

  /** A run begins: clears the previous run's series and learns the clients, nodes and masters. */
  begin(plan: RunPlan): void {
    this.registry.resetMetrics()
    this.clients = new Map()
    this.delivered = new Map()
    this.directions = new Map()
    this.failing = new Map()
    this.masters = new Map()
    this.active = new Map()
    this.nodes = new Map()
    this.replicated = new Map()
    const { topology, scenario } = plan.loaded
    this.runInfo.set(
      {
        run_id: String(plan.runId),
        scenario: plan.kind === 'scenario' ? scenario.name : '',
        topology: topology.name,
        kind: plan.kind
      },
      1
    )
    for (const c of plan.clients)
      this.clients.set(c.id, { room: c.room, client: c.id, lane: c.laneName ?? c.lane })
    for (const n of listNodes(topology)) {
      if (n.kind === 'producer' || n.kind === 'consumer') continue
      this.nodes.set(n.id, { room: n.room, kind: n.kind })
      if (n.kind === 'broker') {
        const master = n.spec.role === 'master'
        if (master) this.masters.set(n.spec.brokerName, n.id)
        this.brokerMaster.set(
          { group: n.spec.brokerName, node: n.id, room: n.room },
          master ? 1 : 0
        )
      }
    }
  }

  /** A producer's final send outcome. */
  send(r: SendRecord): void {
    const c = this.labelsOf(r.clientId, r.clientRoom)
    const cross = r.brokerRoom !== null && r.brokerRoom !== r.clientRoom
    this.sends.inc({
      ...c,
      status: r.status,
      broker_room: r.brokerRoom ?? '',
      cross_room: String(cross)
    })
    if (r.status === 'failed') {
      this.failed(r.clientId, r.attemptStartedAt ?? r.startedAt, r.endedAt)
      return
    }
    this.sendLatency.observe(c, (r.endedAt - (r.scheduledAt ?? r.startedAt)) / 1000)
    this.count(c.lane, 'send', cross)
    // Recovered by an acknowledgement that came after the failures (not one already in flight).
    const f = this.failing.get(r.clientId)
    if (f && r.endedAt >= f.until) {
      this.failing.delete(r.clientId)
      this.lastRto.set(c, (r.endedAt - f.since) / 1000)
    }
  }

  /** Rows of a client worker, in the order they happened: sends, deliveries and its events. */
  rows(rows: readonly WireRow[]): void {
    for (const r of rows) {
      if (r.k === 's') this.send(r)
      else if (r.k === 'd') this.delivery(r)
      else if (r.kind === 'send-attempt-failed' && r.clientId) {
        const d = r.data as { reason: string; startMs: number; endMs: number }
        this.failedAttempts.inc({
          ...this.labelsOf(r.clientId, r.room),
          reason: reasonLabel(d.reason)
        })
        this.failed(r.clientId, d.startMs, d.endMs)
      }
    }
  }

  /**
   * Replication between rooms since the run began, per direction, as the brokers last reported it.
   * A counter only grows: a total below the last one (a replica away, its bytes not read) adds
   * nothing until it is passed again.
   */
  replication(links: readonly ReplicationTraffic[]): void {
    for (const l of links) {
      if (l.fromRoom === l.toRoom) continue
      const k = `${l.fromRoom}\u0000${l.toRoom}`
      const before = this.replicated.get(k) ?? 0
      if (l.bytes <= before) continue
      this.replicated.set(k, l.bytes)
      this.replicationBytes.inc({ from_room: l.fromRoom, to_room: l.toRoom }, l.bytes - before)
    }
  }

  /** The run ended: it is no longer the run in progress. */
  end(): void {
    this.runInfo.reset()
  }

  private failed(clientId: string, start: number, end: number): void {
    const f = this.failing.get(clientId)
    if (f) f.until = Math.max(f.until, end)
    else this.failing.set(clientId, { since: start, until: end })
  }

  /** One delivery to a consumer. */
  delivery(d: DeliveryRecord): void {
    const c = this.labelsOf(d.clientId, d.clientRoom)
    const cross = d.brokerRoom !== null && d.brokerRoom !== d.clientRoom
    this.deliveries.inc({ ...c, broker_room: d.brokerRoom ?? '', cross_room: String(cross) })
    this.count(c.lane, 'consume', cross)
    let seen = this.delivered.get(c.lane)
    if (!seen) this.delivered.set(c.lane, (seen = new Set()))
    if (seen.has(d.key)) this.duplicates.inc(c)
    else seen.add(d.key)
    if (seen.size > DUPLICATE_WINDOW_KEYS) {
      const keep = [...seen].slice(DUPLICATE_WINDOW_KEYS / 2)
      this.delivered.set(c.lane, new Set(keep))
    }
  }

  /** An event of the engine (clients' own come with their rows): node states, elections, faults. */
  event(e: LedgerEvent): void {
    switch (e.kind) {
      case 'broker-load': {
        const labels = { node: e.data.nodeId, room: e.data.room }
        if (e.data.cpuPct !== null) this.brokerCpu.set(labels, e.data.cpuPct)
        if (e.data.sendQueue !== null) this.brokerSendQueue.set(labels, e.data.sendQueue)
        return
      }
      case 'node-state':
        return this.setNodeState(e.data.nodeId, e.data.room, e.data.kind, e.data.state)
      case 'master-elected': {
        const { group, to, toRoom, epoch } = e.data
        const from = this.masters.get(group)
        if (from && from !== to) {
          this.brokerMaster.set({ group, node: from, room: this.nodes.get(from)?.room ?? '' }, 0)
        }
        if (to) {
          this.masters.set(group, to)
          this.brokerMaster.set({ group, node: to, room: toRoom ?? '' }, 1)
        } else this.masters.delete(group)
        this.masterEpoch.set({ group }, epoch)
        return
      }
      case 'fault': {
        const { action, target, nodes, ok, source, network } = e.data
        this.faults.inc({ action, source: source ?? 'timeline' })
        if (!ok || network) return
        // A repair ends the node faults of the nodes it names (clients have no node states).
        if (NODE_REPAIRS.has(action)) for (const n of nodes) this.nodeBack(n)
        if (!NODE_FAULTS.has(action) || nodes.length === 0) return
        this.activate(`node:${action}:${target.join(',')}`, action, target.join(','), nodes)
        return
      }
      case 'network-fault': {
        if (e.data.ok === false) return
        const ends = [...e.data.target, ...(e.data.peer ?? [])]
        this.activate(
          `net:${e.data.action}:${ends.join(',')}`,
          e.data.action,
          ends.join(','),
          [],
          ends
        )
        return
      }
      case 'network-heal': {
        if (e.data.reason) return // the heal failed: the fault is still in force
        const [target] = e.data.target ?? []
        const [peer] = e.data.peer ?? []
        for (const [key, f] of this.active) {
          if (!key.startsWith('net:')) continue
          // As the network lab matches a heal: no selector heals all; else by its ends.
          const ends = f.ends ?? []
          if (target !== undefined && !ends.includes(target)) continue
          if (peer !== undefined && (f.action === 'isolate' || !ends.includes(peer))) continue
          this.deactivate(key, f)
        }
        return
      }
      default:
        return
    }
  }

  private setNodeState(nodeId: string, room: string, kind: string, state: string): void {
    this.nodes.set(nodeId, { room, kind })
    for (const s of NODE_STATES)
      this.nodeState.set({ node: nodeId, room, kind, state: s }, s === state ? 1 : 0)
    if (state === 'up' || state === 'slow') this.nodeBack(nodeId)
  }

  /** A node serves again: the node faults that held it end once all their nodes do. */
  private nodeBack(nodeId: string): void {
    for (const [key, f] of this.active) {
      if (!f.nodes.delete(nodeId) || f.nodes.size > 0) continue
      this.deactivate(key, f)
    }
  }

  private activate(
    key: string,
    action: string,
    target: string,
    nodes: readonly string[],
    ends?: readonly string[]
  ): void {
    this.active.set(key, { action, target, nodes: new Set(nodes), ...(ends ? { ends } : {}) })
    this.faultActive.set({ action, target }, 1)
  }

  private deactivate(key: string, f: ActiveFault): void {
    this.active.delete(key)
    this.faultActive.set({ action: f.action, target: f.target }, 0)
  }

  private count(lane: string, direction: 'send' | 'consume', cross: boolean): void {
    const k = `${lane}\u0000${direction}`
    let d = this.directions.get(k)
    if (!d) this.directions.set(k, (d = { all: 0, cross: 0 }))
    d.all++
    if (cross) d.cross++
    this.crossRoomShare.set({ lane, direction }, d.cross / d.all)
  }

  private labelsOf(clientId: string, room: string | null): ClientLabels {
    return this.clients.get(clientId) ?? { room: room ?? '', client: clientId, lane: '' }
  }
}
