import { EventEmitter } from 'node:events'
import type { ClientChoice, LedgerEvent } from '../../../common/scenario/events'
import type {
  FaultAction,
  NetworkAction,
  NetworkFault,
  ScenarioReport
} from '../../../common/scenario/schema'
import { scenarioSchema } from '../../../common/scenario/schema'
import type { Topology } from '../../../common/topology/schema'
import type { Clock, ManagementPort } from '../clients/room-aware/ports'
import type { Recorder } from '../ledger/recorder'
import type { LiveMetrics } from '../../../common/contract/runs'
import type { ClusterPort } from '../scenario/cluster'
import type { LoadedScenario } from '../scenario/load-scenario'
import { rescueFileFor } from '../scenario/scenario-runner'
import type { WorkerFactory } from '../workers/client-fleet'
import type { DrainResult } from './run/drain'
import { drain } from './run/drain'
import type { OpenRun } from './run/open-run'
import { openRun } from './run/open-run'
import { shapeReport, snapshotFor } from './run/report'
import type { AdminRemoting, RunContext, RunProgress } from './run/run-context'
import { runNaming } from './run/attached-policy'
import { settleConsumers, warmUpProducers } from './run/settle'
import {
  createClients,
  prepareTopics,
  resolveEndpoints,
  startClients,
  waitManagement
} from './run/setup'
import { mastersHit, sampleAfterFault } from './run/controller-run'
import { actOnClient, FAULT_ACTIONS, recordFault } from './run/timeline'
import type { WorkloadResult } from './run/workload'
import { runWorkload } from './run/workload'

export interface InteractiveSessionEvents {
  progress: [RunProgress]
  'ledger-event': [LedgerEvent]
  choice: [ClientChoice]
  /** Setup failed (clients could not start); the session still reports on stop. */
  failure: [Error]
  /** Throttled live figures (IPC `live:metrics`). */
  metrics: [LiveMetrics]
}

export interface InteractiveSessionOptions {
  recorder: Recorder
  /** The sandbox run the engine created; the session records into its ledger. */
  runId: number
  topology: Topology
  cluster: ClusterPort
  workers: WorkerFactory
  admin?: () => AdminRemoting
  management?: ManagementPort
  clock?: Clock
  /** On an attached cluster: the user allowed DR Studio to create the topology's topics. */
  createTopic?: boolean
  /** Budget for every name server to route the topology's topics (default 90 s). */
  readyTimeoutMs?: number
  /** Upper bound on the drain after producers stop (default 15 s). */
  drainTimeoutMs?: number
}

/** True when the topology declares producers or consumers worth running. */
export function hasClients(topology: Topology): boolean {
  return topology.rooms.some((r) => r.producers.length > 0 || r.consumers.length > 0)
}

/** The scenario an interactive session is judged as: the topology's own clients, no loss allowed. */
export function sessionScenario(topology: Topology): LoadedScenario {
  return {
    scenario: scenarioSchema.parse({
      name: 'interactive session',
      description:
        'Operator-driven run: the topology’s own clients while nodes are acted on by hand.',
      topology: topology.name,
      gates: { maxLost: 0 }
    }),
    topology,
    file: null,
    topologyFile: ''
  }
}

/**
 * The topology's own producers and consumers (ids = node ids, topics and groups as declared)
 * running in their rooms' workers while the operator acts on nodes. The same phases as a scenario
 * run, with an open-ended workload that Stop ends.
 */
export class InteractiveSession extends EventEmitter<InteractiveSessionEvents> {
  readonly runId: number
  private readonly run: OpenRun
  /** Stop ends setup and the workload; the drain and report still run. */
  private readonly stopCtrl = new AbortController()
  /** Abort ends everything at once (engine shutdown). */
  private readonly hardCtrl = new AbortController()
  private readonly tStart: number
  private readonly startedAt = new Date()
  private tSettle = 0
  private workload: WorkloadResult | undefined
  private main: Promise<void> | undefined
  private stopping: Promise<ScenarioReport> | undefined
  private stopRequested!: () => void
  private readonly stopPromise = new Promise<void>((r) => (this.stopRequested = r))

