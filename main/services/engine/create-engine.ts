import type { DialogPort } from './engine'
import { Engine } from './engine'
import type { AppPaths } from '../app-paths'
import { forwardSandboxEvents } from '../sandbox/engine-bridge'
import type { ComposeOptions } from './compose'
import { composeServices } from './compose'
import type { RunMetrics } from '../metrics/run-metrics'

/** The engine behind the Electron shell and the browser shell, on the composed services. */
export function createEngine(opts: {
  shell: 'electron' | 'browser'
  paths: AppPaths
  dataDir?: string
  dialogs?: DialogPort
  /** Prometheus metrics the runs feed (the shell serves them: DRSTUDIO_METRICS). */
  metrics?: RunMetrics
  /** Sandbox settings over the defaults (a benchmark's baseline). */
  sandbox?: ComposeOptions['sandbox']
}): Engine {
  const services = composeServices({
    paths: opts.paths,
    ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
    ...(opts.sandbox ? { sandbox: opts.sandbox } : {})
  })
  return new Engine({
    shell: opts.shell,
    version: opts.paths.version,
    dataDir: services.dataDir,
    resourcesDir: opts.paths.resourcesDir,
    recorder: services.recorder,
    ...(opts.dialogs ? { dialogs: opts.dialogs } : {}),
    clock: services.clock,
    workers: services.workers,
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
    sandbox: (events) => {
      forwardSandboxEvents(services.sandbox, events)
      return services.sandbox
    }
  })
}
