import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { composeServices } from '../services/engine/compose'
import { bootFor } from '../services/engine/lab-control'
import { loadScenarioFile } from '../services/scenario/load-scenario'
import { formatSweep, planSweep, runSweep } from '../services/sweep/sweep'

export interface SweepCommandOptions {
  /** `--vary` flags: `lane=a,b` or `client.<setting>=v1,v2`. */
  vary: string[]
  /** Runs of every combination (default 1). */
  runs?: number
  json?: boolean
  /** Write every run's report JSON into this folder. */
  report?: string
  dataDir?: string
  stdout?: NodeJS.WritableStream
  stderr?: NodeJS.WritableStream
}

/**
 * `drstudio sweep <scenario> --vary …`: the scenario's fault script for every combination of the
 * varied settings, side by side in as few runs as fit on one boot, and a table of RTO, failed sends,
 * duplicates, cross-room share and send p99 per combination with the best of each and the
 * trade-off. Exit 0 when every run was made, 2 when the sweep could not run.
 */
export async function runSweepCommand(file: string, opts: SweepCommandOptions): Promise<number> {
  const out = opts.stdout ?? process.stdout
  const err = opts.stderr ?? process.stderr
  const t0 = performance.now()
  const log = (what: string, message: string): void => {
    err.write(`${((performance.now() - t0) / 1000).toFixed(1).padStart(6)}s [${what}] ${message}\n`)
  }
  let plan
  try {
    const loaded = loadScenarioFile(file)
    plan = { loaded, ...planSweep(loaded, opts.vary, opts.runs ?? 1) }
  } catch (e) {
    err.write(`drstudio sweep: ${(e as Error).message}\n`)
    return 2
  }
  const { loaded, combos, runs } = plan
  for (const c of combos) log('sweep', `${c.name}: ${c.label}`)
  const services = composeServices(opts.dataDir ? { dataDir: opts.dataDir } : {})
  services.sandbox.on('progress', (p) =>
    log('sandbox', `${p.nodeId ? `${p.nodeId}: ` : ''}${p.message}`)
  )
  try {
    log('sandbox', `starting topology ${loaded.topology.name}`)
    await bootFor(services.sandbox, loaded.topology, undefined, (m) => log('sandbox', m))
    const { result, reports } = await runSweep(services.runDeps(), loaded, combos, {
      runs,
      onOpen: (run, label) => {
        log('sweep', label)
        run.on('progress', (p) => log(p.phase, p.message))
      }
    })
    if (opts.report) {
      const dir = resolve(opts.report)
      mkdirSync(dir, { recursive: true })
      for (const r of reports)
        writeFileSync(join(dir, `run-${r.runId}.json`), JSON.stringify(r, null, 2) + '\n')
    }
    out.write(opts.json ? JSON.stringify(result, null, 2) + '\n' : formatSweep(result))
    return 0
  } catch (e) {
    err.write(`drstudio sweep: ${(e as Error).message}\n`)
    return 2
  } finally {
    await services.close({ force: true })
  }
}
