import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse as parseYaml } from 'yaml'
import type { Handlers, NodeAction, NodeStatus } from '../../../common/contract'
import type { NetworkStatusPayload } from '../../../common/contract/sandbox'
import type { NetworkFault } from '../../../common/scenario/schema'
import type { Topology } from '../../../common/topology'
import { lintTopology } from '../../../common/lint'
import { reportSchema } from '../../../common/scenario'
import { validateTopology } from '../../../common/topology'
import {
  listBuiltinTopologies,
  parseText,
  readTopologyFile,
  writeTopologyFile
} from '../documents/documents'
import { EngineEvents } from './events'
import { discoverForApp } from '../attach/app-discover'
import { exportTopology } from '../export'
import { latestResultsFromReports } from '../export/results'
import { LedgerReader } from '../ledger'
import type { Recorder } from '../ledger'
import type { ClientChoice } from '../../../common/scenario/events'
import type { ScenarioReport } from '../../../common/scenario/schema'
import type { LoadedScenario } from '../scenario/load-scenario'
import { loadScenarioFile } from '../scenario/load-scenario'
import { ScenarioRunner } from '../scenario/scenario-runner'
import { hasClients, InteractiveSession } from './interactive-session'
import { masterNodeIds, toLiveChoice } from './live-choice'
import { getRunDetail } from './run-detail'
import type { ActionSession } from '../../../common/topology/action-policy'
import { afterConfirmation, needsConfirmation } from '../../../common/topology/action-policy'
import type { WorkerFactory } from '../workers/client-fleet'
import type { WorkerPlace } from '../workers/worker-launcher'
import { localWorkers } from '../workers/worker-launcher'
import { findAppPaths } from '../app-paths'

/** Native dialogs; only the Electron shell has them. */
export interface DialogPort {
  openFile(opts: {
    title?: string
    filters?: { name: string; extensions: string[] }[]
  }): Promise<string | null>
  saveFile(opts: {
    title?: string
    defaultPath?: string
    filters?: { name: string; extensions: string[] }[]
  }): Promise<string | null>
  chooseDirectory(opts: { title?: string }): Promise<string | null>
}

export interface SandboxStatus {
  running: boolean
  runId: number | null
  /** Folder of the running sandbox (its logs, the workers' logs). */
  runDir?: string | null
  startedAt: number | null
  nodes: NodeStatus[]
}

/** What the engine needs from the sandbox orchestrator. */
export interface SandboxPort {
  /** runId is absent when a scenario run boots the sandbox (the scenario has its own run). */
  start(topology: Topology, runId?: number): Promise<SandboxStatus>
  stop(): Promise<SandboxStatus>
  status(): SandboxStatus
  act(nodeId: string, action: NodeAction): Promise<NodeStatus>
  readLog(nodeId: string, tailBytes: number): { path: string; text: string }
  /** Resolves once every name server lists every broker (the real Sandbox has it). */
  waitForRegistration?(options?: { timeoutMs?: number }): Promise<unknown>
  /** Rooms as networks (the real Sandbox): status, faults, and where client workers run. */
  network?(): NetworkStatusPayload
  applyNetworkFault?(fault: NetworkFault): Promise<unknown>
  workerPrefix?(workerId: string): string[]
  /** Lets operator commands run on attached nodes (after the user confirmed). */
  allowOperatorActions?(allow: boolean): void
  /** The controller quorum of a controller-mode topology (the real Sandbox has it). */
  controllers?(): readonly { nodeId: string; room: string; address: string; selfId: string }[]
}

/** The scenario run in progress (one at a time). */
interface ActiveScenario {
  name: string
  ctrl: AbortController
  runId: number | null
  done: Promise<void>
}

/** Topologies equal for deployment purposes (canvas layout and wording ignored). */
export function sameDeployment(a: Topology, b: Topology): boolean {
  const strip = ({ layout: _l, description: _d, ...rest }: Topology): unknown => rest
  return JSON.stringify(strip(a)) === JSON.stringify(strip(b))
}

export interface EngineOptions {
  shell: 'electron' | 'browser'
  version: string
  dataDir: string
  resourcesDir: string
  recorder: Recorder
  dialogs?: DialogPort
  sandbox?: (events: EngineEvents) => SandboxPort
  /** Spawns client workers in the place the sandbox gives them (default: this app's workers). */
  workers?: (place: WorkerPlace) => WorkerFactory
}

