import { join } from 'node:path'
import type { Handlers } from '../../../common/contract'
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
import type { Recorder } from '../ledger'
import type { Clock } from '../clients/room-aware/ports'
import { systemClock } from '../clients/room-aware/ports'
import { loadScenarioFile } from '../scenario/load-scenario'
import { builtinScenarioFile, listBuiltinScenarios } from '../scenario/scenario-catalog'
import { exportRun, getRunDetail } from './run-detail'
import { LabControl, networkStatusOf } from './lab-control'
import type { SandboxPort } from './sandbox-port'
import { readContexts } from '../kubernetes/kubeconfig'
import { runScenarioOnKubernetes } from '../kubernetes/kube-scenario'
import type { WorkerFactory } from '../workers/client-fleet'
import type { RunMetrics } from '../metrics/run-metrics'
import { runReportHtml } from '../report-html/run-report-html'
import { planSweep } from '../sweep/sweep'

export type { SandboxPort, SandboxStatus } from './sandbox-port'
export { sameDeployment } from './lab-control'

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

export interface EngineOptions {
  shell: 'electron' | 'browser'
  version: string
  dataDir: string
  resourcesDir: string
  recorder: Recorder
  dialogs?: DialogPort
  sandbox?: (events: EngineEvents) => SandboxPort
  /** The composed client workers (compose.ts places them in the sandbox's rooms); runs need them. */
  workers?: WorkerFactory
  clock?: Clock
  /** Prometheus metrics every run feeds (served when the shell was asked to, DRSTUDIO_METRICS). */
  metrics?: RunMetrics
}

/** The composition of services behind every shell: one handler table, one event bus. */
export class Engine {
  readonly events = new EngineEvents()
  readonly handlers: Handlers
  private readonly sandbox: SandboxPort | null
  /** Start/Stop, node and network actions and scenarios on the sandbox (absent without one). */
  private readonly lab: LabControl | null

  constructor(private readonly opts: EngineOptions) {
    this.sandbox = opts.sandbox ? opts.sandbox(this.events) : null
    const workers: WorkerFactory =
      opts.workers ??
      (() => {
        throw new Error('this engine has no client workers: build it with composeServices()')
      })
    this.lab = this.sandbox
      ? new LabControl({
          sandbox: this.sandbox,
          recorder: opts.recorder,
          workers,
          clock: opts.clock ?? systemClock,
          events: this.events,
          ...(opts.metrics ? { metrics: opts.metrics } : {}),
          kubernetes: (loaded, target, hooks) =>
            runScenarioOnKubernetes(
              loaded,
              {
                context: target.context,
                ...(target.namespace ? { namespace: target.namespace } : {}),
                recorder: opts.recorder,
                logRoot: opts.dataDir,
                liveMetrics: true,
                onOpen: hooks.onOpen,
                ...(opts.metrics ? { metrics: opts.metrics } : {})
              },
              hooks.log,
              hooks.stop
            )
        })
      : null
    this.handlers = this.buildHandlers()
  }

  private requireSandbox(): SandboxPort {
    if (!this.sandbox) throw new Error('the sandbox is not available in this shell')
    return this.sandbox
  }

  private requireLab(): LabControl {
    if (!this.lab) throw new Error('the sandbox is not available in this shell')
    return this.lab
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
      'sandbox:start': async ({ document }) =>
        this.requireLab().startSandbox(this.validOrThrow(document, 'starting')),
      'sandbox:stop': async () => this.requireLab().stopSandbox(),
      'sandbox:status': async () =>
        this.sandbox?.status() ?? { running: false, runId: null, startedAt: null, nodes: [] },
      'node:action': async ({ nodeId, action, confirmed }) =>
        this.requireLab().nodeAction(nodeId, action, confirmed ?? false),
      'node:log': async ({ nodeId, tailBytes }) => this.requireSandbox().readLog(nodeId, tailBytes),
      'network:status': async () => networkStatusOf(this.sandbox),
      'network:action': async ({ fault }) => this.requireLab().networkAction(fault),
      'scenario:list': async () =>
        listBuiltinScenarios(this.opts.resourcesDir).map(({ path: _path, ...rest }) => rest),
      'scenario:run': async ({ id, path, vary, runs, target }) => {
        const lab = this.requireLab()
        const file = id !== undefined ? builtinScenarioFile(this.opts.resourcesDir, id) : path!
        const loaded = loadScenarioFile(file, { resourcesDir: this.opts.resourcesDir })
        return lab.startScenario(loaded, vary ? planSweep(loaded, vary, runs) : undefined, target)
      },
      'kubernetes:contexts': async () => readContexts(),
      'scenario:cancel': async () => ({ cancelled: (await this.lab?.cancelScenario()) ?? false }),
      'runs:list': async ({ limit }) => recorder.listRuns(limit),
      'runs:get': async (input) => getRunDetail(recorder, input),
      'runs:delete': async ({ id }) => {
        const deleted = recorder.deleteRun(id)
        this.events.emit('runs:changed', { runId: id })
        return { deleted }
      },
      'runs:export': async ({ id }) => exportRun(recorder, id),
      'runs:export-html': async ({ id }) => ({
        fileName: `drstudio-run-${id}.html`,
        html: runReportHtml(recorder, id)
      }),
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

  /** Stops everything the engine started; safe to call twice. */
  async dispose(): Promise<void> {
    await this.lab?.dispose()
    this.opts.recorder.close()
  }
}
