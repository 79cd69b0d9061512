import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import type { ScenarioReport } from '../../common/scenario/schema'
import type { LoadedScenario } from '../../common/scenario/run-plan'
import { plannedNodeActions } from '../../common/scenario/client-plan'
import { cliActionGate } from '../../common/topology/action-policy'
import { composeServices } from '../services/engine/compose'
import { bootFor } from '../services/engine/lab-control'
import { runScenario } from '../services/engine/scenario-driver'
import type { ScenarioOutcome } from '../services/scenario/junit'
import { combinedExitCode, EXIT_CODES, junitXml } from '../services/scenario/junit'
import { loadScenarioFile, ScenarioFileError } from '../services/scenario/load-scenario'
import { formatScorecard } from '../services/scenario/scorecard'
import type { KubernetesTargetOptions } from '../services/kubernetes/deployed-topology'
import { runScenarioOnKubernetes } from '../services/kubernetes/kube-scenario'
import { defaultDataDir } from '../services/ledger/data-dir'
import { openDatabase, Recorder } from '../services/ledger/recorder'
import { processStopSignal } from './stop-signal'
import type { RunMetrics } from '../services/metrics/run-metrics'
import type { MetricsEndpoint } from '../services/metrics/metrics-endpoint'
import { serveMetrics } from '../services/metrics/metrics-endpoint'

export interface ScenarioCommandOptions {
  /** Write the report JSON here: a file for one scenario, a folder (one `<name>.json` each) for several. */
  report?: string
  /** Print the report JSON instead of the scorecard (an array for several scenarios). */
  json?: boolean
  /** Write a JUnit XML file of every scenario's gates and verdict. */
  junit?: string
  dataDir?: string
  /** On an attached cluster: run the operator commands the timeline needs. */
  allowActions?: boolean
  /** On an attached cluster: create the run's topic if missing. */
  createTopic?: boolean
  /** Serve live Prometheus metrics of the runs here (`127.0.0.1:PORT`) while the command lasts. */
  metrics?: string
  /** Run on a Kubernetes cluster (a kubeconfig context) instead of this machine's sandbox. */
  kubernetes?: KubernetesTargetOptions & { readyTimeoutS?: number; faultTimeoutS?: number }
  stdout?: NodeJS.WritableStream
  stderr?: NodeJS.WritableStream
}

/**
 * The scenario files a command line names: files as given, folders as their `*.yaml` / `*.yml`
 * files in name order. Throws naming the argument that is neither.
 */
export function scenarioFiles(targets: readonly string[]): string[] {
  const files: string[] = []
  for (const t of targets) {
    const path = resolve(t)
    if (!existsSync(path)) throw new Error(`${t}: no such file or folder`)
    if (!statSync(path).isDirectory()) {
      files.push(path)
      continue
    }
    const inside = readdirSync(path)
      .filter((f) => /\.ya?ml$/.test(f))
      .sort()
      .map((f) => join(path, f))
    if (inside.length === 0) throw new Error(`${t}: the folder holds no scenario (*.yaml) file`)
    files.push(...inside)
  }
  if (files.length === 0) throw new Error('name at least one scenario file or folder')
  return files
}

/**
 * `drstudio scenario run <file|folder>… [--report out] [--json] [--junit out.xml]`: for each
 * scenario in turn, boots its topology in the sandbox, runs it, stops everything and prints a
 * scorecard. Exit code (see EXIT_CODES): 0 every gate of every scenario passed, 1 a gate failed,
 * 2 a run could not be made, 3 an abort block stopped one; several scenarios take the most serious.
 */