/** The composition of services behind every shell: one handler table, one event bus. */
export class Engine {
  readonly events = new EngineEvents()
  readonly handlers: Handlers
  private readonly sandbox: SandboxPort | null
  /** What the sandbox runs, as far as the engine started it. */
  private sandboxTopology: Topology | null = null
  private session: InteractiveSession | null = null
  private scenario: ActiveScenario | null = null
  private readonly workers: WorkerFactory
  /** Whether the user confirmed running operator commands on an attached cluster this session. */
  private actionSession: ActionSession = { confirmed: false }

  constructor(private readonly opts: EngineOptions) {
    this.sandbox = opts.sandbox ? opts.sandbox(this.events) : null
    const place: WorkerPlace = {
      logDir: () => this.sandbox?.status().runDir ?? join(opts.dataDir, 'workers'),
      prefix: (id) => this.sandbox?.workerPrefix?.(id) ?? []
    }
    this.workers = opts.workers
      ? opts.workers(place)
      : localWorkers({ root: findAppPaths().root, preferBuilt: true, place })
    this.handlers = this.buildHandlers()
  }

  private requireSandbox(): SandboxPort {
    if (!this.sandbox) throw new Error('the sandbox is not available in this shell')
    return this.sandbox
  }

  private defaultTopologyPath(): string {
    return join(this.opts.resourcesDir, 'topologies', 'two-rooms.json')
  }

  private validOrThrow(document: unknown, action: string): Topology {
    const result = validateTopology(document)
    if (!result.ok) {
      throw new Error(
        `the topology has ${result.problems.length} problem(s); fix them before ${action}: ` +
          result.problems.map((p) => `${p.path}: ${p.message}`).join('; ')
      )
    }
    return result.topology
  }

  /** Built-in scenarios shipped in resources/scenarios. */
  listScenarios(): {
    id: string
    name: string
    description: string
    topology: string
    path: string
  }[] {
    const dir = join(this.opts.resourcesDir, 'scenarios')
    return readdirSync(dir)
      .filter((f) => f.endsWith('.yaml'))
      .sort()
      .map((f) => {
        const doc = (parseYaml(readFileSync(join(dir, f), 'utf8')) ?? {}) as Record<string, unknown>
        return {
          id: f.replace(/\.yaml$/, ''),
          name: typeof doc.name === 'string' ? doc.name : f,
          description: typeof doc.description === 'string' ? doc.description : '',
          topology: typeof doc.topology === 'string' ? doc.topology : '',
          path: join(dir, f)
        }
      })
  }

  private remember(path: string, name: string): void {
    this.events.emit('recent:changed', this.opts.recorder.touchRecent(path, name))
  }

