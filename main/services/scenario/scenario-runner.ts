import { EventEmitter } from 'node:events'
import type { ClientChoice, LedgerEvent } from '../../../common/scenario/events'
import { computeRto, localShare } from '../../../common/scenario/metrics'
import type {
  ClientReport,
  FailoverReport,
  FaultReport,
  ScenarioReport,
  SelectionReport,
  TimelineStep
} from '../../../common/scenario/schema'
import { resolveTarget } from '../../../common/scenario/selectors'
import { topicsOf } from '../../../common/topology/model'
import { allocateNearby, queueKey } from '../clients/room-aware/allocate-nearby'
import { roomOfClientId } from '../clients/room-aware/client-id'
import { DrConsumer } from '../clients/room-aware/consumer'
import type {
  Clock,
  ClientDeps,
  ManagementNodeRef,
  ManagementPort,
  RemotingFactory
} from '../clients/room-aware/ports'
import { httpManagement, pause, systemClock } from '../clients/room-aware/ports'
import { DrProducer } from '../clients/room-aware/producer'
import { GrpcConsumer } from '../clients/grpc-lane/grpc-consumer'
import { GrpcProducer } from '../clients/grpc-lane/grpc-producer'
import { officialSdk } from '../clients/grpc-lane/official-sdk'
import type { GrpcSdk } from '../clients/grpc-lane/sdk-port'
import { readableQueues } from '../clients/room-aware/route-table'
import { LedgerReader } from '../ledger/ledger-reader'
import { LedgerWriter } from '../ledger/ledger-writer'
import type { Recorder } from '../ledger/recorder'
import { RemotingRpc } from '../remoting/remoting-rpc'
import type { ClusterPort } from './cluster'
import { restoreAction } from './cluster'
import { evaluateGates } from './gates'
import type { LoadedScenario } from './load-scenario'
import type { ClientPlan } from './plan'
import { planClients, targetNodes } from './plan'

export type ScenarioPhase =
  'setup' | 'settle' | 'workload' | 'restore' | 'drain' | 'report' | 'done'

/** Progress of a run, for the app's timeline and the CLI's log. */
export interface ScenarioProgress {
  runId: number | null
  phase: ScenarioPhase
  message: string
  atMs: number
}

export interface ScenarioRunnerEvents {
  progress: [ScenarioProgress]
  /** Every ledger event as recorded (IPC `ledger:event`). */
  'ledger-event': [LedgerEvent]
  /** A client's name server or broker changed (IPC `client:choice`). */
  choice: [ClientChoice]
  /** A timeline step was applied. */
  fault: [FaultReport]
  report: [ScenarioReport]
}

/** Admin calls the runner makes itself (topic creation, readiness polling). */
export type AdminRemoting = Pick<
  RemotingRpc,
  'updateAndCreateTopic' | 'getRouteInfoByTopic' | 'close'
>

export interface ScenarioRunnerOptions {
  recorder: Recorder
  remoting?: RemotingFactory
  admin?: () => AdminRemoting
  management?: ManagementPort
  clock?: Clock
  /** rocketmq-client-nodejs for the gRPC and baseline lanes. */
  sdk?: GrpcSdk
  /** Budget for the deployment to route the run's topic through every name server. */
  readyTimeoutMs?: number
}

/** A planned client and its live producer or consumer. */
export interface LiveClient {
  plan: ClientPlan
  producer?: DrProducer | GrpcProducer
  consumer?: DrConsumer | GrpcConsumer
  alive: boolean
}

/** A fault applied during a run (timeline step or operator action), for the report. */
export interface AppliedStep {
  report: FaultReport
  atAbs: number
  nodeKinds: string[]
}

const FAULT_ACTIONS = new Set(['kill', 'pause', 'stop'])
/** Workload messages carry this tag; warm-up messages carry another, which consumers never see. */
const WORKLOAD_TAG = 'dr'
const WARMUP_TAG = 'warmup'

/** What building a run's client needs; shared by scenario runs and the interactive session. */
export interface ClientContext {
  topology: LoadedScenario['topology']
  tuning: LoadedScenario['scenario']['client']
  deps: ClientDeps & { sdk?: GrpcSdk }
  managementNodes: ManagementNodeRef[]
  topicOf: (base: string) => string
  groupOf: (base: string) => string
  onChoice: (choice: ClientChoice) => void
}

