import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import type { ScenarioReport } from '../../common/scenario/schema'
import type { LoadedScenario } from '../../common/scenario/run-plan'
import { plannedNodeActions } from '../../common/scenario/client-plan'
import { cliActionGate } from '../../common/topology/action-policy'
import { composeServices } from '../services/engine/compose'
import { bootFor } from '../services/engine/lab-control'
import { runScenario } from '../services/engine/scenario-driver'
import { loadScenarioFile, ScenarioFileError } from '../services/scenario/load-scenario'
import { formatScorecard } from '../services/scenario/scorecard'

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
 * sandbox, runs it, stops everything and prints a scorecard. Exit code 0 only when every gate
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
  const gate = cliActionGate(
    loaded.topology,
    plannedNodeActions(loaded.scenario, loaded.topology),
    options.allowActions ?? false
  )
  if (!gate.ok) {
    err.write(`scenario ${loaded.scenario.name} would touch your cluster: ${gate.message}\n`)
    return 2
  }
  const services = composeServices({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    sandbox: { attached: { allowActions: options.allowActions ?? false } }
  })
  const { sandbox } = services
  const t0 = performance.now()
  const stamp = (): string => `${((performance.now() - t0) / 1000).toFixed(1).padStart(6)}s`
  const log = (what: string, message: string): void => {
    err.write(`${stamp()} [${what}] ${message}
`)
  }
  sandbox.on('progress', (p) => log('sandbox', `${p.nodeId ? `${p.nodeId}: ` : ''}${p.message}`))
  let report: ScenarioReport
  try {
    log('sandbox', `starting topology ${loaded.topology.name}`)
    await bootFor(sandbox, loaded.topology, undefined, (m) => log('sandbox', m))
    report = await runScenario(services.runDeps(), loaded, {
      ...(options.createTopic ? { createTopic: true } : {}),
      onOpen: (run) => run.on('progress', (p) => log(p.phase, p.message))
    })
    if (options.report) {
      mkdirSync(dirname(resolve(options.report)), { recursive: true })
      writeFileSync(options.report, JSON.stringify(report, null, 2) + '\n')
    }
  } catch (e) {
    err.write(`scenario ${loaded.scenario.name} could not run: ${(e as Error).message}\n`)
    return 2
  } finally {
    // The run's sandbox is thrown away: its JVMs are killed rather than shut down one by one.
    await services.close({ force: true })
  }
  // The verdict comes last, once every node is stopped: CI reads it and the process exits at once.
  out.write(options.json ? JSON.stringify(report, null, 2) + '\n' : formatScorecard(report))
  return report.passed ? 0 : 1
}