  private buildHandlers(): Handlers {
    const { recorder, dialogs } = this.opts
    const unsupported = { path: null, unsupported: true }
    return {
      'app:info': async () => ({
        version: this.opts.version,
        shell: this.opts.shell,
        dataDir: this.opts.dataDir,
        platform: process.platform
      }),
      'dialog:open-file': async (input) =>
        dialogs ? { path: await dialogs.openFile(input) } : unsupported,
      'dialog:save-file': async (input) =>
        dialogs ? { path: await dialogs.saveFile(input) } : unsupported,
      'dialog:choose-directory': async (input) =>
        dialogs ? { path: await dialogs.chooseDirectory(input) } : unsupported,
      'settings:get': async () => recorder.getSettings(),
      'settings:set': async ({ key, value }) => {
        recorder.setSetting(key, value)
        return { ok: true as const }
      },
      'topology:default': async () => ({
        ...readTopologyFile(this.defaultTopologyPath()),
        path: null
      }),
      'topology:builtin': async () =>
        listBuiltinTopologies(this.opts.resourcesDir).map(({ id, name, description }) => ({
          id,
          name,
          description
        })),
      'topology:open-builtin': async ({ id }) => {
        const found = listBuiltinTopologies(this.opts.resourcesDir).find((t) => t.id === id)
        if (!found) throw new Error(`no built-in topology "${id}"`)
        // Built-ins open as untitled copies so Save never overwrites the shipped file.
        return { ...readTopologyFile(found.path), path: null }
      },
      'topology:open': async ({ path }) => {
        const opened = readTopologyFile(path)
        this.remember(path, opened.name)
        return opened
      },
      'topology:parse': async ({ text, name }) =>
        parseText(text, null, name.replace(/\.json$/i, '')),
      'topology:save': async ({ path, document }) => {
        const problems = writeTopologyFile(path, document)
        const name = (document as { name?: string } | null)?.name ?? 'untitled'
        this.remember(path, name)
        return { path, problems }
      },
      'topology:validate': async ({ document }) => {
        const result = validateTopology(document)
        return { problems: result.ok ? [] : result.problems }
      },
      'recent:list': async () => recorder.recentFiles(),
      'sandbox:start': async ({ document }) => {
        const result = validateTopology(document)
        if (!result.ok) {
          throw new Error(
            `the topology has ${result.problems.length} problem(s); fix them before starting: ` +
              result.problems.map((p) => `${p.path}: ${p.message}`).join('; ')
          )
        }
        const sandbox = this.requireSandbox()
        if (this.scenario) {
          throw new Error(
            `scenario "${this.scenario.name}" is using the sandbox; cancel it or wait for its report`
          )
        }
        const runId = recorder.startRun({
          kind: 'sandbox',
          topologyName: result.topology.name,
          topologyJson: JSON.stringify(result.topology)
        })
        let status: SandboxStatus
        try {
          status = await sandbox.start(result.topology, runId)
        } catch (err) {
          recorder.endRun(runId, 'failed', { error: (err as Error).message })
          throw err
        }
        this.sandboxTopology = result.topology
        if (hasClients(result.topology)) this.startSession(result.topology, runId)
        return status
      },
      'sandbox:stop': async () => {
        this.requireSandbox()
        if (this.scenario) await this.cancelScenario()
        return this.stopSandbox()
      },
      'sandbox:status': async () =>
        this.sandbox?.status() ?? { running: false, runId: null, startedAt: null, nodes: [] },
      'node:action': async ({ nodeId, action, confirmed }) =>
        this.nodeAction(nodeId, action, confirmed ?? false),
      'node:log': async ({ nodeId, tailBytes }) => this.requireSandbox().readLog(nodeId, tailBytes),
      'network:status': async () => this.networkStatus(),
      'network:action': async ({ fault }) => this.networkAction(fault),
      'scenario:list': async () => this.listScenarios().map(({ path: _path, ...rest }) => rest),
      'scenario:run': async ({ id, path }) => this.startScenario(id, path),
      'scenario:cancel': async () => ({ cancelled: await this.cancelScenario() }),
      'runs:list': async ({ limit }) => recorder.listRuns(limit),
      'runs:get': async (input) => getRunDetail(recorder, input),
      'runs:delete': async ({ id }) => {
        const deleted = recorder.deleteRun(id)
        this.events.emit('runs:changed', { runId: id })
        return { deleted }
      },
      'runs:export': async ({ id }) => {
        const run = recorder.listRuns(100_000).find((r) => r.id === id)
        if (!run) throw new Error(`run ${id} does not exist`)
        const reader = new LedgerReader(recorder.db)
        const json = JSON.stringify(
          {
            kind: 'drstudio/run-export',
            version: 1,
            run,
            report: recorder.getRunReport(id),
            events: reader.events(id, {}),
            loss: reader.lossSummary(id)
          },
          null,
          2
        )
        const stamp = new Date(run.startedAt).toISOString().replace(/[:.]/g, '-')
        return { fileName: `drstudio-run-${id}-${run.topologyName}-${stamp}.json`, json }
      },
      'topology:export': async ({ document, outDir }) => {
        const topology = this.validOrThrow(document, 'exporting')
        const reports = recorder.scenarioReports(topology.name).flatMap((r) => {
          const parsed = reportSchema.safeParse(r)
          return parsed.success ? [parsed.data] : []
        })
        const results = reports.length ? latestResultsFromReports(topology.name, reports) : null
        return { outDir, files: exportTopology(topology, { outDir, results }).files }
      },
      'topology:lint': async ({ document }) => {
        const result = validateTopology(document)
        return { findings: result.ok ? lintTopology(result.topology) : [] }
      },
      // Connect to cluster…: reads the operator's cluster; the renderer opens the result untitled.
      'cluster:discover': async (input) =>
        discoverForApp(input, (p) => this.events.emit('cluster:discover-progress', p))
    }
  }

  private notice(level: 'info' | 'warning' | 'error', message: string): void {
    this.events.emit('engine:notice', { level, message })
  }

  /** Forwards a client's choice as `client:choice`, with topology node ids for the canvas. */
  private choiceForwarder(
    topology: Topology,
    runId: () => number | null
  ): (c: ClientChoice) => void {
    const masters = masterNodeIds(topology)
    return (c) => this.events.emit('client:choice', toLiveChoice(c, masters, runId()))
  }

  private emitReport(report: ScenarioReport): void {
    this.events.emit('scenario:report', { report })
    this.events.emit('runs:changed', { runId: report.runId })
  }

