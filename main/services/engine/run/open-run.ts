import type {
  ClientChoice,
  LedgerEvent,
  RecordedNodeState
} from '../../../../common/scenario/events'
import type { ClusterNode } from '../../scenario/cluster'
import type { Clock, ManagementPort } from '../../clients/room-aware/ports'
import { httpManagement, systemClock } from '../../clients/room-aware/ports'
import { LedgerReader } from '../../ledger/ledger-reader'
import type { LedgerWriteError } from '../../ledger/ledger-writer'
import { LedgerWriter } from '../../ledger/ledger-writer'
import type { Recorder } from '../../ledger/recorder'
import { RemotingRpc } from '../../remoting/remoting-rpc'
import type { ClusterPort } from '../../scenario/cluster'
import type { LoadedScenario } from '../../scenario/load-scenario'
import type { ClientPlan } from '../../scenario/plan'
import { planClients } from '../../scenario/plan'
import type { AbortBreach } from '../../../../common/scenario/abort'
import { evaluateAbort, pruneSends } from '../../../../common/scenario/abort'
import type { Op } from '../../../../common/scenario/metrics'
import type { AbortRules } from '../../../../common/scenario/schema'
import { decideRates } from '../../attach/workload-safety'
import { isAttachedCluster } from './attached-policy'
import type { LiveMetrics } from '../../../../common/contract/runs'
import { LiveMetricsAggregator, metricsTopology } from '../live-metrics'
import { NamesrvSampler } from '../namesrv-sampler'
import type { WorkerFactory } from '../../workers/client-fleet'
import { ClientFleet } from '../../workers/client-fleet'
import type { WireRow } from '../../workers/protocol'
import { startControllerWatch } from './controller-run'
import type { AdminRemoting, RunContext, RunNames, RunProgress, TopicPolicy } from './run-context'
import { recordFault } from './timeline'

/** What a scenario run or an interactive session is built from. */
export interface OpenRunOptions {
  recorder: Recorder
  runId: number
  loaded: LoadedScenario
  cluster: ClusterPort
  workers: WorkerFactory
  names: RunNames
  topicPolicy: TopicPolicy
  management?: ManagementPort
  admin?: () => AdminRemoting
  clock?: Clock
  readyTimeoutMs?: number
  /** Where ledger rows go if SQLite refuses them. */
  rescueFile?: string
  /** Aborting it cancels the run. */
  signal?: AbortSignal
  on: {
    progress(p: RunProgress): void
    ledgerEvent(e: LedgerEvent): void
    choice(c: ClientChoice): void
    /** Throttled live figures for the canvas (absent: none are computed). */
    metrics?(snapshot: LiveMetrics): void
  }
}

export interface OpenRun {
  ctx: RunContext
  /** Set when the ledger could not be written: the run must end as an error with this message. */
  ledgerFailure(): LedgerWriteError | undefined
  /** Stops every worker, flushes the ledger; idempotent. */
  close(): Promise<void>
  /** Aborts the run's waits (cancel, or a failure that must end it). */
  abort(reason: Error): void
  /** The workload start, once known (faults are timed from it). */
  t0: number
  /** Stops recording the cluster's node states (close() does it). */
  unwatch: () => void
  /** Records what every name server lists (and the run topic's route) until close(). */
  sampleNameServers(topic: string): void
  /** Resolves when the scenario's abort block stopped the workload, with why. */
  workloadStopped: Promise<string>
  abortedBecause: string | null
}

/**
 * The plans with their rates: as the topology or scenario says on the sandbox; on an attached
 * cluster a low default (capped in total) unless the scenario sets a rate.
 */
function ratedPlans(loaded: LoadedScenario): { plans: ClientPlan[]; note: string | null } {
  const plans = planClients(loaded.scenario, loaded.topology)
  const attached = isAttachedCluster(loaded.topology)
  if (!attached) return { plans, note: null }
  const producers = plans.filter((p) => p.role === 'producer')
  const decision = decideRates({
    producers: producers.map((p) => ({ id: p.id, rate: p.rate })),
    attached,
    ...(loaded.scenario.workload.rate !== undefined
      ? { explicitRate: loaded.scenario.workload.rate }
      : {})
  })
  const rate = new Map(decision.rates.map((r) => [r.id, r.rate]))
  return {
    plans: plans.map((p) => (rate.has(p.id) ? { ...p, rate: rate.get(p.id)! } : p)),
    note: decision.note
  }
}

