import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { defaultDataDir } from '../services/ledger/data-dir'
import { openDatabase, Recorder } from '../services/ledger/recorder'
import { Sandbox } from '../services/sandbox/sandbox'
import { machineSandboxOptions } from '../services/sandbox/machine-sandbox'
import { managementCommandFor } from '../services/engine/create-engine'
import type { LoadedScenario } from '../services/scenario/load-scenario'
import { loadScenarioFile, ScenarioFileError } from '../services/scenario/load-scenario'
import { ScenarioRunner } from '../services/scenario/scenario-runner'
import { findAppPaths } from '../services/app-paths'
import { localWorkers, sandboxPlace } from '../services/workers/worker-launcher'
import { formatScorecard } from '../services/scenario/scorecard'
import type { PlannedAction } from '../../common/topology/action-policy'
import { cliActionGate } from '../../common/topology/action-policy'
import { planClients, targetNodes } from '../services/scenario/plan'
import { isNetworkStep } from '../../common/scenario/schema'
import { resolveTarget } from '../../common/scenario/selectors'

export interface ScenarioCommandOptions {
  /** Write the report JSON here. */
  report?: string
  /** Print the report JSON instead of the scorecard. */
  json?: boolean
  dataDir?: string
  /** On an attached cluster: run the operator commands the timeline needs. */
  allowActions?: boolean
  /** On an attached cluster: create the run's topic if missing. */
  createTopic?: boolean
  stdout?: NodeJS.WritableStream
  stderr?: NodeJS.WritableStream
}

/**
 * `drstudio scenario run <file> [--report out.json] [--json]`: boots the scenario's topology in the
 * sandbox, runs it, prints a scorecard and stops everything. Exit code 0 only when every gate
 * passed, 1 when a gate failed, 2 when the scenario could not run.
 */
export async function runScenarioCommand(
  file: string,
  options: ScenarioCommandOptions = {}
): Promise<number> {
  const out = options.stdout ?? process.stdout
  const err = options.stderr ?? process.stderr
  let loaded: LoadedScenario
  try {
    loaded = loadScenarioFile(resolve(file))
  } catch (e) {
    err.write(
      `${e instanceof ScenarioFileError ? e.message : `cannot load ${file}: ${(e as Error).message}`}\n`
    )
    return 2
  }
  const gate = cliActionGate(loaded.topology, plannedActions(loaded), options.allowActions ?? false)
  if (!gate.ok) {
    err.write(`scenario ${loaded.scenario.name} would touch your cluster: ${gate.message}\n`)
    return 2
  }
  const dataDir = options.dataDir ?? defaultDataDir()
  const recorder = new Recorder(openDatabase(join(dataDir, 'drstudio.db')))
  const paths = findAppPaths()
  const sandbox = new Sandbox({
    dataDir,
    repoRoot: paths.root,
    managementCommand: managementCommandFor(paths),
    attached: { allowActions: options.allowActions ?? false },
    ...machineSandboxOptions(paths.root)
  })
  const runner = new ScenarioRunner({
    recorder,
    ...(options.createTopic ? { createTopic: true } : {}),
    workers: localWorkers({
      root: paths.root,
      preferBuilt: true,
      place: sandboxPlace(sandbox, dataDir)
    })
  })
  const t0 = performance.now()
  const stamp = (): string => `${((performance.now() - t0) / 1000).toFixed(1).padStart(6)}s`
  sandbox.on('progress', (p) =>
    err.write(`${stamp()} [sandbox] ${p.nodeId ? `${p.nodeId}: ` : ''}${p.message}\n`)
  )
  runner.on('progress', (p) => err.write(`${stamp()} [${p.phase}] ${p.message}\n`))
  try {
    err.write(`${stamp()} [sandbox] starting topology ${loaded.topology.name}\n`)
    await sandbox.start(loaded.topology)
    const report = await runner.run(loaded, sandbox)
    if (options.report) {
      mkdirSync(dirname(resolve(options.report)), { recursive: true })
      writeFileSync(options.report, JSON.stringify(report, null, 2) + '\n')
    }
    out.write(options.json ? JSON.stringify(report, null, 2) + '\n' : formatScorecard(report))
    return report.passed ? 0 : 1
  } catch (e) {
    err.write(`scenario ${loaded.scenario.name} could not run: ${(e as Error).message}\n`)
    return 2
  } finally {
    await sandbox.stop().catch(() => undefined)
    recorder.close()
  }
}

/** The node actions a scenario's timeline will take, resolved to node ids (for the attached gate). */
function plannedActions(loaded: LoadedScenario): PlannedAction[] {
  const nodes = targetNodes(loaded.topology, planClients(loaded.scenario, loaded.topology))
  return loaded.scenario.timeline.flatMap((step) => {
    if (isNetworkStep(step)) return []
    const r = resolveTarget(step.target, nodes)
    if (!r.ok) return []
    return r.nodes
      .filter((n) => n.kind !== 'producer' && n.kind !== 'consumer')
      .map((n) => ({ action: step.action, nodeId: n.id }))
  })
}
