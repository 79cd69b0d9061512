import { EventEmitter } from 'node:events'
import { dirname, join } from 'node:path'
import type { ClientChoice, LedgerEvent } from '../../../common/scenario/events'
import type { FaultReport, ScenarioReport } from '../../../common/scenario/schema'
import type { Clock, ManagementPort } from '../clients/room-aware/ports'
import { systemClock } from '../clients/room-aware/ports'
import { drain } from '../engine/run/drain'
import type { OpenRun } from '../engine/run/open-run'
import { openRun } from '../engine/run/open-run'
import { shapeReport, snapshotFor } from '../engine/run/report'
import type { AdminRemoting, RunProgress } from '../engine/run/run-context'
import { runNaming } from '../engine/run/attached-policy'
import { settleConsumers, warmUpProducers } from '../engine/run/settle'
import {
  createClients,
  prepareTopics,
  resolveEndpoints,
  restoreNodes,
  startClients,
  waitManagement
} from '../engine/run/setup'
import { runWorkload } from '../engine/run/workload'
import type { Recorder } from '../ledger/recorder'
import type { LiveMetrics } from '../../../common/contract/runs'
import type { WorkerFactory } from '../workers/client-fleet'
import type { ClusterPort } from './cluster'
import type { LoadedScenario } from './load-scenario'

export type {
  RunPhase as ScenarioPhase,
  RunProgress as ScenarioProgress
} from '../engine/run/run-context'

export interface ScenarioRunnerEvents {
  progress: [RunProgress]
  /** Every ledger event as recorded (IPC `ledger:event`). */
  'ledger-event': [LedgerEvent]
  /** A client's name server or broker changed (IPC `client:choice`). */
  choice: [ClientChoice]
  /** A timeline step was applied. */
  fault: [FaultReport]
  report: [ScenarioReport]
  /** Throttled live figures (IPC `live:metrics`). */
  metrics: [LiveMetrics]
}

export interface ScenarioRunnerOptions {
  recorder: Recorder
  /** Spawns the run's client workers (one per room and runtime). */
  workers: WorkerFactory
  admin?: () => AdminRemoting
  management?: ManagementPort
  clock?: Clock
  /** Budget for the deployment to route the run's topic through every name server. */
  readyTimeoutMs?: number
  /** On an attached cluster: the user allowed DR Studio to create the run's topic (--create-topic). */
  createTopic?: boolean
}

/** Where a run's ledger rows go if SQLite refuses them: beside the database. */
export function rescueFileFor(recorder: Recorder, runId: number): string | undefined {
  const db = recorder.db.name
  return db && db !== ':memory:' ? join(dirname(db), 'rescue', `run-${runId}.jsonl`) : undefined
}

/**
 * Runs one scenario against a running deployment: fresh topic and group, consumers settled on their
 * rooms, producers at the workload rate, the fault timeline, restore, drain, then the report and
 * gates from a ledger snapshot. The phases are the plain functions of engine/run, which the
 * interactive session runs too. One run at a time per instance.
 */
export class ScenarioRunner extends EventEmitter<ScenarioRunnerEvents> {
  private runId: number | null = null

  constructor(private readonly opts: ScenarioRunnerOptions) {
    super()
  }

  /** The run in progress, if any. */
  get currentRunId(): number | null {
    return this.runId
  }