/** Builds (does not start) the producer or consumer of a plan, subscribed to workload messages. */
export function createLiveClient(plan: ClientPlan, ctx: ClientContext): LiveClient {
  const { topology, tuning, deps } = ctx
  const common = {
    id: plan.id,
    room: plan.room,
    topic: ctx.topicOf(plan.topic),
    group: ctx.groupOf(plan.group),
    managementNodes: ctx.managementNodes,
    policy: tuning.policy ?? topology.settings.selectionPolicy,
    routeRefreshMs: tuning.routeRefresh ?? topology.settings.routeRefreshMs,
    requestTimeoutMs: tuning.requestTimeout,
    managementRefreshMs: tuning.managementRefresh
  }
  const live: LiveClient = { plan, alive: false }
  if (plan.lane !== 'remoting') {
    const grpcDeps = { ...deps, sdk: deps.sdk ?? officialSdk }
    // The remoting client's request timeout (400 ms) is for direct broker calls; the gRPC lanes
    // keep their own defaults, which account for the extra proxy hop and the library's floor.
    const lane = {
      id: common.id,
      room: common.room,
      topic: common.topic,
      group: common.group,
      managementNodes: common.managementNodes,
      lane: plan.lane,
      roomOrder: topology.rooms.map((r) => r.id),
      ...(tuning.managementRefresh !== undefined
        ? { managementRefreshMs: tuning.managementRefresh }
        : {}),
      ...(tuning.probeInterval !== undefined ? { probeIntervalMs: tuning.probeInterval } : {})
    }
    if (plan.role === 'producer') {
      live.producer = new GrpcProducer(
        {
          ...lane,
          ...(tuning.sendTimeout !== undefined ? { sendTimeoutMs: tuning.sendTimeout } : {})
        },
        grpcDeps
      )
      live.producer.on('choice', ctx.onChoice)
    } else {
      live.consumer = new GrpcConsumer({ ...lane, expression: WORKLOAD_TAG }, grpcDeps)
      live.consumer.on('choice', ctx.onChoice)
    }
    return live
  }
  if (plan.role === 'producer') {
    live.producer = new DrProducer(
      {
        ...common,
        sendTimeoutMs: tuning.sendTimeout,
        probeIntervalMs: tuning.probeInterval,
        heartbeatIntervalMs: tuning.heartbeatInterval
      },
      deps
    )
    live.producer.on('choice', ctx.onChoice)
  } else {
    live.consumer = new DrConsumer(
      {
        ...common,
        expression: WORKLOAD_TAG,
        heartbeatIntervalMs: tuning.heartbeatInterval,
        rebalanceIntervalMs: tuning.rebalanceInterval,
        pollTimeoutMs: tuning.pollTimeout
      },
      deps
    )
    live.consumer.on('choice', ctx.onChoice)
  }
  return live
}

/**
 * Runs one scenario against a running deployment: fresh topic and group, consumers settled on
 * their rooms, producers at the workload rate, the fault timeline, restore, drain, then the report
 * and gates from the ledger. One run at a time per instance. Its phase helpers (prepareTopic,
 * waitManagement, settle, warmUp, pump, restore, buildReport) are public so the interactive session
 * (main/services/engine/interactive-session) runs the same steps without a scenario timeline.
 */
export class ScenarioRunner extends EventEmitter<ScenarioRunnerEvents> {
  private readonly clock: Clock
  private readonly remoting: RemotingFactory
  private readonly management: ManagementPort
  private runId: number | null = null

  constructor(private readonly opts: ScenarioRunnerOptions) {
    super()
    this.clock = opts.clock ?? systemClock
    this.remoting = opts.remoting ?? ((o) => new RemotingRpc(o))
    this.management = opts.management ?? httpManagement
  }

