import { EventEmitter } from 'node:events'
import type { ClientChoice, LedgerEvent } from '../../../common/scenario/events'
import type { FaultAction, ScenarioReport } from '../../../common/scenario/schema'
import { scenarioSchema } from '../../../common/scenario/schema'
import { topicsOf } from '../../../common/topology/model'
import type { Topology } from '../../../common/topology/schema'
import type { ClientDeps, Clock, ManagementPort, RemotingFactory } from '../clients/room-aware/ports'
import { httpManagement, pause, systemClock } from '../clients/room-aware/ports'
import { LedgerReader } from '../ledger/ledger-reader'
import { LedgerWriter } from '../ledger/ledger-writer'
import type { Recorder } from '../ledger/recorder'
import { RemotingRpc } from '../remoting/remoting-rpc'
import type { ClusterPort } from '../scenario/cluster'
import type { LoadedScenario } from '../scenario/load-scenario'
import type { ClientPlan } from '../scenario/plan'
import { planClients } from '../scenario/plan'
import type {
  AdminRemoting,
  AppliedStep,
  LiveClient,
  ScenarioProgress
} from '../scenario/scenario-runner'
import { createLiveClient, ScenarioRunner } from '../scenario/scenario-runner'

export interface InteractiveSessionEvents {
  progress: [ScenarioProgress]
  'ledger-event': [LedgerEvent]
  choice: [ClientChoice]
  /** Setup failed (clients could not start); the session still reports on stop. */
  failure: [Error]
}

export interface InteractiveSessionOptions {
  recorder: Recorder
  /** The sandbox run the engine created; the session records into its ledger. */
  runId: number
  topology: Topology
  cluster: ClusterPort
  remoting?: RemotingFactory
  admin?: () => AdminRemoting
  management?: ManagementPort
  clock?: Clock
  /** Budget for every name server to route the topology's topics (default 90 s). */
  readyTimeoutMs?: number
  /** Upper bound on the drain after producers stop (default 15 s). */
  drainTimeoutMs?: number
}

/** True when the topology declares producers or consumers worth running in-process. */
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
 * The topology's own producers and consumers (ids = node ids, topics and groups as declared) running
 * against the sandbox while the operator acts on nodes. Reuses ScenarioRunner's steps: route
 * readiness, management readiness, settle, warm-up, the open-loop pump, drain and report.
 */
export class InteractiveSession extends EventEmitter<InteractiveSessionEvents> {
  readonly runId: number
  private readonly loaded: LoadedScenario
  private readonly plans: ClientPlan[]
  private readonly clock: Clock
  private readonly helper: ScenarioRunner
  private readonly ledger: LedgerWriter
  private readonly reader: LedgerReader
  private readonly deps: ClientDeps
  private readonly clients = new Map<string, LiveClient>()
  private readonly applied: AppliedStep[] = []
  private readonly notes: string[] = []
  private readonly stopCtrl = new AbortController()
  private readonly tStart: number
  private readonly startedAt = new Date()
  private tSettle = 0
  private t0 = 0
  private main: Promise<void> | undefined
  private stopping: Promise<ScenarioReport> | undefined
  private mgmtRefs: { id: string; room: string; url: string }[] = []

  constructor(private readonly opts: InteractiveSessionOptions) {
    super()
    this.runId = opts.runId
    this.loaded = sessionScenario(opts.topology)
    this.plans = planClients(this.loaded.scenario, opts.topology)
    this.clock = opts.clock ?? systemClock
    this.tStart = this.clock.now()
    const management = opts.management ?? httpManagement
    this.helper = new ScenarioRunner({
      recorder: opts.recorder,
      remoting: opts.remoting,
      admin: opts.admin,
      management,
      clock: this.clock,
      readyTimeoutMs: opts.readyTimeoutMs
    })
    this.ledger = new LedgerWriter(opts.recorder.db, opts.runId)
    this.ledger.on('event', (e) => this.emit('ledger-event', e))
    this.reader = new LedgerReader(opts.recorder.db)
    this.deps = {
      remoting: opts.remoting ?? ((o) => new RemotingRpc(o)),
      management,
      ledger: this.ledger,
      clock: this.clock
    }
  }

  /** Client node ids this session runs. */
  get clientIds(): string[] {
    return this.plans.map((p) => p.id)
  }

  /** Starts setup and the workload in the background; failures arrive as 'failure'. */
  begin(): void {
    this.main ??= this.runMain().catch(async (e: Error) => {
      await this.stopClients('crash')
      if (this.stopCtrl.signal.aborted) return
      this.notes.push(`clients could not start: ${e.message}`)
      this.emit('failure', e)
    })
  }

