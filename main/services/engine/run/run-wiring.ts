import type {
  ClientChoice,
  LedgerEvent,
  RecordedNodeState
} from '../../../../common/scenario/events'
import type { RunPlan } from '../../../../common/scenario/run-plan'
import type { AbortBreach } from '../../../../common/scenario/abort'
import { evaluateAbort, pruneSends } from '../../../../common/scenario/abort'
import type { Op } from '../../../../common/scenario/metrics'
import type { AbortRules } from '../../../../common/scenario/schema'
import type { LiveMetrics } from '../../../../common/contract/runs'
import type { Clock, ManagementPort } from '../../clients/room-aware/ports'
import { httpManagement } from '../../clients/room-aware/ports'
import { LedgerReader } from '../../ledger/ledger-reader'
import { LedgerWriter } from '../../ledger/ledger-writer'
import type { Recorder } from '../../ledger/recorder'
import { RemotingRpc } from '../../remoting/remoting-rpc'
import { LiveMetricsAggregator, metricsTopology } from '../live-metrics'
import type { RunMetrics } from '../../metrics/run-metrics'
import { BrokerLoadSampler } from '../broker-load-sampler'
import { NamesrvSampler } from '../namesrv-sampler'
import type { WorkerFactory } from '../../workers/client-fleet'
import { ClientFleet } from '../../workers/client-fleet'
import type { WireRow } from '../../worker-wire/protocol'
import type { ClusterNode, ClusterPort } from './cluster-port'
import { startControllerWatch } from './controller-run'
import type { AdminRemoting, RunContext, RunProgress } from './run-context'
import { liveReplication } from './replication'
import type { PeriodicSweep } from '../periodic-sweep'

/** What a run reaches the world through; the composition root passes the real ones. */
export interface RunDeps {
  recorder: Recorder
  cluster: ClusterPort
  workers: WorkerFactory
  management?: ManagementPort
  admin?: () => AdminRemoting
  clock: Clock
  /** Budget for the deployment to route the run's topics and report its name servers. */
  readyTimeoutMs?: number
  /** The Prometheus metrics of the process's runs (`--metrics`), fed while this run lasts. */
  metrics?: RunMetrics
}

/** Where the wiring reports what happens (the Run forwards these as its events). */
export interface WiringListeners {
  progress(p: RunProgress): void
  ledgerEvent(e: LedgerEvent): void
  choice(c: ClientChoice): void
  /** Throttled live figures for the canvas (absent: none are computed). */
  metrics?(snapshot: LiveMetrics): void
  /** A client worker died on its own, taking these clients down. */
  workerExit(clients: string[]): void
  /** An attached node stopped (or resumed) answering DR Studio's probes. */
  observed(nodeId: string, down: boolean): void
  /** The scenario's abort block is breached. */
  abortBreached(breach: AbortBreach): void
}

/** The plumbing of one run: its context for the phases, and what must be closed after it. */
export interface RunWiring {
  ctx: RunContext
  /** Starts what watches a booted deployment: controllers, name-server views, the abort block. */
  watchDeployment(topic: string | undefined): void
  /** Stops every watcher and worker, closes the admin client and flushes the ledger; idempotent. */
  close(): Promise<void>
}

/**
 * Wires one run: its ledger (the engine is the only writer: every worker's rows land here), its
 * fleet of client workers, the cluster's node states, and a ledger write failure aborting the run
 * (through `signal`) instead of booking anything as a failed send.
 */