  async run(
    loaded: LoadedScenario,
    cluster: ClusterPort,
    runOpts: { signal?: AbortSignal } = {}
  ): Promise<ScenarioReport> {
    const { scenario, topology } = loaded
    const { recorder } = this.opts
    const signal = runOpts.signal
    const tStart = this.clock.now()
    const startedAt = new Date()
    const plans = planClients(scenario, topology)
    const runId = recorder.startRun({
      kind: 'scenario',
      topologyName: topology.name,
      topologyJson: JSON.stringify(topology),
      scenarioName: scenario.name
    })
    this.runId = runId
    const ledger = new LedgerWriter(recorder.db, runId)
    ledger.on('event', (e) => this.emit('ledger-event', e))
    const reader = new LedgerReader(recorder.db)
    const admin = (
      this.opts.admin ??
      (() => new RemotingRpc({ connectTimeoutMs: 1000, requestTimeoutMs: 3000 }))
    )()
    const notes: string[] = []
    const clients = new Map<string, LiveClient>()
    const topicOf = (base: string): string => `${base}-r${runId}`
    const groupOf = (base: string): string => `${base}-r${runId}`
    const deps: ClientContext['deps'] = {
      remoting: this.remoting,
      management: this.management,
      ledger,
      clock: this.clock,
      ...(this.opts.sdk ? { sdk: this.opts.sdk } : {})
    }
    const tuning = scenario.client
    let mgmtRefs: ManagementNodeRef[] = []

    const makeClient = (plan: ClientPlan): LiveClient =>
      createLiveClient(plan, {
        topology,
        tuning,
        deps,
        managementNodes: mgmtRefs,
        topicOf,
        groupOf,
        onChoice: (c) => this.emit('choice', c)
      })
    const startClient = async (live: LiveClient): Promise<void> => {
      await (live.producer ?? live.consumer)!.start()
      live.alive = true
    }
    const stopClient = async (live: LiveClient, mode: 'graceful' | 'crash'): Promise<void> => {
      live.alive = false
      await (live.producer ?? live.consumer)!.stop(mode)
    }

    const phase = (p: ScenarioPhase, message: string): void => {
      ledger.event('phase', null, null, { phase: p === 'done' ? 'report' : p, detail: message })
      this.emit('progress', { runId, phase: p, message, atMs: this.clock.now() - tStart })
    }

    let t0 = 0
    let tSettle = 0
    let tWorkEnd = 0
    let tDrainEnd = 0
    const applied: AppliedStep[] = []
    try {
      // ---- setup: everything up, fresh topic routed by every name server, clients started.
      phase('setup', `run ${runId}: restoring nodes and creating the run's topic`)
      notes.push(...(await this.restore(cluster, signal)))
      const status = cluster.status().nodes
      mgmtRefs = status
        .filter((n) => n.kind === 'management' && n.address)
        .map((n) => ({ id: n.nodeId, room: n.room, url: `http://${n.address}` }))
      const queuesByTopic = new Map(topicsOf(topology).map((t) => [t.name, t.queues]))
      const baseTopics = [...new Set(plans.map((p) => p.topic))]
      for (const base of baseTopics) {
        await this.prepareTopic(
          cluster,
          loaded,
          admin,
          topicOf(base),
          queuesByTopic.get(base) ?? 4,
          signal
        )
      }
      await this.waitManagement(cluster, mgmtRefs, signal)
      for (const plan of plans) clients.set(plan.id, makeClient(plan))
      const consumers = [...clients.values()].filter((c) => c.consumer)
      await Promise.all(consumers.map(startClient))

      phase('settle', `waiting for ${consumers.length} consumers to settle on their rooms' queues`)
      tSettle = this.clock.now()
      if (
        !(await this.settle(
          consumers.map((c) => c.consumer!),
          scenario.workload.settleTimeout,
          signal
        ))
      ) {
        notes.push(
          `consumers did not settle on their own rooms within ${scenario.workload.settleTimeout} ms`
        )
      }
      const producers = [...clients.values()].filter((c) => c.producer)
      await Promise.all(producers.map(startClient))
      this.emit('progress', {
        runId,
        phase: 'settle',
        message: 'warming up brokers',
        atMs: this.clock.now() - tStart
      })
      if (
        !(await this.warmUp(
          producers,
          scenario.workload.warmupTimeout,
          tuning.requestTimeout,
          signal
        ))
      ) {
        notes.push(
          `brokers still answered slowly after ${scenario.workload.warmupTimeout} ms of warm-up`
        )
      }

      // ---- workload + timeline
      phase('workload', `${producers.length} producers for ${scenario.workload.duration} ms`)
      t0 = this.clock.now()
      const end = t0 + scenario.workload.duration
      const inflight = new Set<Promise<unknown>>()
      const steps = scenario.timeline.map((step) =>
        this.after(t0 + step.at, signal).then(() =>
          this.applyStep(step, cluster, loaded, plans, clients, t0, {
            makeClient,
            startClient,
            stopClient
          }).then((a) => {
            applied.push(a)
            ledger.event('fault', null, null, {
              action: a.report.action,
              target: a.report.target,
              nodes: a.report.nodes,
              ok: a.report.ok,
              ...(a.report.error ? { error: a.report.error } : {})
            })
            this.emit('fault', a.report)
            this.emit('progress', {
              runId,
              phase: 'workload',
              message: `${a.report.action} ${a.report.nodes.join(', ')}${a.report.ok ? '' : ` failed: ${a.report.error}`}`,
              atMs: this.clock.now() - tStart
            })
          })
        )
      )
      await this.pump(producers, t0, end, inflight, signal)
      await Promise.allSettled([...inflight])
      await Promise.allSettled(steps)
      tWorkEnd = this.clock.now()

      // ---- restore + drain
      phase('restore', 'bringing every node back up')
      notes.push(...(await this.restore(cluster, signal)))
      if (![...clients.values()].some((c) => c.consumer && c.alive)) {
        notes.push('no consumer was alive after the workload; restarted the crashed ones to drain')
        for (const c of clients.values()) {
          if (c.plan.role !== 'consumer') continue
          const fresh = makeClient(c.plan)
          clients.set(c.plan.id, fresh)
          await startClient(fresh)
        }
      }
      phase('drain', 'waiting until every acknowledged message is consumed')
      const drainDeadline = this.clock.now() + scenario.workload.drainTimeout
      let left = Infinity
      while (!signal?.aborted) {
        ledger.flush()
        left = reader.unconsumedCount(runId)
        if (left === 0 || this.clock.now() > drainDeadline) break
        await pause(200, signal)
      }
      if (left > 0)
        notes.push(
          `drain timed out after ${scenario.workload.drainTimeout} ms with ${left} messages unconsumed`
        )
      tDrainEnd = this.clock.now()
      await Promise.allSettled(
        [...clients.values()].filter((c) => c.alive).map((c) => stopClient(c, 'graceful'))
      )
      ledger.close()

      // ---- report
      phase('report', 'computing the report')
      const report = this.buildReport({
        loaded,
        runId,
        reader,
        plans,
        applied,
        notes,
        t0,
        times: { tStart, tSettle, t0, tWorkEnd, tDrainEnd, end: this.clock.now() },
        startedAt,
        topic: baseTopics.map(topicOf).join(','),
        group: [
          ...new Set(plans.filter((p) => p.role === 'consumer').map((p) => groupOf(p.group)))
        ].join(',')
      })
      recorder.endRun(runId, report.passed ? 'passed' : 'failed', report)
      phase('done', report.passed ? 'all gates passed' : 'some gates failed')
      this.emit('report', report)
      return report
    } catch (e) {
      await Promise.allSettled(
        [...clients.values()].filter((c) => c.alive).map((c) => stopClient(c, 'crash'))
      )
      ledger.close()
      recorder.endRun(runId, 'error', { error: (e as Error).message })
      throw e
    } finally {
      admin.close()
      this.runId = null
    }
  }

