import { readFileSync } from 'node:fs'
import { parse as parseYaml } from 'yaml'
import { renderChaosMesh } from '../services/export/chaos-mesh/render-chaos-mesh'
import { planTimeline } from '../services/export/chaos-mesh/timeline-windows'
import { cronProblem } from '../services/export/chaos-mesh/webhook-rules'
import { withManifest, writeExport } from '../services/export/export'
import { loadScenarioFile, ScenarioFileError } from '../services/scenario/load-scenario'
import type { TextSink } from './lint-command'

export interface ChaosExportOptions {
  json?: boolean
  /** Cron text of the Schedule (recurring game day). */
  schedule?: string
}

/** `drstudio/scenario` or `drstudio/topology` by the file's `kind`, or null when unreadable/other. */
export function documentKind(path: string): 'scenario' | 'topology' | null {
  let doc: unknown
  try {
    doc = parseYaml(readFileSync(path, 'utf8'))
  } catch {
    return null
  }
  const o = (doc ?? {}) as { kind?: unknown; timeline?: unknown; rooms?: unknown }
  if (o.kind === 'drstudio/scenario' || (o.kind === undefined && Array.isArray(o.timeline))) {
    return 'scenario'
  }
  if (o.kind === 'drstudio/topology' || Array.isArray(o.rooms)) return 'topology'
  return null
}

function fail(err: TextSink, message: string): number {
  err.write(`drstudio export: ${message}\n`)
  return 2
}

/**
 * `drstudio export <scenario> --target chaos-mesh --out DIR`: the scenario's timeline as a Chaos
 * Mesh Workflow and Schedule with a README of the gaps. Exit 0 when written, 2 when the input, the
 * schedule or the folder is unusable.
 */
export function runChaosExportCommand(
  scenarioPath: string,
  outDir: string,
  opts: ChaosExportOptions = {},
  out: TextSink = process.stdout,
  err: TextSink = process.stderr
): number {
  if (documentKind(scenarioPath) === 'topology') {
    return fail(
      err,
      `${scenarioPath} is a topology; --target chaos-mesh exports a scenario file (e.g. resources/scenarios/room1-isolated.yaml) that names it. For the topology's own manifests use --target kubernetes`
    )
  }
  const cron = opts.schedule !== undefined ? cronProblem(opts.schedule) : null
  if (cron) return fail(err, `--schedule: ${cron}`)
  try {
    const { scenario, topology } = loadScenarioFile(scenarioPath)
    const files = renderChaosMesh(scenario, topology, { schedule: opts.schedule })
    const written = writeExport(outDir, withManifest(files, scenario.name)).files
    const notes = planTimeline(scenario, topology).notes
    if (opts.json) {
      out.write(JSON.stringify({ outDir, files: written, notExpressed: notes }, null, 2) + '\n')
      return 0
    }
    out.write(`wrote ${written.length} files to ${outDir}\n`)
    for (const f of written) out.write(`  ${f}\n`)
    if (notes.length) {
      out.write(
        `${notes.length} step(s) have no Chaos Mesh form; listed in README.md, Not expressed\n`
      )
    }
    return 0
  } catch (e) {
    return fail(err, e instanceof ScenarioFileError ? e.message : (e as Error).message)
  }
}
