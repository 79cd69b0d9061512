import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  writeFileSync
} from 'node:fs'
import { dirname, join, resolve, sep } from 'node:path'
import type { Topology } from '../../../common/topology/schema'
import { GRAFANA_DASHBOARD_FILE, MANIFEST_FILE, renderExport } from './render'
import type { ExportOptions, ExportResult, ExportTarget } from './types'

/** Export failure a user can act on; the message names the folder and the fix. */
export class ExportError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ExportError'
  }
}

function previousFiles(outDir: string): string[] | null {
  const manifest = join(outDir, MANIFEST_FILE)
  if (!existsSync(manifest)) return null
  try {
    const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { files?: unknown }
    return Array.isArray(parsed.files)
      ? parsed.files.filter((f): f is string => typeof f === 'string')
      : []
  } catch {
    return []
  }
}

/** Removes the files a previous export wrote (never anything else), then the folders they leave empty. */
function clearPrevious(outDir: string, files: string[]): void {
  const root = resolve(outDir)
  const dirs = new Set<string>()
  for (const rel of files) {
    const abs = resolve(root, rel)
    if (!abs.startsWith(root + sep)) continue
    rmSync(abs, { force: true })
    for (let d = dirname(abs); d.startsWith(root + sep); d = dirname(d)) dirs.add(d)
  }
  for (const d of [...dirs].sort((a, b) => b.length - a.length)) {
    if (existsSync(d) && readdirSync(d).length === 0) rmdirSync(d)
  }
}

/** `--target grafana`: the dashboard alone, with a manifest naming just it. */
function onlyTarget(
  files: Map<string, string>,
  target: ExportTarget,
  topology: Topology
): Map<string, string> {
  if (target === 'all') return files
  const kept = [GRAFANA_DASHBOARD_FILE, MANIFEST_FILE].sort()
  const manifest = { generator: 'drstudio export', topology: topology.name, files: kept }
  const text = (f: string) =>
    f === MANIFEST_FILE ? JSON.stringify(manifest, null, 2) + '\n' : files.get(f)!
  return new Map(kept.map((f) => [f, text(f)]))
}

/**
 * Writes production configs, launchers, a staging docker-compose copy, diagrams and a README for a
 * topology. Refuses a non-empty folder that is not a previous export, so it never mixes with other files.
 */
export function exportTopology(topology: Topology, options: ExportOptions): ExportResult {
  const { outDir, target, ...renderOpts } = options
  const files = onlyTarget(renderExport(topology, renderOpts), target ?? 'all', topology)
  if (existsSync(outDir) && readdirSync(outDir).length > 0) {
    const previous = previousFiles(outDir)
    if (previous === null) {
      throw new ExportError(
        `${outDir} is not empty and holds no ${MANIFEST_FILE} from an earlier export; choose an empty or new folder`
      )
    }
    clearPrevious(outDir, previous)
  }
  for (const [rel, text] of files) {
    const abs = join(outDir, rel)
    mkdirSync(dirname(abs), { recursive: true })
    writeFileSync(abs, text, { mode: rel.endsWith('.sh') ? 0o755 : 0o644 })
  }
  return { files: [...files.keys()] }
}