  /** The run in progress, if any. */
  get currentRunId(): number | null {
    return this.runId
  }

  private async after(at: number, signal?: AbortSignal): Promise<void> {
    const wait = at - this.clock.now()
    if (wait > 0) await pause(wait, signal)
  }

  /** Open-loop send schedule: each producer fires at its rate whether or not earlier sends finished. */
  async pump(
    producers: LiveClient[],
    t0: number,
    end: number,
    inflight: Set<Promise<unknown>>,
    signal?: AbortSignal
  ): Promise<void> {
    const next = producers.map((p, i) => t0 + (i * 1000) / p.plan.rate / producers.length)
    const bodies = producers.map((p) => Buffer.alloc(Math.max(1, p.plan.messageSize), 0x61))
    const seq = producers.map(() => 0)
    for (;;) {
      const now = this.clock.now()
      // Fire everything due before the end, even if a stall carried us past it.
      const upTo = Math.min(now, end - 0.001)
      producers.forEach((p, i) => {
        const interval = 1000 / p.plan.rate
        while (next[i]! <= upTo) {
          next[i]! += interval
          if (!p.alive || !p.producer || inflight.size > 5000) continue
          seq[i]!++
          const send = p.producer.send({
            body: bodies[i]!,
            tags: WORKLOAD_TAG,
            keys: [`${p.plan.id}-${seq[i]}`]
          })
          inflight.add(send)
          void send.finally(() => inflight.delete(send))
        }
      })
      if (now >= end || signal?.aborted) return
      await pause(Math.max(1, Math.min(5, end - now)), signal)
    }
  }

