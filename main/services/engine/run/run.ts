import { EventEmitter } from 'node:events'
import { dirname, join } from 'node:path'
import type { ClientChoice, LedgerEvent } from '../../../../common/scenario/events'
import type { LiveMetrics } from '../../../../common/contract/runs'
import type { LoadedScenario, RunKind, RunPlan } from '../../../../common/scenario/run-plan'
import { resolveRunPlan } from '../../../../common/scenario/run-plan'
import type {
  FaultReport,
  FaultSource,
  ReplicationTraffic,
  ScenarioReport
} from '../../../../common/scenario/schema'
import { delayOf } from '../../../../common/scenario/schema'
import type { Recorder } from '../../ledger/recorder'
import { drain } from './drain'
import type { DrainResult } from './drain'
import type { RunFault } from './fault'
import { applyFault } from './fault'
import type { ReplicaSample } from './replication'
import { replicasOfRun, replicationTraffic } from './replication'
import { shapeReport, snapshotFor } from './report'
import type { AppliedStep, RunContext, RunProgress } from './run-context'
import type { RunDeps, RunWiring } from './run-wiring'
import { wireRun } from './run-wiring'
import { settleConsumers, warmUpProducers } from './settle'
import {
  createClients,
  prepareTopics,
  resolveEndpoints,
  restoreNodes,
  startClients,
  waitManagement
} from './setup'
import type { StartedWorkload, WorkloadResult } from './workload'
import { startWorkload, stopWorkload } from './workload'

export type { RunDeps } from './run-wiring'

export interface RunEvents {
  progress: [RunProgress]
  /** Every ledger event as recorded (IPC `ledger:event`). */
  'ledger-event': [LedgerEvent]
  /** A client's name server or broker changed (IPC `client:choice`). */
  choice: [ClientChoice]
  /** Throttled live figures (IPC `live:metrics`), when the run was opened with `liveMetrics`. */
  metrics: [LiveMetrics]
  /** Every fault as recorded, whatever its source. */
  fault: [FaultReport, RunFault]
}

/** The run was cancelled (Cancel, engine shutdown): it ends without a report. */
export class RunCancelledError extends Error {
  constructor(reason: string) {
    super(reason)
    this.name = 'RunCancelledError'
  }
}

/** Where a run's ledger rows go if SQLite refuses them: beside the database. */
export function rescueFileFor(recorder: Recorder, runId: number): string | undefined {
  const db = recorder.db.name
  return db && db !== ':memory:' ? join(dirname(db), 'rescue', `run-${runId}.jsonl`) : undefined
}

const ROW_KIND: Record<RunKind, string> = { scenario: 'scenario', session: 'sandbox' }

/**
 * One run, whoever drives it: it owns the run row, the ledger (and its rescue file), the client
 * workers, setup, warm-up, every fault, restore, drain and the report. The headless scenario driver
 * feeds it timeline steps and finishes it when the duration ends; the live driver feeds it the
 * operator's actions and finishes it on Stop. Both get the same phases in the same order.
 */
export class Run extends EventEmitter<RunEvents> {
  readonly plan: RunPlan
  private readonly wiring: RunWiring
  /** Finish requested: setup and the workload end; restore, drain and report still run. */
  private readonly stopCtrl = new AbortController()
  /** Cancel, or a ledger failure: everything ends at once, without a report. */
  private readonly hardCtrl = new AbortController()
  private readonly startedAt = new Date()
  private readonly tStart: number
  private tSettle = 0
  /** The replicas' commit-log reach as the workload began (null: nothing replicates). */
  private replicasAtStart: ReplicaSample[] | null = null
  private workload: StartedWorkload | undefined
  private starting: Promise<void> | undefined
  private finishing: Promise<ScenarioReport> | undefined
  private ended = false
  private stopWorkloadEarly!: (reason: string) => void
  /** Why the scenario's abort block stopped the workload, once it did. */
  abortedBecause: string | null = null
  /** Resolves when the scenario's abort block stops the workload, with why. */
  readonly workloadStopped = new Promise<string>((r) => (this.stopWorkloadEarly = r))

  /** Opens a run: its row, ledger and workers; nothing runs until start(). */
  static open(
    deps: RunDeps,
    input: { loaded: LoadedScenario; kind: RunKind; createTopic?: boolean; liveMetrics?: boolean }
  ): Run {
    const { topology, scenario } = input.loaded
    const runId = deps.recorder.startRun({
      kind: ROW_KIND[input.kind],
      topologyName: topology.name,
      topologyJson: JSON.stringify(topology),
      ...(input.kind === 'scenario' ? { scenarioName: scenario.name } : {})
    })
    const plan = resolveRunPlan({
      loaded: input.loaded,
      runId,
      kind: input.kind,
      ...(input.createTopic !== undefined ? { createTopic: input.createTopic } : {})
    })
    return new Run(deps, plan, input.liveMetrics ?? false)
  }

