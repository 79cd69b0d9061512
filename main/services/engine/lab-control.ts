import type { NodeAction, NodeStatus } from '../../../common/contract'
import type { NetworkStatusPayload } from '../../../common/contract/sandbox'
import type { LoadedScenario } from '../../../common/scenario/run-plan'
import type { NetworkFault, ScenarioReport } from '../../../common/scenario/schema'
import type { Topology } from '../../../common/topology/schema'
import type { ActionSession } from '../../../common/topology/action-policy'
import { afterConfirmation, needsConfirmation } from '../../../common/topology/action-policy'
import type { Clock } from '../clients/room-aware/ports'
import type { Recorder } from '../ledger/recorder'
import type { WorkerFactory } from '../workers/client-fleet'
import type { EngineEvents } from './events'
import { LiveDriver } from './live-driver'
import { masterNodeIds, toLiveChoice } from './live-choice'
import type { Run, RunDeps } from './run/run'
import type { RunMetrics } from '../metrics/run-metrics'
import { runScenario } from './scenario-driver'
import type { SweepPlan } from '../sweep/sweep'
import { runSweep } from '../sweep/sweep'
import type { SandboxPort, SandboxStatus } from './sandbox-port'
import type { RunTarget } from '../../../common/contract/runs'
import type { Out, StopSignal } from '../kubernetes/deployed-topology'
import type { KubernetesScenarioOutcome } from '../kubernetes/kube-scenario'

/** Topologies equal for deployment purposes (canvas layout and wording ignored). */
export function sameDeployment(a: Topology, b: Topology): boolean {
  const strip = ({ layout: _l, description: _d, ...rest }: Topology): unknown => rest
  return JSON.stringify(strip(a)) === JSON.stringify(strip(b))
}

/**
 * Runs a scenario on a Kubernetes cluster (kubernetes/kube-scenario.ts with the engine's ledger):
 * `log` gets the deployment's progress, `stop` ends it, `onOpen` hands over the run.
 */
export type KubernetesRunner = (
  loaded: LoadedScenario,
  target: RunTarget,
  hooks: { stop: StopSignal; onOpen(run: Run): void; log: Out }
) => Promise<KubernetesScenarioOutcome>

/** The scenario run in progress (one at a time). */
interface ActiveScenario {
  name: string
  ctrl: AbortController
  run: Run | null
  done: Promise<void>
}

/**
 * What the app's Start, Stop, node menus, network menus and Scenarios panel drive: one sandbox,
 * its live run (the live driver, while the sandbox runs) and at most one scenario run (the
 * headless driver) at a time. Run events go onto the engine's bus.
 */
export class LabControl {
  /** What the sandbox runs, as far as this control started it. */
  private sandboxTopology: Topology | null = null
  private live: LiveDriver | null = null
  private scenario: ActiveScenario | null = null
  /** Whether the user confirmed running operator commands on an attached cluster this session. */
  private actionSession: ActionSession = { confirmed: false }

  constructor(
    private readonly deps: {
      sandbox: SandboxPort
      recorder: Recorder
      workers: WorkerFactory
      clock: Clock
      events: EngineEvents
      metrics?: RunMetrics
      /** Scenarios on a Kubernetes context (the app's run target); absent: refused. */
      kubernetes?: KubernetesRunner
    }
  ) {}

  private runDeps(): RunDeps {
    const { recorder, sandbox, workers, clock, metrics } = this.deps
    return { recorder, cluster: sandbox, workers, clock, ...(metrics ? { metrics } : {}) }
  }

  private notice(level: 'info' | 'warning' | 'error', message: string): void {
    this.deps.events.emit('engine:notice', { level, message })
  }

  private emitReport(report: ScenarioReport): void {
    this.deps.events.emit('scenario:report', { report })
    this.deps.events.emit('runs:changed', { runId: report.runId })
  }