  /** Records an operator action on a node as a `fault` ledger event and a report fault. */
  recordFault(action: FaultAction, nodeIds: string[], error?: string): void {
    const atAbs = this.clock.now()
    const kinds = new Map(this.opts.cluster.status().nodes.map((n) => [n.nodeId, n.kind]))
    const report = {
      atMs: atAbs - this.t0,
      action,
      target: nodeIds,
      nodes: nodeIds,
      ok: error === undefined,
      ...(error !== undefined ? { error } : {})
    }
    this.applied.push({
      atAbs,
      report,
      nodeKinds: nodeIds.map(
        (id) => kinds.get(id) ?? this.plans.find((p) => p.id === id)?.role ?? ''
      )
    })
    this.ledger.event('fault', null, null, report)
  }

  /** Kill/stop/start/restart of one of the session's in-process clients (not a sandbox node). */
  async actOnClient(
    nodeId: string,
    action: FaultAction
  ): Promise<{ nodeId: string; kind: string; room: string; state: 'up' | 'stopped' | 'killed' }> {
    const live = this.clients.get(nodeId)
    const plan = this.plans.find((p) => p.id === nodeId)
    if (!plan) throw new Error(`${nodeId} is not a client of this session`)
    try {
      if (!live) throw new Error(`${nodeId} has not started yet; wait until routes are ready`)
      switch (action) {
        case 'kill':
          if (live.alive) await this.stopClient(live, 'crash')
          break
        case 'stop':
          if (live.alive) await this.stopClient(live, 'graceful')
          break
        case 'start':
        case 'restart': {
          if (live.alive) await this.stopClient(live, 'graceful')
          const fresh = this.makeClient(plan)
          this.clients.set(nodeId, fresh)
          await this.startClient(fresh)
          break
        }
        default:
          throw new Error(`${nodeId} is an in-process client; ${action} does not apply`)
      }
      this.recordFault(action, [nodeId])
    } catch (e) {
      this.recordFault(action, [nodeId], (e as Error).message)
      throw e
    }
    const alive = this.clients.get(nodeId)?.alive ?? false
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
    this.stopCtrl.abort()
    await this.main
    await this.stopClients('crash')
    this.ledger.close()
  }

  private makeClient(plan: ClientPlan): LiveClient {
    return createLiveClient(plan, {
      topology: this.opts.topology,
      tuning: this.loaded.scenario.client,
      deps: this.deps,
      managementNodes: this.mgmtRefs,
      // The topology's own topics and groups, so the canvas edges and names match.
      topicOf: (t) => t,
      groupOf: (g) => g,
      onChoice: (c) => this.emit('choice', c)
    })
  }

  private async startClient(live: LiveClient): Promise<void> {
    await (live.producer ?? live.consumer)!.start()
    live.alive = true
  }

  private async stopClient(live: LiveClient, mode: 'graceful' | 'crash'): Promise<void> {
    live.alive = false
    await (live.producer ?? live.consumer)!.stop(mode)
  }

  private async stopClients(
    mode: 'graceful' | 'crash',
    role?: 'producer' | 'consumer'
  ): Promise<void> {
    await Promise.allSettled(
      [...this.clients.values()]
        .filter((c) => c.alive && (!role || c.plan.role === role))
        .map((c) => this.stopClient(c, mode))
    )
  }

  private phase(p: ScenarioProgress['phase'], message: string): void {
    this.ledger.event('phase', null, null, { phase: p === 'done' ? 'report' : p, detail: message })
    this.emit('progress', {
      runId: this.runId,
      phase: p,
      message,
      atMs: this.clock.now() - this.tStart
    })
  }