  private constructor(
    private readonly deps: RunDeps,
    plan: RunPlan,
    liveMetrics: boolean
  ) {
    super()
    this.plan = plan
    this.tStart = deps.clock.now()
    const signal = AbortSignal.any([this.stopCtrl.signal, this.hardCtrl.signal])
    this.wiring = wireRun(
      deps,
      plan,
      signal,
      (e) => this.hardCtrl.abort(e),
      rescueFileFor(deps.recorder, plan.runId),
      {
        progress: (p) => this.emit('progress', p),
        ledgerEvent: (e) => this.emit('ledger-event', e),
        choice: (c) => this.emit('choice', c),
        ...(liveMetrics ? { metrics: (m: LiveMetrics) => this.emit('metrics', m) } : {}),
        // A worker that died on its own took its clients down: a fault nobody applied.
        workerExit: (clients) =>
          void this.applyFault({ action: 'kill', target: clients }, 'observed'),
        observed: (nodeId, down) =>
          void this.applyFault(
            { action: down ? 'observed-down' : 'observed-up', target: nodeId },
            'observed'
          ),
        abortBreached: (breach) => {
          if (this.abortedBecause) return
          this.abortedBecause = breach.reason
          this.ctx.ledger.event('aborted', null, null, { rule: breach.rule, reason: breach.reason })
          this.ctx.progress('workload', `aborting the workload: ${breach.reason}`)
          this.stopWorkloadEarly(breach.reason)
        }
      }
    )
  }

  get id(): number {
    return this.plan.runId
  }

  private get ctx(): RunContext {
    return this.wiring.ctx
  }

  /** The workload start (epoch ms), once it began; faults are timed from it. */
  get t0(): number {
    return this.workload?.t0 ?? 0
  }

  /** Client ids of the run. */
  get clientIds(): string[] {
    return this.plan.clients.map((c) => c.id)
  }

  /** Aborted when the run is cancelled or its ledger fails: a driver's waits end with it. */
  get signal(): AbortSignal {
    return this.hardCtrl.signal
  }

  /** Whether a client of the run is up in its worker now. */
  isClientAlive(id: string): boolean {
    return this.ctx.fleet.isAlive(id)
  }

  /**
   * Setup, settle and warm-up, then starts the workload (for `durationMs`, or until finish when
   * null). Rejects with the reason when setup fails (the run stays open: the driver decides whether
   * to finish it with that note or fail it) and with RunCancelledError when cancelled; resolves
   * early when finish() was asked for during setup.
   */
  start(opts: { durationMs: number | null }): Promise<void> {
    this.starting ??= this.setUp(opts.durationMs).catch((e: unknown) => {
      const failure = this.ctx.ledger.failure
      if (failure) throw failure
      if (this.hardCtrl.signal.aborted) throw this.cancelReason()
      if (this.stopCtrl.signal.aborted) return
      this.ctx.notes.push(`clients could not start: ${(e as Error).message}`)
      throw e
    })
    return this.starting
  }

  private async setUp(durationMs: number | null): Promise<void> {
    const { ctx, plan } = this
    const firstTopic = plan.topics[0]?.name
    this.wiring.watchDeployment(firstTopic)
    if (plan.clients.length === 0) {
      ctx.progress('workload', 'no clients: recording node states and faults until the run ends')
      return
    }
    ctx.progress('setup', `run ${plan.runId}: restoring nodes and preparing the run's topics`)
    ctx.notes.push(...(await restoreNodes(ctx)))
    ctx.endpoints = resolveEndpoints(ctx)
    if (plan.topicPolicy === 'require-existing') {
      // Someone else's cluster: the topic check (and where consumers start) comes first.
      await prepareTopics(ctx)
      await waitManagement(ctx)
      this.checkpoint()
      await createClients(ctx)
    } else {
      // Workers spawn while the topics get routed: Start to traffic.
      await Promise.all([prepareTopics(ctx), waitManagement(ctx), createClients(ctx)])
    }
    this.checkpoint()
    await startClients(ctx, 'consumer')
    const consumers = plan.clients.filter((p) => p.role === 'consumer').length
    ctx.progress('settle', `waiting for ${consumers} consumers to settle on their rooms' queues`)
    this.tSettle = ctx.clock.now()
    const { workload } = plan.loaded.scenario
    if (!(await settleConsumers(ctx))) {
      ctx.notes.push(
        `consumers did not settle on their own rooms within ${workload.settleTimeout} ms`
      )
    }
    this.checkpoint()
    await startClients(ctx, 'producer')
    ctx.progress('settle', 'warming up brokers')
    if (!(await warmUpProducers(ctx))) {
      ctx.notes.push(`brokers still answered slowly after ${workload.warmupTimeout} ms of warm-up`)
    }
    this.checkpoint()
    const producers = plan.clients.filter((p) => p.role === 'producer').length
    ctx.progress(
      'workload',
      `${producers} producers ${durationMs === null ? 'sending until the run stops' : `for ${durationMs} ms`}`
    )
    this.replicasAtStart = await replicasOfRun(ctx)
    this.workload = await startWorkload(ctx, durationMs)
  }