  /**
   * Unrecorded sends until each producer's broker answers fast and steadily (40 sends in a row
   * under a quarter of the request timeout, nothing isolated), so JIT warm-up is not a "fault".
   */
  async warmUp(
    producers: LiveClient[],
    timeoutMs: number,
    requestTimeoutMs: number,
    signal?: AbortSignal
  ): Promise<boolean> {
    const deadline = this.clock.now() + timeoutMs
    const fastMs = Math.max(20, requestTimeoutMs / 4)
    const body = Buffer.alloc(64, 0x77)
    const done = await Promise.all(
      producers.map(async (p) => {
        let streak = 0
        while (this.clock.now() < deadline && !signal?.aborted && p.producer) {
          const r = await p.producer.send({ body, tags: WARMUP_TAG, record: false })
          const clean =
            r.ok &&
            r.attempts === 1 &&
            r.latencyMs < fastMs &&
            p.producer.faults.list().length === 0
          streak = clean ? streak + 1 : 0
          if (streak >= 40) return true
          await pause(5, signal)
        }
        return false
      })
    )
    return done.every(Boolean)
  }

  private async applyStep(
    step: TimelineStep,
    cluster: ClusterPort,
    loaded: LoadedScenario,
    plans: ClientPlan[],
    clients: Map<string, LiveClient>,
    t0: number,
    fns: {
      makeClient: (p: ClientPlan) => LiveClient
      startClient: (c: LiveClient) => Promise<void>
      stopClient: (c: LiveClient, mode: 'graceful' | 'crash') => Promise<void>
    }
  ): Promise<AppliedStep> {
    const atAbs = this.clock.now()
    const targets = typeof step.target === 'string' ? [step.target] : step.target
    const resolved = resolveTarget(targets, targetNodes(loaded.topology, plans))
    if (!resolved.ok) {
      return {
        atAbs,
        nodeKinds: [],
        report: {
          atMs: atAbs - t0,
          action: step.action,
          target: targets,
          nodes: [],
          ok: false,
          error: resolved.error
        }
      }
    }
    const errors: string[] = []
    await Promise.all(
      resolved.nodes.map(async (n) => {
        try {
          if (n.kind === 'producer' || n.kind === 'consumer') {
            const live = clients.get(n.id)
            if (!live) throw new Error(`client ${n.id} is not part of this run`)
            switch (step.action) {
              case 'kill':
                if (live.alive) await fns.stopClient(live, 'crash')
                return
              case 'stop':
                if (live.alive) await fns.stopClient(live, 'graceful')
                return
              case 'start':
              case 'restart': {
                if (live.alive) await fns.stopClient(live, 'graceful')
                const fresh = fns.makeClient(live.plan)
                clients.set(n.id, fresh)
                await fns.startClient(fresh)
                return
              }
              default:
                throw new Error(`${n.id} is an in-process client; ${step.action} does not apply`)
            }
          }
          await cluster.act(n.id, step.action)
        } catch (e) {
          errors.push(`${n.id}: ${(e as Error).message}`)
        }
      })
    )
    return {
      atAbs,
      nodeKinds: resolved.nodes.map((n) => n.kind),
      report: {
        atMs: atAbs - t0,
        action: step.action,
        target: targets,
        nodes: resolved.nodes.map((n) => n.id),
        ok: errors.length === 0,
        ...(errors.length ? { error: errors.join('; ') } : {})
      }
    }
  }

