import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { AppPaths, NodeRuntimeCommand } from '../app-paths'
import { findAppPaths, nodeRuntimeCommand } from '../app-paths'
import type { Clock } from '../clients/room-aware/ports'
import { systemClock } from '../clients/room-aware/ports'
import { defaultDataDir } from '../ledger/data-dir'
import { openDatabase, Recorder } from '../ledger/recorder'
import type { ManagementCommand, SandboxOptions } from '../sandbox/sandbox'
import { Sandbox } from '../sandbox/sandbox'
import { machineSandboxOptions } from '../sandbox/machine-sandbox'
import type { WorkerFactory } from '../workers/client-fleet'
import type { WorkerPlace } from '../workers/worker-launcher'
import { localWorkers, sandboxPlace } from '../workers/worker-launcher'
import type { RunMetrics } from '../metrics/run-metrics'
import type { RunDeps } from './run/run'

/**
 * Management nodes run from the built CLI when it exists (packaged app, `npm run build`), else from
 * source. Under Electron the runtime carries ELECTRON_RUN_AS_NODE=1 (see nodeRuntimeCommand).
 */
export function managementCommandFor(
  paths: AppPaths,
  runtime: NodeRuntimeCommand = nodeRuntimeCommand()
): ManagementCommand | undefined {
  const cli = join(paths.root, 'out', 'cli', 'drstudio.mjs')
  if (!existsSync(cli)) return undefined
  return (configFile) => ({
    command: runtime.command,
    args: [cli, 'mgmt', '--config', configFile],
    cwd: paths.root,
    env: { ...runtime.env }
  })
}

export interface ComposeOptions {
  /** Where the app is installed (default: found from this file). */
  paths?: AppPaths
  /** The data folder: the ledger and the sandbox's runs (default: the OS's app data folder). */
  dataDir?: string
  /**
   * Management nodes and room workers from this checkout's TypeScript source rather than the
   * built CLI: tests and benchmarks run what they see.
   */
  fromSource?: boolean
  /** Rooms as network namespaces where the OS allows (default true); false keeps loopback. */
  machineNetwork?: boolean
  /** Sandbox options over the composed ones (attached-cluster actions, a test's spawner…). */
  sandbox?: Partial<SandboxOptions>
  /** How client workers are spawned (default: this install's, built when present). */
  workers?: (place: WorkerPlace) => WorkerFactory
  clock?: Clock
  /** The Prometheus metrics every run of these services feeds (served by a MetricsServer). */
  metrics?: RunMetrics
}

/** The services every shell and command runs on, built one way. */
export interface Services {
  paths: AppPaths
  dataDir: string
  recorder: Recorder
  sandbox: Sandbox
  workers: WorkerFactory
  clock: Clock
  /** What a run needs, on this sandbox. */
  runDeps(): RunDeps
  /**
   * Stops the sandbox (if running) and closes the ledger; safe to call twice. `force` kills the
   * JVMs at once instead of shutting them down (a command whose sandbox is thrown away).
   */
  close(opts?: { force?: boolean }): Promise<void>
}

/**
 * The composition root shared by the Electron shell, the browser shell, the CLI and the
 * benchmarks: the ledger (with runs a crash left open closed as interrupted), the sandbox with this
 * machine's network lab and the user's Java and RocketMQ settings, and the client workers placed in
 * the sandbox's rooms.
 */
export function composeServices(opts: ComposeOptions = {}): Services {
  const paths = opts.paths ?? findAppPaths()
  const dataDir = opts.dataDir ?? defaultDataDir()
  const clock = opts.clock ?? systemClock
  const recorder = new Recorder(openDatabase(join(dataDir, 'drstudio.db')))
  recorder.closeInterruptedRuns()
  const settings = recorder.getSettings()
  const text = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined)
  const managementCommand = opts.fromSource ? undefined : managementCommandFor(paths)
  const sandbox = new Sandbox({
    dataDir,
    repoRoot: paths.root,
    ...(text(settings.rocketmqHome) ? { rocketmqHome: text(settings.rocketmqHome) } : {}),
    ...(text(settings.javaHome) ? { javaHome: text(settings.javaHome) } : {}),
    ...(managementCommand ? { managementCommand } : {}),
    ...(opts.machineNetwork === false ? {} : machineSandboxOptions(paths.root)),
    ...opts.sandbox
  })
  const place = sandboxPlace(sandbox, join(dataDir, 'workers'))
  const workers = opts.workers
    ? opts.workers(place)
    : localWorkers({ root: paths.root, preferBuilt: !opts.fromSource, place })
  let closed: Promise<void> | undefined
  return {
    paths,
    dataDir,
    recorder,
    sandbox,
    workers,
    clock,
    runDeps: () => ({
      recorder,
      cluster: sandbox,
      workers,
      clock,
      ...(opts.metrics ? { metrics: opts.metrics } : {})
    }),
    close: (o = {}) =>
      (closed ??= (async () => {
        if (sandbox.status().running) await sandbox.stop(o).catch(() => undefined)
        recorder.close()
      })())
  }
}