  constructor(private readonly opts: InteractiveSessionOptions) {
    super()
    this.runId = opts.runId
    const loaded = sessionScenario(opts.topology)
    const naming = runNaming({
      topology: opts.topology,
      runId: opts.runId,
      kind: 'session',
      ...(opts.createTopic !== undefined ? { createTopic: opts.createTopic } : {})
    })
    this.run = openRun({
      recorder: opts.recorder,
      runId: opts.runId,
      loaded,
      cluster: opts.cluster,
      workers: opts.workers,
      // The topology's own topics (and, on the sandbox, groups), so canvas edges and names match.
      names: naming.names,
      topicPolicy: naming.topicPolicy,
      signal: AbortSignal.any([this.stopCtrl.signal, this.hardCtrl.signal]),
      ...(opts.clock ? { clock: opts.clock } : {}),
      ...(opts.management ? { management: opts.management } : {}),
      ...(opts.admin ? { admin: opts.admin } : {}),
      ...(opts.readyTimeoutMs !== undefined ? { readyTimeoutMs: opts.readyTimeoutMs } : {}),
      ...(rescueFileFor(opts.recorder, opts.runId)
        ? { rescueFile: rescueFileFor(opts.recorder, opts.runId)! }
        : {}),
      on: {
        progress: (p) => this.emit('progress', p),
        ledgerEvent: (e) => this.emit('ledger-event', e),
        choice: (c) => this.emit('choice', c),
        metrics: (m) => this.emit('metrics', m)
      }
    })
    this.tStart = this.run.ctx.clock.now()
  }

  private get ctx(): RunContext {
    return this.run.ctx
  }

  /** Client node ids this session runs. */
  get clientIds(): string[] {
    return this.ctx.plans.map((p) => p.id)
  }

  /** Starts setup and the workload in the background; failures arrive as 'failure'. */
  begin(): void {
    this.main ??= this.runMain().catch((e: Error) => {
      if (this.stopCtrl.signal.aborted || this.hardCtrl.signal.aborted) return
      this.ctx.notes.push(`clients could not start: ${e.message}`)
      this.emit('failure', e)
    })
  }

  /** Records an operator action on a node as a `fault` ledger event and a report fault. */
  recordFault(
    action: FaultAction | NetworkAction,
    nodeIds: string[],
    error?: string,
    network?: NetworkFault,
    atAbs?: number
  ): void {
    const kinds = new Map(this.opts.cluster.status().nodes.map((n) => [n.nodeId, n.kind]))
    recordFault(
      this.ctx,
      {
        action,
        target: nodeIds,
        nodes: nodeIds,
        kinds: nodeIds.map(
          (id) => kinds.get(id) ?? this.ctx.plans.find((p) => p.id === id)?.role ?? ''
        ),
        ...(error !== undefined ? { error } : {}),
        ...(network ? { network: network as Record<string, unknown> } : {}),
        ...(atAbs !== undefined ? { atAbs } : {})
      },
      this.run.t0
    )
    // Controller mode: the surviving replicas' offsets for the RPO figures (the watcher still shows
    // the master it had before the operator's action, as it polls every 200 ms).
    if (error === undefined && FAULT_ACTIONS.has(action)) {
      const rooms = new Set(this.opts.topology.rooms.map((r) => r.id))
      const hit = mastersHit(this.ctx, {
        nodes: nodeIds,
        rooms: nodeIds.filter((n) => rooms.has(n))
      })
      void sampleAfterFault(this.ctx, hit).catch(() => undefined)
    }
  }

  /** Kill/stop/start/restart of one of the session's clients (in its room's worker). */
  async actOnClient(
    nodeId: string,
    action: FaultAction
  ): Promise<{ nodeId: string; kind: string; room: string; state: 'up' | 'stopped' | 'killed' }> {
    const plan = this.ctx.plans.find((p) => p.id === nodeId)
    if (!plan) throw new Error(`${nodeId} is not a client of this session`)
    const startedAt = this.ctx.clock.now()
    try {
      if (!this.ctx.fleet.ids.includes(nodeId)) {
        throw new Error(`${nodeId} has not started yet; wait until routes are ready`)
      }
      await actOnClient(this.ctx, nodeId, action)
      this.recordFault(action, [nodeId], undefined, undefined, startedAt)
    } catch (e) {
      this.recordFault(action, [nodeId], (e as Error).message, undefined, startedAt)
      throw e
    }
    const alive = this.ctx.fleet.isAlive(nodeId)
    return {
      nodeId,
      kind: plan.role,
      room: plan.room,
      state: alive ? 'up' : action === 'kill' ? 'killed' : 'stopped'
    }
  }

