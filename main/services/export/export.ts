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
import { renderKubernetes } from './kubernetes/render-kubernetes'
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

/** Adds the manifest that lets a re-export into the same folder replace exactly these files. */
export function withManifest(files: Map<string, string>, name: string): Map<string, string> {
  const paths = [...files.keys(), MANIFEST_FILE].sort()
  const manifest = { generator: 'drstudio export', topology: name, files: paths }
  const text = (f: string) =>
    f === MANIFEST_FILE ? JSON.stringify(manifest, null, 2) + '\n' : files.get(f)!
  return new Map(paths.map((f) => [f, text(f)]))
}

/** The files of one target; `all` and `grafana` share the render, `grafana` keeps the dashboard. */
function renderTarget(
  topology: Topology,
  target: ExportTarget,
  opts: Omit<ExportOptions, 'outDir' | 'target'>
): Map<string, string> {
  switch (target) {
    case 'all':
      return renderExport(topology, opts)
    case 'grafana': {
      const dashboard = renderExport(topology, opts).get(GRAFANA_DASHBOARD_FILE)!
      return withManifest(new Map([[GRAFANA_DASHBOARD_FILE, dashboard]]), topology.name)
    }
    case 'kubernetes':
      return withManifest(renderKubernetes(topology), topology.name)
    case 'chaos-mesh':
      throw new ExportError(
        '--target chaos-mesh exports a scenario file, not a topology: drstudio export <scenario.yaml> --target chaos-mesh --out DIR'
      )
  }
}

/**
 * Writes rendered files into outDir. Refuses a non-empty folder that is not a previous export, so
 * it never mixes with other files; a previous export's files are removed first.
 */
export function writeExport(outDir: string, files: Map<string, string>): ExportResult {
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

/**
 * Writes production configs, launchers, a staging docker-compose copy, diagrams and a README for a
 * topology (or, by target, only the dashboard or Kubernetes manifests).
 */
export function exportTopology(topology: Topology, options: ExportOptions): ExportResult {
  const { outDir, target, ...renderOpts } = options
  return writeExport(outDir, renderTarget(topology, target ?? 'all', renderOpts))
}