  /** Runs the topology's own clients on the sandbox run, in the background. */
  private startSession(topology: Topology, runId: number): void {
    const sandbox = this.requireSandbox()
    const session = new InteractiveSession({
      recorder: this.opts.recorder,
      workers: this.workers,
      runId,
      topology,
      cluster: sandbox
    })
    session.on('progress', (p) => this.events.emit('scenario:progress', p))
    session.on('ledger-event', (e) => this.events.emit('ledger:event', e))
    session.on('metrics', (m) => this.events.emit('live:metrics', m))
    session.on(
      'choice',
      this.choiceForwarder(topology, () => runId)
    )
    session.on('failure', (e) =>
      this.notice('error', `the topology's clients could not start: ${e.message}`)
    )
    this.session = session
    session.begin()
  }

  /** Ends the interactive session (drain + report) if any, then stops the sandbox. */
  private async stopSandbox(): Promise<SandboxStatus> {
    const sandbox = this.requireSandbox()
    const { recorder } = this.opts
    const runId = sandbox.status().runId
    const session = this.session
    this.session = null
    // A new session asks again before running the operator's commands.
    this.actionSession = { confirmed: false }
    sandbox.allowOperatorActions?.(false)
    if (session) {
      try {
        this.emitReport(await session.stop())
      } catch (e) {
        recorder.endRun(session.runId, 'failed', { error: (e as Error).message })
        this.events.emit('runs:changed', { runId: session.runId })
        this.notice('error', `the session report could not be built: ${(e as Error).message}`)
      }
    }
    const status = await sandbox.stop()
    this.sandboxTopology = null
    if (runId !== null && !session) {
      recorder.endRun(runId, 'stopped')
      this.events.emit('runs:changed', { runId })
    }
    return status
  }

  /** Acts on a sandbox node (or a session client) and records it as a fault of the live session. */
  private async nodeAction(
    nodeId: string,
    action: NodeAction,
    confirmed: boolean
  ): Promise<NodeStatus> {
    const sandbox = this.requireSandbox()
    const session = this.session
    if (session?.clientIds.includes(nodeId)) return session.actOnClient(nodeId, action)
    this.gateOperatorAction(nodeId, action, confirmed)
    // A fault is stamped when it began: a kill waits for the process to go.
    const startedAt = performance.timeOrigin + performance.now()
    try {
      const status = await sandbox.act(nodeId, action)
      session?.recordFault(action, [nodeId], undefined, undefined, startedAt)
      return status
    } catch (e) {
      session?.recordFault(action, [nodeId], (e as Error).message, undefined, startedAt)
      throw e
    }
  }

  /**
   * On an attached cluster the first destructive action of a session runs only once the user
   * confirmed it (the renderer asks with the command shown); later ones of the session do not ask.
   */
  private gateOperatorAction(nodeId: string, action: NodeAction, confirmed: boolean): void {
    const node = this.sandbox?.status().nodes.find((n) => n.nodeId === nodeId)
    if (!node?.attached) return
    if (needsConfirmation(action, this.actionSession) && !confirmed) {
      throw new Error(
        `${action} ${nodeId} runs your own command on a cluster DR Studio does not own; confirm it first`
      )
    }
    if (confirmed) this.actionSession = afterConfirmation(this.actionSession, action, 'confirm')
    this.sandbox?.allowOperatorActions?.(this.actionSession.confirmed)
  }

  private networkStatus(): NetworkStatusPayload {
    return (
      this.sandbox?.network?.() ?? {
        mode: 'loopback',
        faultsDisabled: 'network faults need the sandbox with rooms as namespaces',
        notice: null,
        links: [],
        faults: []
      }
    )
  }

  /** A network fault or heal from the canvas, recorded as a fault of the live session. */
  private async networkAction(fault: NetworkFault): Promise<NetworkStatusPayload> {
    const sandbox = this.requireSandbox()
    const named = [
      ...('target' in fault && fault.target ? [fault.target] : []),
      ...('peer' in fault && fault.peer ? [fault.peer] : [])
    ]
    const startedAt = performance.timeOrigin + performance.now()
    try {
      if (!sandbox.applyNetworkFault)
        throw new Error(this.networkStatus().faultsDisabled ?? 'no network lab')
      await sandbox.applyNetworkFault(fault)
      this.session?.recordFault(fault.action, named, undefined, fault, startedAt)
    } catch (e) {
      this.session?.recordFault(fault.action, named, (e as Error).message, fault, startedAt)
      throw e
    }
    return this.networkStatus()
  }