/** Watches send outcomes as rows arrive and says when the abort block is breached. */
class AbortMonitor {
  private sends: Op[] = []
  private timer: NodeJS.Timeout | undefined

  constructor(private readonly rules: AbortRules) {}

  feed(rows: readonly WireRow[]): void {
    for (const r of rows) {
      if (r.k !== 's') continue
      this.sends.push({
        startMs: r.scheduledAt ?? r.startedAt,
        endMs: r.endedAt,
        ok: r.status === 'acked'
      })
    }
  }

  start(clock: Clock, onBreach: (b: AbortBreach) => void): void {
    this.timer = setInterval(() => {
      const now = clock.now()
      this.sends = pruneSends(this.sends, now, this.rules.windowMs)
      const verdict = evaluateAbort(this.rules, this.sends, now)
      if (verdict.breached) onBreach(verdict)
    }, 500)
    this.timer.unref?.()
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
  }
}

/**
 * Wires one run: its ledger (the engine is the only writer: every worker's rows land here), its
 * fleet of client workers, a worker dying on its own recorded as a fault of its clients, and a
 * ledger write failure aborting the run loudly instead of booking anything as a failed send.
 */
export function openRun(o: OpenRunOptions): OpenRun {
  const clock = o.clock ?? systemClock
  const ctrl = new AbortController()
  if (o.signal) {
    if (o.signal.aborted) ctrl.abort(o.signal.reason)
    else o.signal.addEventListener('abort', () => ctrl.abort(o.signal!.reason), { once: true })
  }
  const ledger = new LedgerWriter(o.recorder.db, o.runId, {
    ...(o.rescueFile ? { rescueFile: o.rescueFile } : {}),
    now: () => clock.now()
  })
  ledger.on('event', o.on.ledgerEvent)
  ledger.on('error', (e) => ctrl.abort(e))
  const fleet = new ClientFleet(o.workers, () => clock.now())
  const abort = o.loaded.scenario.abort ? new AbortMonitor(o.loaded.scenario.abort) : null
  const metrics = o.on.metrics
    ? new LiveMetricsAggregator({
        topology: metricsTopology(o.loaded.topology),
        runId: o.runId,
        emit: o.on.metrics,
        now: () => clock.now()
      })
    : null
  fleet.on('rows', (rows) => {
    writeRows(ledger, rows)
    abort?.feed(rows)
    if (metrics) feedMetrics(metrics, rows)
  })
  metrics?.start()
  let sampler: { stop(): Promise<void> } | null = null
  let samplerRpc: RemotingRpc | null = null
  fleet.on('choice', o.on.choice)
  const tStart = clock.now()
  const rated = ratedPlans(o.loaded)
  let stopWorkload!: (reason: string) => void
  const workloadStopped = new Promise<string>((r) => (stopWorkload = r))
  // Controller-mode topologies: leader, masters and SyncStateSets go to the ledger all run long.
  const controllers = startControllerWatch({
    topology: o.loaded.topology,
    cluster: o.cluster,
    plans: rated.plans,
    names: o.names,
    ledger,
    now: () => clock.now()
  })
  const run: OpenRun = {
    t0: 0,
    workloadStopped,
    abortedBecause: null,
    ctx: {
      runId: o.runId,
      loaded: o.loaded,
      plans: rated.plans,
      fleet,
      ledger,
      reader: new LedgerReader(o.recorder.db),
      cluster: o.cluster,
      management: o.management ?? httpManagement,
      admin: (
        o.admin ?? (() => new RemotingRpc({ connectTimeoutMs: 1000, requestTimeoutMs: 3000 }))
      )(),
      clock,
      signal: ctrl.signal,
      names: o.names,
      topicPolicy: o.topicPolicy,
      readyTimeoutMs: o.readyTimeoutMs ?? 90_000,
      endpoints: { managementNodes: [], nameServers: [] },
      startOffsets: new Map(),
      notes: rated.note ? [rated.note] : [],
      applied: [],
      ...(controllers ? { controllers: controllers.watcher } : {}),
      progress: (phase, message) => {
        ledger.event('phase', null, null, {
          phase: phase === 'done' ? 'report' : phase,
          detail: message
        })
        o.on.progress({ runId: o.runId, phase, message, atMs: clock.now() - tStart })
      }
    },
    ledgerFailure: () => ledger.failure,
    abort: (reason) => ctrl.abort(reason),
    unwatch: () => undefined,
    sampleNameServers: (topic) => {
      if (sampler) return
      samplerRpc = new RemotingRpc({ connectTimeoutMs: 1000, requestTimeoutMs: 1000 })
      const s = new NamesrvSampler({
        rpc: samplerRpc,
        topic,
        targets: () =>
          o.cluster
            .status()
            .nodes.filter((n) => n.kind === 'nameserver' && n.address && n.state !== 'stopped')
            .map((n) => ({ namesrvId: n.nodeId, room: n.room, address: n.address! })),
        emit: (view, atMs) => ledger.event('namesrv-view', null, view.room, view, atMs),
        now: () => clock.now()
      })
      s.start()
      sampler = s
    },
    close: async () => {
      abort?.stop()
      await sampler?.stop()
      samplerRpc?.close()
      metrics?.stop()
      run.unwatch()
      await fleet.close()
      await controllers?.close()
      run.ctx.admin.close()
      ledger.close()
    }
  }
  run.unwatch = watchCluster(run)
  abort?.start(clock, (breach) => {
    if (run.abortedBecause) return
    run.abortedBecause = breach.reason
    ledger.event('aborted', null, null, { rule: breach.rule, reason: breach.reason })
    run.ctx.progress('workload', `aborting the workload: ${breach.reason}`)
    stopWorkload(breach.reason)
  })
  fleet.on('worker-exit', (e) => {
    ledger.event('worker-exit', null, e.room, e)
    if (e.clients.length > 0) {
      recordFault(
        run.ctx,
        {
          action: 'kill',
          target: [e.worker],
          nodes: e.clients,
          kinds: e.clients.map(() => 'client')
        },
        run.t0
      )
    }
  })
  return run
}