  async run(
    loaded: LoadedScenario,
    cluster: ClusterPort,
    runOpts: { signal?: AbortSignal } = {}
  ): Promise<ScenarioReport> {
    const { scenario, topology } = loaded
    const { recorder } = this.opts
    const clock = this.opts.clock ?? systemClock
    const startedAt = new Date()
    const tStart = clock.now()
    const runId = recorder.startRun({
      kind: 'scenario',
      topologyName: topology.name,
      topologyJson: JSON.stringify(topology),
      scenarioName: scenario.name
    })
    this.runId = runId
    const naming = runNaming({
      topology,
      runId,
      kind: 'scenario',
      ...(this.opts.createTopic !== undefined ? { createTopic: this.opts.createTopic } : {})
    })
    const run = openRun({
      recorder,
      runId,
      loaded,
      cluster,
      workers: this.opts.workers,
      names: naming.names,
      topicPolicy: naming.topicPolicy,
      clock,
      ...(this.opts.management ? { management: this.opts.management } : {}),
      ...(this.opts.admin ? { admin: this.opts.admin } : {}),
      ...(this.opts.readyTimeoutMs !== undefined
        ? { readyTimeoutMs: this.opts.readyTimeoutMs }
        : {}),
      ...(rescueFileFor(recorder, runId) ? { rescueFile: rescueFileFor(recorder, runId)! } : {}),
      ...(runOpts.signal ? { signal: runOpts.signal } : {}),
      on: {
        progress: (p) => this.emit('progress', p),
        ledgerEvent: (e) => this.emit('ledger-event', e),
        choice: (c) => this.emit('choice', c),
        metrics: (m) => this.emit('metrics', m)
      }
    })
    run.ctx.onFault = (f) => this.emit('fault', f)
    try {
      const report = await this.phases(run, tStart, startedAt)
      recorder.endRun(runId, report.passed ? 'passed' : 'failed', report)
      run.ctx.progress('done', report.passed ? 'all gates passed' : 'some gates failed')
      this.emit('report', report)
      return report
    } catch (e) {
      await run.close()
      const err = run.ledgerFailure() ?? (e as Error)
      recorder.endRun(runId, 'error', { error: err.message })
      throw err
    } finally {
      this.runId = null
    }
  }

  private async phases(run: OpenRun, tStart: number, startedAt: Date): Promise<ScenarioReport> {
    const ctx = run.ctx
    const { scenario } = ctx.loaded
    const { clock, notes } = ctx
    const cancelled = (): void => {
      const failure = run.ledgerFailure()
      if (failure) throw failure
      if (ctx.signal.aborted) throw new Error('the run was cancelled')
    }
    ctx.progress('setup', `run ${ctx.runId}: restoring nodes and creating the run's topic`)
    notes.push(...(await restoreNodes(ctx)))
    ctx.endpoints = resolveEndpoints(ctx)
    await prepareTopics(ctx)
    run.sampleNameServers(ctx.names.topicOf(ctx.plans[0]?.topic ?? ''))
    await waitManagement(ctx)
    await createClients(ctx)
    await startClients(ctx, 'consumer')
    cancelled()
    const consumers = ctx.plans.filter((p) => p.role === 'consumer').length
    ctx.progress('settle', `waiting for ${consumers} consumers to settle on their rooms' queues`)
    const tSettle = clock.now()
    if (!(await settleConsumers(ctx))) {
      notes.push(
        `consumers did not settle on their own rooms within ${scenario.workload.settleTimeout} ms`
      )
    }
    await startClients(ctx, 'producer')
    ctx.progress('settle', 'warming up brokers')
    if (!(await warmUpProducers(ctx))) {
      notes.push(
        `brokers still answered slowly after ${scenario.workload.warmupTimeout} ms of warm-up`
      )
    }
    cancelled()
    const producers = ctx.plans.filter((p) => p.role === 'producer').length
    ctx.progress('workload', `${producers} producers for ${scenario.workload.duration} ms`)
    const workload = await runWorkload(ctx, {
      duration: scenario.workload.duration,
      until: run.workloadStopped,
      onStart: (t0) => (run.t0 = t0)
    })
    cancelled()
    ctx.progress('restore', 'bringing every node back up')
    notes.push(...(await restoreNodes(ctx)))
    const drained = await drain(ctx, {
      timeoutMs: scenario.workload.drainTimeout,
      graceMs: scenario.workload.duplicateGrace
    })
    cancelled()
    const tDrainEnd = clock.now()
    await run.close()
    cancelled()
    ctx.progress('report', 'computing the report')
    const topics = [...new Set(ctx.plans.map((p) => ctx.names.topicOf(p.topic)))]
    const groups = [
      ...new Set(
        ctx.plans.filter((p) => p.role === 'consumer').map((p) => ctx.names.groupOf(p.group))
      )
    ]
    return shapeReport({
      loaded: ctx.loaded,
      runId: ctx.runId,
      plans: ctx.plans,
      applied: ctx.applied,
      notes,
      times: {
        tStart,
        tSettle,
        t0: workload.t0,
        tWorkEnd: workload.tEnd,
        tDrainEnd,
        end: clock.now()
      },
      startedAt,
      endedAt: new Date(),
      topic: topics.join(','),
      group: groups.join(','),
      workload,
      drain: drained,
      aborted: run.abortedBecause,
      snapshot: snapshotFor(ctx, workload.t0)
    })
  }
}