  /** A run's progress, ledger events, live figures and client choices onto the bus. */
  private forward(run: Run): void {
    const { events } = this.deps
    const masters = masterNodeIds(run.plan.loaded.topology)
    run.on('progress', (p) => events.emit('scenario:progress', p))
    run.on('ledger-event', (e) => events.emit('ledger:event', e))
    run.on('metrics', (m) => events.emit('live:metrics', m))
    run.on('choice', (c) => events.emit('client:choice', toLiveChoice(c, masters, run.id)))
  }

  /** Start: boots the topology and runs its own clients in a live run until Stop. */
  async startSandbox(topology: Topology): Promise<SandboxStatus> {
    const { sandbox } = this.deps
    if (this.scenario) {
      throw new Error(
        `scenario "${this.scenario.name}" is using the sandbox; cancel it or wait for its report`
      )
    }
    const live = new LiveDriver(this.runDeps(), topology)
    this.forward(live.run)
    let status: SandboxStatus
    try {
      status = await sandbox.start(topology, live.run.id)
    } catch (err) {
      await live.run.fail(err as Error)
      this.deps.events.emit('runs:changed', { runId: live.run.id })
      throw err
    }
    this.sandboxTopology = topology
    this.live = live
    live.begin((e) => this.notice('error', `the topology's clients could not start: ${e.message}`))
    return status
  }

  /** Stop: cancels a scenario in progress, reports the live run (drain included), stops the sandbox. */
  async stopSandbox(): Promise<SandboxStatus> {
    if (this.scenario) await this.cancelScenario()
    return this.endSandbox()
  }

  /**
   * Reports the live run (drain included) and throws the sandbox away. A scenario that needs
   * another topology comes here too, without cancelling itself.
   */
  private async endSandbox(): Promise<SandboxStatus> {
    const { sandbox, events } = this.deps
    const live = this.live
    this.live = null
    // A new session asks again before running the operator's commands.
    this.actionSession = { confirmed: false }
    sandbox.allowOperatorActions?.(false)
    if (live) {
      try {
        const report = await live.stop()
        // A topology without clients judged nothing: its run only recorded the nodes.
        if (live.run.plan.clients.length > 0) this.emitReport(report)
        else events.emit('runs:changed', { runId: live.run.id })
      } catch (e) {
        events.emit('runs:changed', { runId: live.run.id })
        this.notice('error', `the run's report could not be built: ${(e as Error).message}`)
      }
    }
    // The run is reported and the sandbox thrown away (the next Start boots a fresh run folder):
    // killing its JVMs takes a second where their graceful shutdown took 15-20 s (a broker's
    // message store alone sleeps 3 s, a proxy waits out its gRPC calls), as the CLI does.
    const status = await sandbox.stop({ force: true })
    this.sandboxTopology = null
    return status
  }

  /** The operator acts on a node (server or client) from the canvas; the run records it as a fault. */
  async nodeAction(nodeId: string, action: NodeAction, confirmed: boolean): Promise<NodeStatus> {
    const { sandbox } = this.deps
    this.gateOperatorAction(nodeId, action, confirmed)
    const run = this.activeRun()
    if (!run) return sandbox.act(nodeId, action)
    await operate(run, { action, target: nodeId })
    const client = run.plan.clients.find((c) => c.id === nodeId)
    if (client) {
      const state = run.isClientAlive(nodeId) ? 'up' : action === 'kill' ? 'killed' : 'stopped'
      return { nodeId, kind: client.role, room: client.room, state } as NodeStatus
    }
    const node = sandbox.status().nodes.find((n) => n.nodeId === nodeId)
    if (!node) throw new Error(`${nodeId} is not a node of the running sandbox`)
    return node
  }

  /** The run an operator's action belongs to: the live run, else the scenario's. */
  private activeRun(): Run | null {
    return this.live?.run ?? this.scenario?.run ?? null
  }