/**
 * Records every server node's state change (replay reads them) and what DR Studio observes of an
 * operator's nodes: an attached node that stops answering is a fault of the run, out of band or not.
 */
function watchCluster(run: OpenRun): () => void {
  const { ctx } = run
  if (!ctx.cluster.watch) return () => undefined
  const record = (s: ClusterNode & { detail?: string }): void =>
    ctx.ledger.event('node-state', null, s.room, {
      nodeId: s.nodeId,
      kind: s.kind,
      room: s.room,
      state: s.state as RecordedNodeState,
      ...(s.detail ? { detail: s.detail } : {}),
      ...(s.attached ? { attached: true } : {})
    })
  // Where every node stands when the run begins, so a replay starts from the truth.
  for (const n of ctx.cluster.status().nodes) record(n)
  return ctx.cluster.watch({
    nodeState: record,
    observed: (c) => {
      const down = c.to === 'down'
      const back = c.from === 'down' && (c.to === 'up' || c.to === 'slow')
      if (!down && !back) return
      ctx.ledger.event(down ? 'node-observed-down' : 'node-observed-up', null, c.room, {
        nodeId: c.nodeId,
        kind: c.kind,
        reason: c.reason,
        latencyMs: c.latencyMs
      })
      recordFault(
        ctx,
        {
          action: down ? 'observed-down' : 'observed-up',
          target: [c.nodeId],
          nodes: [c.nodeId],
          kinds: [c.kind]
        },
        run.t0
      )
    }
  })
}

/** Worker rows into the live figures the canvas draws. */
function feedMetrics(metrics: LiveMetricsAggregator, rows: readonly WireRow[]): void {
  for (const r of rows) {
    if (r.k === 's') metrics.send(r)
    else if (r.k === 'd') metrics.delivery(r)
    else metrics.event({ kind: r.kind as LedgerEvent['kind'], clientId: r.clientId, atMs: r.atMs })
  }
}

/** Worker rows into the one ledger writer, tagged with nothing more: they are already complete. */
export function writeRows(ledger: LedgerWriter, rows: readonly WireRow[]): void {
  for (const r of rows) {
    switch (r.k) {
      case 'e': {
        const { k: _k, kind, clientId, room, data, atMs } = r
        ledger.event(kind as never, clientId, room, data as never, atMs)
        break
      }
      case 's': {
        const { k: _k, ...send } = r
        ledger.send(send)
        break
      }
      case 'd': {
        const { k: _k, ...delivery } = r
        ledger.delivery(delivery)
        break
      }
    }
  }
}