export function wireRun(
  deps: RunDeps,
  plan: RunPlan,
  signal: AbortSignal,
  onLedgerFailure: (e: Error) => void,
  rescueFile: string | undefined,
  on: WiringListeners
): RunWiring {
  const { clock } = deps
  const tStart = clock.now()
  const ledger = new LedgerWriter(deps.recorder.db, plan.runId, {
    ...(rescueFile ? { rescueFile } : {}),
    now: () => clock.now()
  })
  ledger.on('event', on.ledgerEvent)
  ledger.on('error', onLedgerFailure)
  const prometheus = deps.metrics
  prometheus?.begin(plan)
  // The engine's own events (node states, faults, elections); clients' come in order with their rows.
  if (prometheus) ledger.on('event', (e: LedgerEvent) => e.clientId === null && prometheus.event(e))
  const fleet = new ClientFleet(deps.workers, () => clock.now())
  const abort = plan.loaded.scenario.abort ? new AbortMonitor(plan.loaded.scenario.abort) : null
  const metrics = on.metrics
    ? new LiveMetricsAggregator({
        topology: metricsTopology(plan.loaded.topology),
        runId: plan.runId,
        emit: on.metrics,
        now: () => clock.now()
      })
    : null
  fleet.on('rows', (rows) => {
    writeRows(ledger, rows)
    abort?.feed(rows)
    if (metrics) feedMetrics(metrics, rows)
    prometheus?.rows(rows)
  })
  fleet.on('choice', on.choice)
  fleet.on('worker-exit', (e) => {
    ledger.event('worker-exit', null, e.room, e)
    if (e.clients.length > 0) on.workerExit(e.clients)
  })
  metrics?.start()
  const ctx: RunContext = {
    plan,
    fleet,
    ledger,
    reader: new LedgerReader(deps.recorder.db),
    cluster: deps.cluster,
    management: deps.management ?? httpManagement,
    admin: (
      deps.admin ?? (() => new RemotingRpc({ connectTimeoutMs: 1000, requestTimeoutMs: 3000 }))
    )(),
    clock,
    signal,
    readyTimeoutMs: deps.readyTimeoutMs ?? 90_000,
    endpoints: { managementNodes: [], nameServers: [] },
    startOffsets: new Map(),
    notes: plan.rateNote ? [plan.rateNote] : [],
    applied: [],
    progress: (phase, message) => {
      ledger.event('phase', null, null, {
        phase: phase === 'done' ? 'report' : phase,
        detail: message
      })
      on.progress({ runId: plan.runId, phase, message, atMs: clock.now() - tStart })
    }
  }
  const unwatch = watchCluster(ctx, on)
  let controllers: ReturnType<typeof startControllerWatch>
  let sampler: NamesrvSampler | null = null
  let brokerLoad: BrokerLoadSampler | null = null
  let replication: PeriodicSweep | null = null
  let samplerRpc: RemotingRpc | null = null
  let closing: Promise<void> | undefined
  return {
    ctx,
    watchDeployment: (topic) => {
      if (closing) return
      // Controller-mode topologies: leader, masters and SyncStateSets go to the ledger all run long.
      controllers ??= startControllerWatch({ plan, cluster: deps.cluster, ledger, now: clock.now })
      if (controllers) ctx.controllers = controllers.watcher
      abort?.start(clock, on.abortBreached)
      if (topic === undefined || sampler) return
      samplerRpc = new RemotingRpc({ connectTimeoutMs: 1000, requestTimeoutMs: 1000 })
      sampler = new NamesrvSampler({
        rpc: samplerRpc,
        topic,
        targets: () =>
          deps.cluster
            .status()
            .nodes.filter((n) => n.kind === 'nameserver' && n.address && n.state !== 'stopped')
            .map((n) => ({ namesrvId: n.nodeId, room: n.room, address: n.address! })),
        emit: (view, atMs) => ledger.event('namesrv-view', null, view.room, view, atMs),
        now: () => clock.now()
      })
      sampler.start()
      const rpc = samplerRpc
      brokerLoad = new BrokerLoadSampler({
        targets: () =>
          deps.cluster
            .status()
            .nodes.filter((n) => n.kind === 'broker' && n.address && n.state === 'up')
            .map((n) => ({ nodeId: n.nodeId, room: n.room, address: n.address! })),
        runtimeInfo: (address, timeoutMs) => rpc.getBrokerRuntimeInfo(address, { timeoutMs }),
        cpuSeconds: (nodeId) => deps.cluster.cpuSeconds?.(nodeId) ?? null,
        emit: (load, atMs) => ledger.event('broker-load', null, load.room, load, atMs),
        now: () => clock.now()
      })
      brokerLoad.start()
      // Replication between rooms on the canvas's links and the metrics endpoint while the run lasts.
      if (metrics || prometheus) {
        replication = liveReplication(ctx, (links, atMs) => {
          metrics?.replication(links, atMs)
          prometheus?.replication(links)
        })
        replication?.start()
      }
    },
    close: () =>
      (closing ??= (async () => {
        abort?.stop()
        await sampler?.stop()
        await brokerLoad?.stop()
        await replication?.stop()
        samplerRpc?.close()
        metrics?.stop()
        prometheus?.end()
        unwatch()
        await fleet.close()
        await controllers?.close()
        ctx.admin.close()
        ledger.close()
      })())
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
    if (this.timer) return
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
 * Records every server node's state change (replay reads them) and what DR Studio observes of an
 * operator's nodes: an attached node that stops answering is a fault of the run, out of band or not.
 */
function watchCluster(ctx: RunContext, on: WiringListeners): () => void {
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
    chaos: (e) => ctx.ledger.event('chaos-object', null, null, e, e.observedAt),
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
      on.observed(c.nodeId, down)
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
