import { readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import type { Problem, Topology } from '../../../common/topology'
import {
  decodeTopologyBytes,
  formatProblem,
  readTopologyJson,
  serializeTopology,
  sizeProblem,
  validateTopology
} from '../../../common/topology'

export interface OpenedTopology {
  path: string | null
  name: string
  document: unknown
  problems: Problem[]
}

/** A topology that failed validation hard enough that it cannot be used. */
export class TopologyFileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: Problem[]
  ) {
    super(
      `${file} is not a valid topology:\n` +
        problems.map((p) => `  ${p.path}: ${p.message} (fix: ${p.hint})`).join('\n')
    )
    this.name = 'TopologyFileError'
  }
}

function nameOf(document: unknown, fallback: string): string {
  const name = (document as { name?: unknown } | null)?.name
  return typeof name === 'string' && name ? name : fallback
}

function unreadable(path: string, err: unknown): Error {
  const code = (err as NodeJS.ErrnoException).code
  return new Error(
    code === 'ENOENT'
      ? `topology file not found: ${path} (check the path, or run \`drstudio validate\` on an existing file)`
      : code === 'EISDIR'
        ? `${path} is a folder, not a topology file (name the .json file inside it)`
        : code === 'EACCES' || code === 'EPERM'
          ? `cannot read topology file ${path}: permission denied (check its owner and mode)`
          : `cannot read topology file ${path}: ${(err as Error).message}`
  )
}

/**
 * Reads a file and returns it with every problem found; only unreadable files throw. The bytes
 * are decoded here (BOM, UTF-16, invalid UTF-8 are problems with line and column, not mojibake),
 * and a file far too large to be a topology is refused before it is read.
 */
export function readTopologyFile(path: string): OpenedTopology {
  let bytes: Uint8Array
  try {
    const stat = statSync(path)
    if (stat.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' })
    const tooLarge = sizeProblem(stat.size)
    if (tooLarge) return { path, name: fallbackName(path), document: null, problems: [tooLarge] }
    bytes = readFileSync(path)
  } catch (err) {
    throw unreadable(path, err)
  }
  const decoded = decodeTopologyBytes(bytes)
  if (!decoded.ok) {
    return { path, name: fallbackName(path), document: null, problems: [decoded.problem] }
  }
  return parseText(decoded.text, path)
}

function fallbackName(path: string | null, label?: string): string {
  return label ?? (path ? basename(path).replace(/\.json$/i, '') : 'untitled')
}

/** Parses text (from a file picker or a file) into an opened document. */
export function parseText(text: string, path: string | null, label?: string): OpenedTopology {
  const fallback = fallbackName(path, label)
  const read = readTopologyJson(text)
  if (!read.ok) return { path, name: fallback, document: null, problems: [read.problem] }
  const result = validateTopology(read.value)
  return result.ok
    ? { path, name: result.topology.name, document: result.topology, problems: [] }
    : { path, name: nameOf(read.value, fallback), document: read.value, problems: result.problems }
}

/** Loads a topology that must be valid (CLI, sandbox); throws TopologyFileError listing every problem. */
export function loadTopology(path: string): Topology {
  const opened = readTopologyFile(path)
  if (opened.problems.length) throw new TopologyFileError(path, opened.problems)
  return opened.document as Topology
}

export type LoadResult =
  { ok: true; topology: Topology } | { ok: false; lines: string[]; problems: Problem[] }

/** Reads and validates a topology file for a CLI command; failures come back as printable lines. */
export function loadTopologyForCli(path: string): LoadResult {
  let opened: OpenedTopology
  try {
    opened = readTopologyFile(path)
  } catch (err) {
    return { ok: false, lines: [(err as Error).message], problems: [] }
  }
  if (!opened.problems.length) return { ok: true, topology: opened.document as Topology }
  return {
    ok: false,
    problems: opened.problems,
    lines: [
      ...opened.problems.map((p) => `${path}: ${formatProblem(p)}`),
      `${path}: not a valid topology; run \`drstudio validate ${path}\` and fix the problems first`
    ]
  }
}

/** Writes atomically (temp file + rename) so a crash never leaves half a topology on disk. */
export function writeTopologyFile(path: string, document: unknown): Problem[] {
  const result = validateTopology(document)
  const text = result.ok
    ? serializeTopology(result.topology)
    : JSON.stringify(document, null, 2) + '\n'
  const tmp = `${path}.${process.pid}.tmp`
  writeFileSync(tmp, text, 'utf8')
  renameSync(tmp, path)
  return result.ok ? [] : result.problems
}

/** Built-in topologies shipped in resources/topologies. */
export function listBuiltinTopologies(resourcesDir: string) {
  const dir = join(resourcesDir, 'topologies')
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const doc = JSON.parse(readFileSync(join(dir, f), 'utf8')) as {
        name?: string
        description?: string
      }
      return {
        id: f.replace(/\.json$/, ''),
        name: doc.name ?? f,
        description: doc.description ?? '',
        path: join(dir, f)
      }
    })
}