  private async runMain(): Promise<void> {
    const { cluster, topology } = this.opts
    const signal = this.stopCtrl.signal
    const h = this.helper
    this.phase('setup', `waiting until every name server routes the topology's topics`)
    this.mgmtRefs = cluster
      .status()
      .nodes.filter((n) => n.kind === 'management' && n.address)
      .map((n) => ({ id: n.nodeId, room: n.room, url: `http://${n.address}` }))
    const admin = (
      this.opts.admin ??
      (() => new RemotingRpc({ connectTimeoutMs: 1000, requestTimeoutMs: 3000 }))
    )()
    try {
      const queues = new Map(topicsOf(topology).map((t) => [t.name, t.queues] as const))
      for (const topic of new Set(this.plans.map((p) => p.topic))) {
        // Idempotent on brokers that already have it; polls routes instead of sleeping.
        await h.prepareTopic(cluster, this.loaded, admin, topic, queues.get(topic) ?? 4, signal)
      }
    } finally {
      admin.close()
    }
    await h.waitManagement(cluster, this.mgmtRefs, signal)
    if (signal.aborted) return
    for (const plan of this.plans) this.clients.set(plan.id, this.makeClient(plan))
    const consumers = [...this.clients.values()].filter((c) => c.consumer)
    await Promise.all(consumers.map((c) => this.startClient(c)))
    this.phase(
      'settle',
      `waiting for ${consumers.length} consumers to settle on their rooms' queues`
    )
    this.tSettle = this.clock.now()
    const w = this.loaded.scenario.workload
    if (
      !(await h.settle(
        consumers.map((c) => c.consumer!),
        w.settleTimeout,
        signal
      ))
    ) {
      this.notes.push(`consumers did not settle on their own rooms within ${w.settleTimeout} ms`)
    }
    const producers = [...this.clients.values()].filter((c) => c.producer)
    await Promise.all(producers.map((c) => this.startClient(c)))
    await h.warmUp(producers, w.warmupTimeout, this.loaded.scenario.client.requestTimeout, signal)
    if (signal.aborted) return
    this.t0 = this.clock.now()
    this.phase('workload', `${producers.length} producers sending until the sandbox stops`)
    const inflight = new Set<Promise<unknown>>()
    // Producers replaced by a restart are picked up: pump reads `alive`/`producer` per tick.
    const slots = producers.map((p) => this.clients.get(p.plan.id)!)
    const proxies = slots.map((p) => this.slot(p.plan.id, p))
    await h.pump(proxies, this.t0, Infinity, inflight, signal)
    await Promise.allSettled([...inflight])
  }

  /** A stable view of a client id whose LiveClient may be replaced by an operator restart. */
  private slot(id: string, first: LiveClient): LiveClient {
    const clients = this.clients
    return {
      plan: first.plan,
      get producer() {
        return clients.get(id)?.producer
      },
      get alive() {
        return clients.get(id)?.alive ?? false
      }
    }
  }

  private async finish(): Promise<ScenarioReport> {
    const { recorder, cluster } = this.opts
    this.stopCtrl.abort()
    await this.main
    const tWorkEnd = this.clock.now()
    await this.stopClients('graceful', 'producer')
    const consumers = [...this.clients.values()].filter((c) => c.plan.role === 'consumer')
    if (consumers.length > 0 && !consumers.some((c) => c.alive)) {
      this.notes.push('no consumer was alive at stop; restarted them to drain')
      for (const c of consumers) {
        const fresh = this.makeClient(c.plan)
        this.clients.set(c.plan.id, fresh)
        await this.startClient(fresh).catch((e: Error) => this.notes.push(e.message))
      }
    }
    this.phase('drain', 'waiting until every acknowledged message is consumed')
    const budget = this.opts.drainTimeoutMs ?? 15_000
    let deadline = this.clock.now() + budget
    let restored = false
    let left = Infinity
    for (;;) {
      this.ledger.flush()
      left = this.reader.unconsumedCount(this.runId)
      if (left === 0 || this.clock.now() > deadline) break
      // A backlog stuck on a killed broker only drains once it is back, as in scenario runs.
      if (!restored && this.clock.now() > deadline - budget + 2000) {
        restored = true
        const down = cluster.status().nodes.filter((n) => n.state !== 'up')
        if (down.length > 0) {
          this.phase('restore', `restarting ${down.map((n) => n.nodeId).join(', ')} to drain`)
          this.notes.push(...(await this.helper.restore(cluster)))
          deadline = this.clock.now() + budget
        }
      }
      await pause(200)
    }
    if (left > 0)
      this.notes.push(`drain timed out after ${budget} ms with ${left} messages unconsumed`)
    const tDrainEnd = this.clock.now()
    await this.stopClients('graceful')
    this.ledger.close()
    this.phase('report', 'computing the report')
    const t0 = this.t0 || tWorkEnd
    // Actions taken before the workload started were stamped before t0 was known.
    for (const a of this.applied) a.report.atMs = a.atAbs - t0
    const report = this.helper.buildReport({
      loaded: this.loaded,
      runId: this.runId,
      reader: this.reader,
      plans: this.plans,
      applied: this.applied,
      notes: this.notes,
      t0,
      times: {
        tStart: this.tStart,
        tSettle: this.tSettle || t0,
        t0,
        tWorkEnd,
        tDrainEnd,
        end: this.clock.now()
      },
      startedAt: this.startedAt,
      topic: [...new Set(this.plans.map((p) => p.topic))].join(','),
      group: [...new Set(this.plans.filter((p) => p.role === 'consumer').map((p) => p.group))].join(
        ','
      )
    })
    recorder.endRun(this.runId, report.passed ? 'passed' : 'failed', report)
    this.phase('done', report.passed ? 'all gates passed' : 'some gates failed')
    return report
  }
}
