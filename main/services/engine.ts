import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse as parseYaml } from 'yaml'
import type { Handlers, NodeAction, NodeStatus } from '../../common/contract'
import type { Topology } from '../../common/topology'
import { lintTopology } from '../../common/lint'
import { reportSchema } from '../../common/scenario'
import { validateTopology } from '../../common/topology'
import {
  listBuiltinTopologies,
  parseText,
  readTopologyFile,
  writeTopologyFile
} from './documents/documents'
import { EngineEvents } from './events'
import { exportTopology } from './export'
import { latestResultsFromReports } from './export/results'
import { LedgerReader } from './ledger'
import type { Recorder } from './recorder'

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
  startedAt: number | null
  nodes: NodeStatus[]
}

/** What the engine needs from the sandbox orchestrator. */
export interface SandboxPort {
  start(topology: Topology, runId: number): Promise<SandboxStatus>
  stop(): Promise<SandboxStatus>
  status(): SandboxStatus
  act(nodeId: string, action: NodeAction): Promise<NodeStatus>
  readLog(nodeId: string, tailBytes: number): { path: string; text: string }
}

export interface EngineOptions {
  shell: 'electron' | 'browser'
  version: string
  dataDir: string
  resourcesDir: string
  recorder: Recorder
  dialogs?: DialogPort
  sandbox?: (events: EngineEvents) => SandboxPort
}

/** The composition of services behind every shell: one handler table, one event bus. */
export class Engine {
  readonly events = new EngineEvents()
  readonly handlers: Handlers
  private readonly sandbox: SandboxPort | null

  constructor(private readonly opts: EngineOptions) {
    this.sandbox = opts.sandbox ? opts.sandbox(this.events) : null
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
        const runId = recorder.startRun({
          kind: 'sandbox',
          topologyName: result.topology.name,
          topologyJson: JSON.stringify(result.topology)
        })
        try {
          return await sandbox.start(result.topology, runId)
        } catch (err) {
          recorder.endRun(runId, 'failed', { error: (err as Error).message })
          throw err
        }
      },
      'sandbox:stop': async () => {
        const sandbox = this.requireSandbox()
        const runId = sandbox.status().runId
        const status = await sandbox.stop()
        if (runId !== null) recorder.endRun(runId, 'stopped')
        return status
      },
      'sandbox:status': async () =>
        this.sandbox?.status() ?? { running: false, runId: null, startedAt: null, nodes: [] },
      'node:action': async ({ nodeId, action }) => this.requireSandbox().act(nodeId, action),
      'node:log': async ({ nodeId, tailBytes }) => this.requireSandbox().readLog(nodeId, tailBytes),
      'scenario:list': async () => this.listScenarios().map(({ path: _path, ...rest }) => rest),
      'scenario:run': async () => {
        throw new Error('scenario runs are not available in this build')
      },
      'scenario:cancel': async () => ({ cancelled: false }),
      'runs:list': async ({ limit }) => recorder.listRuns(limit),
      'runs:get': async ({ id }) => {
        const run = recorder.listRuns(100_000).find((r) => r.id === id)
        if (!run) throw new Error(`run ${id} does not exist (it may have been deleted)`)
        const reader = new LedgerReader(recorder.db)
        return {
          run,
          report: recorder.getRunReport(id),
          events: reader.events(id, { excludeKinds: ['counters'], limit: 5000 }),
          counters: reader.counters(id)
        }
      },
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
      }
    }
  }

  /** Stops everything the engine started; safe to call twice. */
  async dispose(): Promise<void> {
    if (this.sandbox?.status().running) await this.sandbox.stop().catch(() => undefined)
    this.opts.recorder.close()
  }
}
