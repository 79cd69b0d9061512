import { readFileSync } from 'node:fs'
import { countFindings, lintTopology } from '../../common/lint/lint'
import { exportTopology } from '../services/export/export'
import type { TextSink } from './lint-command'
import { loadTopologyForCli } from '../services/documents/documents'
import { findPlaceholders } from '../services/export/placeholders'
import type { ExportTarget, LatestResults } from '../services/export/types'
import { EXPORT_TARGETS } from '../services/export/types'
import { parseResults } from '../services/export/results'
import { documentKind } from './chaos-export-command'

export interface ExportCommandOptions {
  /** Latest scenario results to record in the README (the CLI reads them from the recorder). */
  results?: LatestResults | null
  /** JSON file with LatestResults or scenario report(s), used when `results` is not given. */
  resultsPath?: string
  /** JSON file mapping placeholders to values, e.g. {"<room1-broker-1-host>": "10.1.0.5"}. */
  valuesPath?: string
  drstudioCommand?: string
  json?: boolean
  /** `all` (default) or `grafana` (the dashboard of the live metrics only). */
  target?: string
}

function readJson(path: string, what: string): unknown {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (e) {
    throw new Error(`${path}: cannot read the ${what} file (${(e as Error).message})`)
  }
  try {
    return JSON.parse(text)
  } catch (e) {
    throw new Error(`${path}: the ${what} file is not valid JSON (${(e as Error).message})`)
  }
}

function readValues(path: string): Record<string, string> {
  const value = readJson(path, 'values')
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`${path}: the values file must be a JSON object of "<placeholder>": "value"`)
  }
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'string' && typeof v !== 'number') {
      throw new Error(`${path}: value of ${k} must be a string or a number`)
    }
    out[k] = String(v)
  }
  return out
}

function readResults(path: string, topologyName: string): LatestResults {
  const parsed = parseResults(readJson(path, 'results'), topologyName)
  if ('error' in parsed) throw new Error(`${path}: not a results file: ${parsed.error}`)
  return parsed
}

/**
 * `drstudio export <file> <outDir>`: writes production configs, launchers, a staging compose file,
 * diagrams and a README. Exit 0 when written (lint findings are reported, not fatal), 2 when the
 * topology, a side file or the output folder is unusable.
 */
export function runExportCommand(
  topologyPath: string,
  outDir: string,
  opts: ExportCommandOptions = {},
  out: TextSink = process.stdout,
  err: TextSink = process.stderr
): number {
  if (documentKind(topologyPath) === 'scenario') {
    err.write(
      `drstudio export: ${topologyPath} is a scenario file; export it with --target chaos-mesh (Chaos Mesh objects), or export the topology it names\n`
    )
    return 2
  }
  const loaded = loadTopologyForCli(topologyPath)
  if (!loaded.ok) {
    for (const line of loaded.lines) err.write(line + '\n')
    return 2
  }
  const target = opts.target ?? 'all'
  if (!(EXPORT_TARGETS as readonly string[]).includes(target)) {
    err.write(`drstudio export: --target ${target}: use one of ${EXPORT_TARGETS.join(', ')}\n`)
    return 2
  }
  let files: string[]
  try {
    const results =
      opts.results !== undefined
        ? opts.results
        : opts.resultsPath
          ? readResults(opts.resultsPath, loaded.topology.name)
          : null
    const values = opts.valuesPath ? readValues(opts.valuesPath) : undefined
    files = exportTopology(loaded.topology, {
      outDir,
      results,
      drstudioCommand: opts.drstudioCommand,
      values,
      target: target as ExportTarget
    }).files
  } catch (e) {
    err.write(`drstudio export: ${(e as Error).message}\n`)
    return 2
  }
  const counts = countFindings(lintTopology(loaded.topology))
  const open = new Set<string>()
  for (const f of files) {
    if (f.startsWith('staging/') || !/\.(conf|properties|json|sh)$/.test(f)) continue
    for (const p of findPlaceholders(readFileSync(`${outDir}/${f}`, 'utf8'))) open.add(p)
  }
  if (opts.json) {
    out.write(
      JSON.stringify({ outDir, files, lint: counts, placeholders: [...open] }, null, 2) + '\n'
    )
    return 0
  }
  out.write(`wrote ${files.length} files to ${outDir}\n`)
  for (const f of files) out.write(`  ${f}\n`)
  if (counts.error || counts.warning) {
    out.write(
      `lint: ${counts.error} error(s), ${counts.warning} warning(s); listed at the top of README.md\n`
    )
  }
  if (open.size)
    out.write(`${open.size} placeholder(s) to fill before starting; see README.md, Placeholders\n`)
  return 0
}