export async function runScenarioCommand(
  targets: string | readonly string[],
  options: ScenarioCommandOptions = {}
): Promise<number> {
  const out = options.stdout ?? process.stdout
  const err = options.stderr ?? process.stderr
  const startedAt = new Date()
  let files: string[]
  try {
    files = scenarioFiles(typeof targets === 'string' ? [targets] : targets)
  } catch (e) {
    err.write(`${(e as Error).message}\n`)
    return EXIT_CODES.notRun
  }
  let endpoint: MetricsEndpoint | null = null
  try {
    endpoint = options.metrics ? await serveMetrics(options.metrics, options.dataDir, err) : null
  } catch (e) {
    err.write(`${(e as Error).message}\n`)
    return EXIT_CODES.notRun
  }
  const outcomes: ScenarioOutcome[] = []
  try {
    for (const file of files) {
      const o = await runOne(file, options, err, endpoint?.metrics)
      outcomes.push(o)
      if (o.kind !== 'ran') continue
      if (options.report) writeReport(options.report, o.report, files.length > 1)
      // The verdict comes once every node is stopped: CI reads it and the process exits at once.
      if (!options.json) out.write(formatScorecard(o.report))
    }
  } finally {
    await endpoint?.close()
  }
  if (options.json) {
    const reports = outcomes.flatMap((o) => (o.kind === 'ran' ? [o.report] : []))
    out.write(JSON.stringify(files.length > 1 ? reports : reports[0], null, 2) + '\n')
  }
  if (options.junit) {
    mkdirSync(dirname(resolve(options.junit)), { recursive: true })
    writeFileSync(options.junit, junitXml(outcomes, startedAt))
  }
  return combinedExitCode(outcomes)
}

function writeReport(target: string, report: ScenarioReport, several: boolean): void {
  const file = several ? join(resolve(target), `${report.scenario}.json`) : resolve(target)
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, JSON.stringify(report, null, 2) + '\n')
}

/** One scenario: load, check, boot, run, stop; a report or why no run was made. */
async function runOne(
  file: string,
  options: ScenarioCommandOptions,
  err: NodeJS.WritableStream,
  metrics: RunMetrics | undefined
): Promise<ScenarioOutcome> {
  const t0 = performance.now()
  const notRun = (name: string | null, error: string): ScenarioOutcome => {
    err.write(`${error}\n`)
    return { file, kind: 'not-run', name, error, durationMs: performance.now() - t0 }
  }
  let loaded: LoadedScenario
  try {
    loaded = loadScenarioFile(file)
  } catch (e) {
    return notRun(
      null,
      e instanceof ScenarioFileError ? e.message : `cannot load ${file}: ${(e as Error).message}`
    )
  }
  const name = loaded.scenario.name
  if (options.kubernetes) {
    const dataDir = options.dataDir ?? defaultDataDir()
    const recorder = new Recorder(openDatabase(join(dataDir, 'drstudio.db')))
    try {
      const o = await runScenarioOnKubernetes(
        loaded,
        {
          ...options.kubernetes,
          recorder,
          logRoot: dataDir,
          ...(metrics ? { metrics } : {}),
          onOpen: (run) =>
            run.on('progress', (p) => err.write(`  ${p.phase.padEnd(8)} ${p.message}\n`))
        },
        err,
        processStopSignal(err)
      )
      return o.kind === 'ran'
        ? { file, kind: 'ran', report: o.report, durationMs: performance.now() - t0 }
        : notRun(name, o.error)
    } finally {
      recorder.close()
    }
  }
  const gate = cliActionGate(
    loaded.topology,
    plannedNodeActions(loaded.scenario, loaded.topology),
    options.allowActions ?? false
  )
  if (!gate.ok) return notRun(name, `scenario ${name} would touch your cluster: ${gate.message}`)
  const services = composeServices({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    sandbox: { attached: { allowActions: options.allowActions ?? false } },
    ...(metrics ? { metrics } : {})
  })
  const { sandbox } = services
  const stamp = (): string => `${((performance.now() - t0) / 1000).toFixed(1).padStart(6)}s`
  const log = (what: string, message: string): void => {
    err.write(`${stamp()} [${what}] ${message}\n`)
  }
  sandbox.on('progress', (p) => log('sandbox', `${p.nodeId ? `${p.nodeId}: ` : ''}${p.message}`))
  try {
    log('sandbox', `starting topology ${loaded.topology.name}`)
    await bootFor(sandbox, loaded.topology, undefined, (m) => log('sandbox', m))
    const report = await runScenario(services.runDeps(), loaded, {
      ...(options.createTopic ? { createTopic: true } : {}),
      onOpen: (run) => run.on('progress', (p) => log(p.phase, p.message))
    })
    return { file, kind: 'ran', report, durationMs: performance.now() - t0 }
  } catch (e) {
    return notRun(name, `scenario ${name} could not run: ${(e as Error).message}`)
  } finally {
    // The run's sandbox is thrown away: its JVMs are killed rather than shut down one by one.
    await services.close({ force: true })
  }
}