  /**
   * Stops producers, drains until every acknowledged message is consumed (restoring downed nodes
   * when the backlog is stuck on them), stops consumers and builds the report. Idempotent.
   */
  stop(): Promise<ScenarioReport> {
    this.stopping ??= this.finish()
    return this.stopping
  }

  /** Crash-stops everything without a report (engine shutdown). */
  async abort(): Promise<void> {
    this.hardCtrl.abort()
    this.stopRequested()
    await this.main
    await this.run.close()
  }

  private async runMain(): Promise<void> {
    const ctx = this.ctx
    const w = ctx.loaded.scenario.workload
    ctx.progress('setup', `waiting until every name server routes the topology's topics`)
    ctx.endpoints = resolveEndpoints(ctx)
    if (ctx.topicPolicy === 'require-existing') {
      // Someone else's cluster: the topic check (and where consumers start) comes first.
      await prepareTopics(ctx)
      await waitManagement(ctx)
      if (ctx.signal.aborted) return
      await createClients(ctx)
    } else {
      // Workers spawn while the brokers register and the topics get routed: Start to traffic.
      await Promise.all([prepareTopics(ctx), waitManagement(ctx), createClients(ctx)])
    }
    this.run.sampleNameServers(ctx.names.topicOf(ctx.plans[0]?.topic ?? ''))
    if (ctx.signal.aborted) return
    await startClients(ctx, 'consumer')
    const consumers = ctx.plans.filter((p) => p.role === 'consumer').length
    ctx.progress('settle', `waiting for ${consumers} consumers to settle on their rooms' queues`)
    this.tSettle = ctx.clock.now()
    if (!(await settleConsumers(ctx))) {
      ctx.notes.push(`consumers did not settle on their own rooms within ${w.settleTimeout} ms`)
    }
    await startClients(ctx, 'producer')
    await warmUpProducers(ctx)
    if (ctx.signal.aborted) return
    const producers = ctx.plans.filter((p) => p.role === 'producer').length
    ctx.progress('workload', `${producers} producers sending until the sandbox stops`)
    this.workload = await runWorkload(ctx, {
      duration: null,
      until: this.stopPromise,
      onStart: (t0) => (this.run.t0 = t0)
    })
  }

  private async finish(): Promise<ScenarioReport> {
    const { recorder } = this.opts
    this.stopRequested()
    this.stopCtrl.abort()
    await this.main
    const tWorkEnd = this.ctx.clock.now()
    // The drain runs on its own signal: Stop ended the workload, not the session's bookkeeping.
    const ctx: RunContext = { ...this.ctx, signal: this.hardCtrl.signal }
    await Promise.allSettled(
      ctx.plans
        .filter((p) => p.role === 'producer' && ctx.fleet.isAlive(p.id))
        .map((p) => ctx.fleet.stop(p.id, 'graceful'))
    )
    let drained: DrainResult | null = null
    if (ctx.fleet.ids.length > 0) {
      drained = await drain(ctx, {
        timeoutMs: this.opts.drainTimeoutMs ?? 15_000,
        graceMs: ctx.loaded.scenario.workload.duplicateGrace,
        restoreWhenStuck: true
      })
    }
    const tDrainEnd = ctx.clock.now()
    await this.run.close()
    const failure = this.run.ledgerFailure()
    if (failure) {
      recorder.endRun(this.runId, 'error', { error: failure.message })
      throw failure
    }
    ctx.progress('report', 'computing the report')
    const t0 = this.workload?.t0 || tWorkEnd
    const report = shapeReport({
      loaded: ctx.loaded,
      runId: this.runId,
      plans: ctx.plans,
      applied: ctx.applied,
      notes: ctx.notes,
      times: {
        tStart: this.tStart,
        tSettle: this.tSettle || t0,
        t0,
        tWorkEnd,
        tDrainEnd,
        end: ctx.clock.now()
      },
      startedAt: this.startedAt,
      endedAt: new Date(),
      topic: [...new Set(ctx.plans.map((p) => p.topic))].join(','),
      group: [
        ...new Set(
          ctx.plans.filter((p) => p.role === 'consumer').map((p) => ctx.names.groupOf(p.group))
        )
      ].join(','),
      workload: this.workload ?? null,
      drain: drained,
      snapshot: snapshotFor(ctx, t0)
    })
    recorder.endRun(this.runId, report.passed ? 'passed' : 'failed', report)
    ctx.progress('done', report.passed ? 'all gates passed' : 'some gates failed')
    return report
  }
}