  /** Brings paused nodes back and starts stopped or killed ones; returns problems as notes. */
  async restore(cluster: ClusterPort, signal?: AbortSignal): Promise<string[]> {
    const notes: string[] = []
    // A node still booting from an earlier restart (a proxy takes 30-60 s on a busy host) is not up
    // yet: clients started now would pick another room and count as cross-room while healthy.
    const deadline = this.clock.now() + (this.opts.readyTimeoutMs ?? 90_000)
    while (cluster.status().nodes.some((n) => n.state === 'starting') && !signal?.aborted) {
      if (this.clock.now() > deadline) {
        const slow = cluster.status().nodes.filter((n) => n.state === 'starting')
        notes.push(
          `still starting after the ready timeout: ${slow.map((n) => n.nodeId).join(', ')}`
        )
        break
      }
      await pause(200, signal)
    }
    await Promise.all(
      cluster.status().nodes.map(async (n) => {
        const action = restoreAction(n.state)
        if (!action) return
        try {
          await cluster.act(n.nodeId, action)
        } catch (e) {
          notes.push(`could not ${action} ${n.nodeId}: ${(e as Error).message}`)
        }
      })
    )
    return notes
  }

  /** Creates the run's topic on every live master and waits until every live name server routes it. */
  async prepareTopic(
    cluster: ClusterPort,
    loaded: LoadedScenario,
    admin: AdminRemoting,
    topic: string,
    queues: number,
    signal?: AbortSignal
  ): Promise<void> {
    const deadline = this.clock.now() + (this.opts.readyTimeoutMs ?? 90_000)
    const nodes = cluster.status().nodes
    const brokerSpecs = new Map(
      loaded.topology.rooms.flatMap((r) => r.brokers.map((b) => [b.id, b] as const))
    )
    const masters = nodes
      .filter(
        (n) =>
          n.kind === 'broker' &&
          n.state === 'up' &&
          n.address &&
          brokerSpecs.get(n.nodeId)?.role === 'master'
      )
      .map((n) => ({ address: n.address!, brokerName: brokerSpecs.get(n.nodeId)!.brokerName }))
    const nameServers = nodes.filter(
      (n) => n.kind === 'nameserver' && n.state === 'up' && n.address
    )
    const pending = new Set(masters.map((m) => m.brokerName))
    while (pending.size > 0) {
      for (const m of masters.filter((x) => pending.has(x.brokerName))) {
        try {
          await admin.updateAndCreateTopic(
            m.address,
            { topic, brokerName: m.brokerName, readQueueNums: queues, writeQueueNums: queues },
            { timeoutMs: 3000 }
          )
          pending.delete(m.brokerName)
        } catch (e) {
          if (this.clock.now() > deadline)
            throw new Error(
              `cannot create topic ${topic} on ${m.brokerName}: ${(e as Error).message}`
            )
        }
      }
      if (pending.size > 0) await pause(200, signal)
    }
    const want = new Set(masters.map((m) => m.brokerName))
    for (;;) {
      const missing: string[] = []
      await Promise.all(
        nameServers.map(async (ns) => {
          try {
            const route = await admin.getRouteInfoByTopic(ns.address!, topic, { timeoutMs: 2000 })
            const have = new Set(
              route.brokerDatas.filter((b) => b.brokerAddrs['0']).map((b) => b.brokerName)
            )
            for (const b of want) if (!have.has(b)) missing.push(`${ns.nodeId} lacks ${b}`)
          } catch (e) {
            missing.push(`${ns.nodeId}: ${(e as Error).message}`)
          }
        })
      )
      if (missing.length === 0) return
      if (this.clock.now() > deadline || signal?.aborted) {
        throw new Error(`topic ${topic} is not routed everywhere in time: ${missing.join('; ')}`)
      }
      await pause(250, signal)
    }
  }

  /** Waits until every management node reports every live name server available. */
  async waitManagement(
    cluster: ClusterPort,
    refs: ManagementNodeRef[],
    signal?: AbortSignal
  ): Promise<void> {
    const deadline = this.clock.now() + (this.opts.readyTimeoutMs ?? 90_000)
    const upOf = (kind: string): Set<string> =>
      new Set(
        cluster
          .status()
          .nodes.filter((n) => n.kind === kind && n.state === 'up')
          .map((n) => n.nodeId)
      )
    const up = upOf('nameserver')
    // The gRPC lanes choose among the proxies the management nodes report available.
    const upProxies = upOf('proxy')
    for (;;) {
      const ok = await Promise.all(
        refs.map(async (m) => {
          try {
            const a = await this.management.fetchNameServers(m, 1000)
            const avail = new Set(
              a.nameServers.filter((n) => n.available !== false).map((n) => n.id)
            )
            const proxies = new Set(
              (a.proxies ?? []).filter((p) => p.available !== false).map((p) => p.id)
            )
            return (
              [...up].every((id) => avail.has(id)) && [...upProxies].every((id) => proxies.has(id))
            )
          } catch {
            return false
          }
        })
      )
      if (ok.every(Boolean)) return
      if (this.clock.now() > deadline || signal?.aborted) {
        throw new Error(
          'management nodes do not report every name server (and proxy) available; check their logs'
        )
      }
      await pause(200, signal)
    }
  }