  /**
   * On an attached cluster the first destructive action of a session runs only once the user
   * confirmed it (the renderer asks with the command shown); later ones of the session do not ask.
   */
  private gateOperatorAction(nodeId: string, action: NodeAction, confirmed: boolean): void {
    const { sandbox } = this.deps
    const node = sandbox.status().nodes.find((n) => n.nodeId === nodeId)
    if (!node?.attached) return
    if (needsConfirmation(action, this.actionSession) && !confirmed) {
      throw new Error(
        `${action} ${nodeId} runs your own command on a cluster DR Studio does not own; confirm it first`
      )
    }
    if (confirmed) this.actionSession = afterConfirmation(this.actionSession, action, 'confirm')
    sandbox.allowOperatorActions?.(this.actionSession.confirmed)
  }

  networkStatus(): NetworkStatusPayload {
    return networkStatusOf(this.deps.sandbox)
  }

  /** A network fault or heal from the canvas, recorded as a fault of the run in progress. */
  async networkAction(fault: NetworkFault): Promise<NetworkStatusPayload> {
    const run = this.activeRun()
    if (run) await operate(run, fault)
    else {
      const { sandbox } = this.deps
      if (!sandbox.applyNetworkFault)
        throw new Error(this.networkStatus().faultsDisabled ?? 'no network lab')
      await sandbox.applyNetworkFault(fault)
    }
    return this.networkStatus()
  }

  /**
   * Runs `loaded` in the background (a what-if sweep with `sweep`; on a Kubernetes context with
   * `target`); refuses a second one. Its report arrives as `scenario:report`.
   */
  startScenario(
    loaded: LoadedScenario,
    sweep?: SweepPlan,
    target?: RunTarget
  ): { started: true; scenario: string } {
    if (this.scenario) {
      throw new Error(
        `scenario "${this.scenario.name}" is already running; cancel it or wait for its report`
      )
    }
    if (target && !this.deps.kubernetes) {
      throw new Error('this shell cannot run scenarios on Kubernetes')
    }
    // The canvas shows one deployment's nodes at a time.
    if (target && this.deps.sandbox.status().running) {
      throw new Error(
        `the sandbox is running on this machine: stop it before running ${loaded.scenario.name} on ${target.context}`
      )
    }
    const name = loaded.scenario.name
    const active: ActiveScenario = {
      name,
      ctrl: new AbortController(),
      run: null,
      done: Promise.resolve()
    }
    this.scenario = active
    this.deps.events.emit('scenario:state', { running: true, scenario: name, runId: null })
    active.done = this.runScenario(loaded, active, sweep, target)
    return { started: true, scenario: name }
  }

  /** Boots the scenario's topology when needed, runs it, and always ends with `scenario:state`. */
  private async runScenario(
    loaded: LoadedScenario,
    active: ActiveScenario,
    sweep?: SweepPlan,
    target?: RunTarget
  ): Promise<void> {
    const { events } = this.deps
    const signal = active.ctrl.signal
    const t0 = this.deps.clock.now()
    const progress = (phase: string, message: string): void =>
      events.emit('scenario:progress', {
        runId: active.run?.id ?? null,
        phase,
        message,
        atMs: this.deps.clock.now() - t0
      })
    const onOpen = (run: Run): void => {
      active.run = run
      events.emit('scenario:state', { running: true, scenario: active.name, runId: run.id })
      this.forward(run)
      // The live run on the same sandbox sees the scenario's faults too.
      run.on('fault', (report, fault) => this.live?.observe(report, fault))
    }
    try {
      if (target) {
        // Deploy, run and remove on the cluster; the run's events reach the canvas as a local one's.
        const outcome = await this.deps.kubernetes!(loaded, target, {
          stop: abortStop(signal),
          onOpen,
          log: { write: (text: string) => progress('kubernetes', text.trim()) }
        })
        if (outcome.kind === 'not-run') throw new Error(outcome.error)
        this.emitReport(outcome.report)
        return
      }
      await this.ensureSandbox(loaded.topology, signal, (message) => progress('setup', message))
      if (signal.aborted) throw new Error('cancelled before the run started')
      if (sweep) {
        // Each run's scorecard as it ends, the last one with the whole sweep in it.
        await runSweep(this.runDeps(), loaded, sweep.combos, {
          runs: sweep.runs,
          signal,
          liveMetrics: true,
          onOpen: (run, label) => {
            onOpen(run)
            events.emit('scenario:progress', {
              runId: run.id,
              phase: 'sweep',
              message: `sweep ${label}`,
              atMs: this.deps.clock.now() - t0
            })
          },
          onReport: (report) => this.emitReport(report)
        })
      } else {
        this.emitReport(
          await runScenario(this.runDeps(), loaded, { signal, liveMetrics: true, onOpen })
        )
      }
    } catch (e) {
      const message = (e as Error).message
      if (signal.aborted) this.notice('info', `scenario "${active.name}" cancelled`)
      else this.notice('error', `scenario "${active.name}" failed: ${message}`)
      events.emit('runs:changed', { runId: active.run?.id ?? null })
    } finally {
      this.scenario = null
      events.emit('scenario:state', {
        running: false,
        scenario: active.name,
        runId: active.run?.id ?? null
      })
    }
  }

