import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { DialogPort } from './engine'
import { Engine } from './engine'
import type { AppPaths, NodeRuntimeCommand } from '../app-paths'
import { nodeRuntimeCommand } from '../app-paths'
import { defaultDataDir, openDatabase, Recorder } from '../ledger'
import type { ManagementCommand } from '../sandbox'
import { sandboxForEngine } from '../sandbox'
import { localWorkers } from '../workers/worker-launcher'
import { machineSandboxOptions } from '../sandbox/machine-sandbox'

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

/** Composition root shared by the Electron shell, the browser shell and the CLI. */
export function createEngine(opts: {
  shell: 'electron' | 'browser'
  paths: AppPaths
  dataDir?: string
  dialogs?: DialogPort
}): Engine {
  const dataDir = opts.dataDir ?? defaultDataDir()
  const recorder = new Recorder(openDatabase(join(dataDir, 'drstudio.db')))
  recorder.closeInterruptedRuns()
  const settings = recorder.getSettings()
  return new Engine({
    shell: opts.shell,
    version: opts.paths.version,
    dataDir,
    resourcesDir: opts.paths.resourcesDir,
    recorder,
    dialogs: opts.dialogs,
    workers: (place) => localWorkers({ root: opts.paths.root, preferBuilt: true, place }),
    sandbox: sandboxForEngine({
      dataDir,
      repoRoot: opts.paths.root,
      rocketmqHome: typeof settings.rocketmqHome === 'string' ? settings.rocketmqHome : undefined,
      javaHome: typeof settings.javaHome === 'string' ? settings.javaHome : undefined,
      managementCommand: managementCommandFor(opts.paths),
      ...machineSandboxOptions(opts.paths.root)
    })
  })
}
