import type { LoadedScenario } from '../../../common/scenario/run-plan'
import type { ScenarioReport } from '../../../common/scenario/schema'
import { systemClock } from '../../../main/services/clients/room-aware/ports'
import type { Recorder } from '../../../main/services/ledger/recorder'
import type { RunDeps } from '../../../main/services/engine/run/run'
import type { ScenarioDriverOptions } from '../../../main/services/engine/scenario-driver'
import { runScenario } from '../../../main/services/engine/scenario-driver'
import type { Sandbox } from '../../../main/services/sandbox/sandbox'
import type { WorkerFactory } from '../../../main/services/workers/client-fleet'
import { sandboxPlace, sourceWorkers } from '../../../main/services/workers/worker-launcher'

/** The headless driver on a test's sandbox: workers from source, progress on stderr. */
export interface Headless {
  deps: RunDeps
  run(loaded: LoadedScenario, opts?: ScenarioDriverOptions): Promise<ScenarioReport>
}

export function headless(
  recorder: Recorder,
  sandbox: Sandbox,
  dataDir: string,
  workers: WorkerFactory = sourceWorkers(sandboxPlace(sandbox, dataDir))
): Headless {
  const deps: RunDeps = { recorder, cluster: sandbox, workers, clock: systemClock }
  return {
    deps,
    run: (loaded, opts = {}) =>
      runScenario(deps, loaded, {
        ...opts,
        onOpen: (run) => {
          run.on('progress', (p) => process.stderr.write(`[${p.phase}] ${p.message}\n`))
          opts.onOpen?.(run)
        }
      })
  }
}