  /** What replication moved since the workload began, read from the brokers before they go. */
  private async replicationSince(ctx: RunContext): Promise<ReplicationTraffic[] | null> {
    if (!this.replicasAtStart) return null
    const end = await replicasOfRun(ctx)
    return end && replicationTraffic(this.replicasAtStart, end, ctx.cluster.status().nodes)
  }

  /** Throws when the run must not go on: stopped, cancelled or its ledger failed. */
  private checkpoint(): void {
    if (this.ctx.signal.aborted) throw new Error('the run was stopped')
  }

  private cancelReason(): Error {
    const reason: unknown = this.hardCtrl.signal.reason
    return reason instanceof Error ? reason : new RunCancelledError('the run was cancelled')
  }

  /**
   * Applies a fault and records it (see applyFault): a timeline step, an operator's action, or a
   * fault observed elsewhere. Failures come back in `report.ok`/`report.error`.
   */
  async applyFault(fault: RunFault, source: FaultSource): Promise<AppliedStep> {
    const applied = await applyFault(this.ctx, fault, source, this.t0)
    this.emit('fault', applied.report, fault)
    return applied
  }

  /**
   * Ends the workload (and setup, if still under way), restores every node, drains until every
   * acknowledged message is consumed, closes the workers and ends the run row with its report.
   * Idempotent.
   */
  finish(): Promise<ScenarioReport> {
    this.finishing ??= this.wrapUp()
    return this.finishing
  }

  private async wrapUp(): Promise<ScenarioReport> {
    this.stopCtrl.abort()
    await this.starting?.catch(() => undefined)
    if (this.hardCtrl.signal.aborted) return this.endWithError(this.cancelReason())
    // Restore and drain run on the hard signal alone: finish ended the workload, not the bookkeeping.
    const ctx: RunContext = { ...this.ctx, signal: this.hardCtrl.signal }
    const { workload: w } = this.plan.loaded.scenario
    let result: WorkloadResult | null = null
    if (this.workload) result = await stopWorkload(ctx, this.workload)
    const tWorkEnd = result?.tEnd ?? ctx.clock.now()
    let drained: DrainResult | null = null
    if (ctx.fleet.ids.length > 0) {
      ctx.progress('restore', 'bringing every node back up')
      ctx.notes.push(...(await restoreNodes(ctx, 'answering')))
      // The last delayed messages are due `delay` after the workload: the drain waits for them too.
      drained = await drain(ctx, {
        timeoutMs: w.drainTimeout + delayOf(w),
        graceMs: w.duplicateGrace
      })
    }
    const tDrainEnd = ctx.clock.now()
    const replication = await this.replicationSince(ctx)
    await this.wiring.close()
    if (this.ctx.ledger.failure) return this.endWithError(this.ctx.ledger.failure)
    if (this.hardCtrl.signal.aborted) return this.endWithError(this.cancelReason())
    ctx.progress('report', 'computing the report')
    const t0 = result?.t0 ?? tWorkEnd
    const report = shapeReport({
      plan: this.plan,
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
      workload: result,
      drain: drained,
      aborted: this.abortedBecause,
      snapshot: snapshotFor(ctx, t0, tWorkEnd),
      replication
    })
    // A run without clients judged nothing: it only recorded what happened to the nodes.
    const verdict = this.plan.clients.length === 0 ? 'stopped' : report.passed ? 'passed' : 'failed'
    this.end(verdict, report)
    ctx.progress('done', report.passed ? 'all gates passed' : 'some gates failed')
    return report
  }

  /**
   * Ends the run without a report (Cancel, engine shutdown): setup, workload and drain stop at
   * once, the workers go, and the row says why. Pending start()/finish() reject with
   * RunCancelledError.
   */
  async cancel(reason = 'the run was cancelled'): Promise<void> {
    if (!this.hardCtrl.signal.aborted) this.hardCtrl.abort(new RunCancelledError(reason))
    this.stopCtrl.abort()
    await this.starting?.catch(() => undefined)
    await this.finishing?.catch(() => undefined)
    await this.wiring.close()
    this.end('cancelled', { error: reason })
  }

  /** Ends the run as an error (setup failed and the driver gives up); keeps what was recorded. */
  async fail(error: Error): Promise<void> {
    this.hardCtrl.abort(error)
    this.stopCtrl.abort()
    await this.starting?.catch(() => undefined)
    await this.wiring.close()
    this.end('error', { error: (this.ctx.ledger.failure ?? error).message })
  }

  private async endWithError(error: Error): Promise<never> {
    await this.wiring.close()
    const failure = this.ctx.ledger.failure ?? error
    this.end(failure instanceof RunCancelledError ? 'cancelled' : 'error', {
      error: failure.message
    })
    throw failure
  }

  private end(verdict: string, report: unknown): void {
    if (this.ended) return
    this.ended = true
    this.deps.recorder.endRun(this.plan.runId, verdict, report)
  }
}