  /** Makes the sandbox run `topology`: reuses a matching one, else (re)starts it and waits for registration. */
  private async ensureSandbox(
    topology: Topology,
    signal: AbortSignal,
    progress: (message: string) => void
  ): Promise<void> {
    const { sandbox } = this.deps
    const running = sandbox.status().running
    if (running && this.sandboxTopology && sameDeployment(this.sandboxTopology, topology)) return
    if (running) {
      progress(`stopping the sandbox to run topology ${topology.name}`)
      await this.endSandbox()
    }
    if (signal.aborted) return
    progress(`starting the sandbox with topology ${topology.name}`)
    await bootFor(sandbox, topology, signal, progress)
    this.sandboxTopology = topology
  }

  /** Aborts the scenario run in progress and waits for it to wind down. */
  async cancelScenario(): Promise<boolean> {
    const active = this.scenario
    if (!active) return false
    active.ctrl.abort()
    await active.done
    return true
  }

  /** Stops everything this control started; safe to call twice. */
  async dispose(): Promise<void> {
    await this.cancelScenario().catch(() => undefined)
    const live = this.live
    this.live = null
    if (live) await live.abort().catch(() => undefined)
    const { sandbox } = this.deps
    if (sandbox.status().running) await sandbox.stop({ force: true }).catch(() => undefined)
    this.sandboxTopology = null
  }
}

/** A cancel as the stop signal a Kubernetes run waits on. */
function abortStop(signal: AbortSignal): StopSignal {
  return {
    stopped: new Promise<void>((resolve) =>
      signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })
    ),
    dispose: () => undefined
  }
}

/** The sandbox's network status, or why network faults are not available. */
export function networkStatusOf(sandbox: SandboxPort | null): NetworkStatusPayload {
  return (
    sandbox?.network?.() ?? {
      mode: 'loopback',
      faultsDisabled: 'network faults need the sandbox with rooms as namespaces',
      notice: null,
      links: [],
      faults: []
    }
  )
}

/** An operator's action handed to the run in progress; throws what went wrong, once recorded. */
async function operate(run: Run, fault: Parameters<Run['applyFault']>[0]): Promise<void> {
  const applied = await run.applyFault(fault, 'operator')
  if (!applied.report.ok) throw new Error(applied.report.error ?? `${fault.action} failed`)
}

/**
 * Boots a topology for a run and waits until every broker is registered with every name server;
 * a cancel during the boot stops the half-booted sandbox rather than waiting it out.
 */
export async function bootFor(
  sandbox: SandboxPort,
  topology: Topology,
  signal: AbortSignal | undefined,
  progress: (message: string) => void
): Promise<void> {
  const stopOnAbort = (): void => void sandbox.stop({ force: true }).catch(() => undefined)
  signal?.addEventListener('abort', stopOnAbort, { once: true })
  try {
    await sandbox.start(topology)
  } finally {
    signal?.removeEventListener('abort', stopOnAbort)
  }
  if (sandbox.waitForRegistration && !signal?.aborted) {
    progress('waiting for every broker to register with every name server')
    await sandbox.waitForRegistration({ timeoutMs: 90_000 })
  }
}