  /** True once every consumer owns exactly what the nearby rule gives it with everyone alive. */
  async settle(
    all: (DrConsumer | GrpcConsumer)[],
    timeoutMs: number,
    signal?: AbortSignal
  ): Promise<boolean> {
    // gRPC consumers pop from proxies and own no queues: started is settled.
    const consumers = all.filter((c): c is DrConsumer => c instanceof DrConsumer)
    const deadline = this.clock.now() + timeoutMs
    const cids = consumers.map((c) => c.cid)
    while (!signal?.aborted) {
      const settled = consumers.every((c) => {
        const expected = allocateNearby({
          currentCid: c.cid,
          cidAll: cids,
          queues: readableQueues(c.routes.brokers),
          roomOf: roomOfClientId
        }).assigned.map(queueKey)
        const have = c.assignment().map(queueKey)
        return expected.length === have.length && expected.every((k) => have.includes(k))
      })
      if (settled) return true
      if (this.clock.now() > deadline) return false
      await pause(100, signal)
    }
    return false
  }

  buildReport(input: {
    loaded: LoadedScenario
    runId: number
    reader: LedgerReader
    plans: ClientPlan[]
    applied: AppliedStep[]
    notes: string[]
    t0: number
    times: {
      tStart: number
      tSettle: number
      t0: number
      tWorkEnd: number
      tDrainEnd: number
      end: number
    }
    startedAt: Date
    topic: string
    group: string
  }): ScenarioReport {
    const { loaded, runId, reader, plans, t0, times } = input
    const { scenario, topology } = loaded
    const steps = [...input.applied].sort((a, b) => a.atAbs - b.atAbs)
    const boundaries = steps.map((s) => s.atAbs)
    const firstFault =
      steps.find((s) => FAULT_ACTIONS.has(s.report.action))?.atAbs ?? steps[0]?.atAbs ?? null
    const loss = reader.lossSummary(runId)
    const pstats = new Map(reader.producerStats(runId).map((s) => [s.clientId, s]))
    const cstats = new Map(reader.consumerStats(runId).map((s) => [s.clientId, s]))
    const allRto: (number | null)[] = []
    const clients: ClientReport[] = plans.map((p) => {
      if (p.role === 'producer') {
        const s = pstats.get(p.id)
        const rto = computeRto(reader.sendOps(runId, p.id), boundaries).map((e) =>
          e.rtoMs === null ? null : Math.round(e.rtoMs * 10) / 10
        )
        allRto.push(...rto)
        return {
          id: p.id,
          room: p.room,
          role: p.role,
          sent: s?.sent ?? 0,
          acked: s?.acked ?? 0,
          failed: s?.failed ?? 0,
          consumed: 0,
          lost: s?.lost ?? 0,
          duplicates: s?.duplicates ?? 0,
          rtoMs: rto,
          maxSendLatencyMs:
            s?.maxLatencyMs === null || s?.maxLatencyMs === undefined
              ? null
              : Math.round(s.maxLatencyMs * 10) / 10
        }
      }
      const s = cstats.get(p.id)
      return {
        id: p.id,
        room: p.room,
        role: p.role,
        sent: 0,
        acked: 0,
        failed: 0,
        consumed: s?.consumed ?? 0,
        lost: 0,
        duplicates: s?.duplicates ?? 0,
        rtoMs: []
      }
    })

    const failovers: FailoverReport[] = []
    for (const e of reader.events(runId, {
      kinds: ['broker-failover', 'namesrv-failover', 'consumer-takeover']
    })) {
      if (e.atMs < t0) continue
      const d = e.data as Record<string, unknown>
      const str = (k: string): string | null => (typeof d[k] === 'string' ? (d[k] as string) : null)
      if (e.kind === 'consumer-takeover') {
        const fromRoom = str('fromRoom')
        const toRoom = str('toRoom')
        const fault = [...boundaries].reverse().find((b) => b <= e.atMs) ?? null
        const first =
          fromRoom && toRoom ? reader.firstDeliveryAcross(runId, fromRoom, toRoom, e.atMs) : null
        failovers.push({
          atMs: e.atMs - t0,
          clientId: e.clientId ?? '',
          kind: 'consumer-takeover',
          fromRoom,
          toRoom,
          from: null,
          to: e.clientId,
          reason: str('reason') ?? 'takeover',
          durationMs:
            fault !== null && first !== null ? Math.round((first - fault) * 10) / 10 : null
        })
      } else {
        const dur = typeof d.durationMs === 'number' ? Math.round(d.durationMs * 10) / 10 : null
        failovers.push({
          atMs: e.atMs - t0,
          clientId: e.clientId ?? '',
          kind: e.kind === 'broker-failover' ? 'broker' : 'namesrv',
          fromRoom: str('fromRoom'),
          toRoom: str('toRoom'),
          from: str('from'),
          to: str('to'),
          reason: str('reason') ?? 'failure',
          durationMs: dur
        })
      }
    }

    const roleOf = new Map(plans.map((p) => [p.id, p.role]))
    const rows = reader.selections(runId, firstFault)
    const selections: SelectionReport[] = rows.map((r) => ({
      clientId: r.clientId,
      role: roleOf.get(r.clientId) ?? 'producer',
      phase: r.phase,
      namesrvRoom: r.namesrvRoom,
      brokerRoom: r.brokerRoom,
      count: r.count
    }))
    const healthy = (role: 'producer' | 'consumer') =>
      localShare(
        rows
          .filter((r) => r.phase === 'before-fault' && roleOf.get(r.clientId) === role)
          .map((r) => ({
            clientRoom: r.clientRoom,
            servedRoom: r.namesrvRoom === r.clientRoom ? r.brokerRoom : null,
            count: r.count
          }))
      )
    const after = firstFault ?? -Infinity
    const gates = evaluateGates(scenario.gates, {
      lost: loss.lost,
      duplicates: loss.duplicates,
      sent: loss.sent,
      acked: loss.acked,
      rtoMs: allRto,
      localSendShare: healthy('producer'),
      localConsumeShare: healthy('consumer'),
      sendsVia: (from, via) => reader.sendsVia(runId, from, via, after),
      consumedAcross: (b, c) => reader.consumedAcross(runId, b, c, after),
      failovers,
      managementFallbacks: (fromRoom, toRoom) =>
        new Set(
          reader
            .events(runId, { kinds: ['management-fallback'] })
            .filter((e) => {
              const d = e.data as { fromRoom?: string; toRoom?: string | null }
              return (
                e.atMs >= t0 &&
                d.fromRoom === fromRoom &&
                d.toRoom != null &&
                (toRoom === undefined || d.toRoom === toRoom)
              )
            })
            .map((e) => e.clientId)
        ).size
    })
    if (loss.lost > 0)
      input.notes.push(`lost keys (first ${loss.lostKeys.length}): ${loss.lostKeys.join(', ')}`)
    if (loss.unexpected > 0) {
      input.notes.push(
        `${loss.unexpected} messages whose send was reported failed were stored and consumed anyway`
      )
    }
    return {
      kind: 'drstudio/scenario-report',
      version: 1,
      scenario: scenario.name,
      ...(scenario.description ? { description: scenario.description } : {}),
      topology: topology.name,
      runId,
      passed: gates.every((g) => g.passed),
      topic: input.topic,
      consumerGroup: input.group,
      startedAt: input.startedAt.toISOString(),
      endedAt: new Date().toISOString(),
      originMs: t0,
      timings: {
        setupMs: Math.round(times.tSettle - times.tStart),
        settleMs: Math.round(times.t0 - times.tSettle),
        workloadMs: Math.round(times.tWorkEnd - times.t0),
        drainMs: Math.round(times.tDrainEnd - times.tWorkEnd),
        totalMs: Math.round(times.end - times.tStart)
      },
      totals: {
        sent: loss.sent,
        acked: loss.acked,
        failed: loss.failed,
        consumed: loss.deliveries,
        lost: loss.lost,
        duplicates: loss.duplicates
      },
      gates,
      clients,
      failovers,
      selections,
      faults: steps.map((s) => s.report),
      notes: input.notes
    }
  }
}