  private async startScenario(
    id: string | undefined,
    path: string | undefined
  ): Promise<{ started: true; scenario: string }> {
    this.requireSandbox()
    if (this.scenario) {
      throw new Error(
        `scenario "${this.scenario.name}" is already running; cancel it or wait for its report`
      )
    }
    let file = path
    if (id !== undefined) {
      const all = this.listScenarios()
      file = all.find((s) => s.id === id)?.path
      if (!file) {
        throw new Error(
          `no built-in scenario "${id}"; choose one of ${all.map((s) => s.id).join(', ')}`
        )
      }
    }
    const loaded = loadScenarioFile(file!, { resourcesDir: this.opts.resourcesDir })
    const name = loaded.scenario.name
    const ctrl = new AbortController()
    const active: ActiveScenario = { name, ctrl, runId: null, done: Promise.resolve() }
    this.scenario = active
    this.events.emit('scenario:state', { running: true, scenario: name, runId: null })
    active.done = this.runScenario(loaded, active)
    return { started: true, scenario: name }
  }

  /** Boots the scenario's topology when needed, runs it, and always ends with `scenario:state`. */
  private async runScenario(loaded: LoadedScenario, active: ActiveScenario): Promise<void> {
    const signal = active.ctrl.signal
    const t0 = Date.now()
    try {
      await this.ensureSandbox(loaded.topology, signal, (message) =>
        this.events.emit('scenario:progress', {
          runId: null,
          phase: 'setup',
          message,
          atMs: Date.now() - t0
        })
      )
      if (signal.aborted) throw new Error('cancelled before the run started')
      const runner = new ScenarioRunner({ recorder: this.opts.recorder, workers: this.workers })
      runner.on('progress', (p) => {
        if (active.runId === null && p.runId !== null) {
          active.runId = p.runId
          this.events.emit('scenario:state', {
            running: true,
            scenario: active.name,
            runId: p.runId
          })
        }
        this.events.emit('scenario:progress', p)
      })
      runner.on('ledger-event', (e) => this.events.emit('ledger:event', e))
      runner.on('metrics', (m) => this.events.emit('live:metrics', m))
      runner.on(
        'choice',
        this.choiceForwarder(loaded.topology, () => runner.currentRunId)
      )
      // A live interactive session on the same sandbox sees the scenario's faults too.
      // (Observations of attached nodes each run records itself.)
      runner.on('fault', (f) => {
        if (f.action === 'observed-down' || f.action === 'observed-up') return
        this.session?.recordFault(f.action, f.nodes, f.error)
      })
      runner.on('report', (r) => this.emitReport(r))
      await runner.run(loaded, this.requireSandbox(), { signal })
    } catch (e) {
      const message = (e as Error).message
      if (signal.aborted) this.notice('info', `scenario "${active.name}" cancelled`)
      else this.notice('error', `scenario "${active.name}" failed: ${message}`)
      this.events.emit('runs:changed', { runId: active.runId })
    } finally {
      this.scenario = null
      this.events.emit('scenario:state', {
        running: false,
        scenario: active.name,
        runId: active.runId
      })
    }
  }

  /** Makes the sandbox run `topology`: reuses a matching one, else (re)starts it and waits for registration. */
  private async ensureSandbox(
    topology: Topology,
    signal: AbortSignal,
    progress: (message: string) => void
  ): Promise<void> {
    const sandbox = this.requireSandbox()
    const running = sandbox.status().running
    if (running && this.sandboxTopology && sameDeployment(this.sandboxTopology, topology)) return
    if (running) {
      progress(`stopping the sandbox to run topology ${topology.name}`)
      await this.stopSandbox()
    }
    if (signal.aborted) return
    progress(`starting the sandbox with topology ${topology.name}`)
    // Cancel during the boot stops the half-booted sandbox rather than waiting it out.
    const stopOnAbort = (): void => void sandbox.stop().catch(() => undefined)
    signal.addEventListener('abort', stopOnAbort, { once: true })
    try {
      await sandbox.start(topology)
    } finally {
      signal.removeEventListener('abort', stopOnAbort)
    }
    this.sandboxTopology = topology
    if (sandbox.waitForRegistration && !signal.aborted) {
      progress('waiting for every broker to register with every name server')
      await sandbox.waitForRegistration({ timeoutMs: 90_000 })
    }
  }

  /** Aborts the scenario run in progress and waits for it to wind down. */
  private async cancelScenario(): Promise<boolean> {
    const active = this.scenario
    if (!active) return false
    active.ctrl.abort()
    await active.done
    return true
  }

  /** Stops everything the engine started; safe to call twice. */
  async dispose(): Promise<void> {
    await this.cancelScenario().catch(() => undefined)
    const session = this.session
    this.session = null
    if (session) {
      await session.abort().catch(() => undefined)
      this.opts.recorder.endRun(session.runId, 'stopped')
    }
    if (this.sandbox?.status().running) await this.sandbox.stop().catch(() => undefined)
    this.sandboxTopology = null
    this.opts.recorder.close()
  }
}
