import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import type { Problem, Topology } from '../../../common/topology'
import { parseTopologyText, serializeTopology, validateTopology } from '../../../common/topology'

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

/** Reads a file and returns it with every problem found; only unreadable files throw. */
export function readTopologyFile(path: string): OpenedTopology {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    throw new Error(
      code === 'ENOENT'
        ? `topology file not found: ${path} (check the path, or run \`drstudio validate\` on an existing file)`
        : `cannot read topology file ${path}: ${(err as Error).message}`
    )
  }
  return parseText(text, path)
}

/** Parses text (from a file picker or a file) into an opened document. */
export function parseText(text: string, path: string | null, label?: string): OpenedTopology {
  const result = parseTopologyText(text)
  let document: unknown = null
  try {
    document = JSON.parse(text)
  } catch {
    // The syntax problem is already in result.problems.
  }
  const fallback = label ?? (path ? basename(path).replace(/\.json$/i, '') : 'untitled')
  return result.ok
    ? { path, name: result.topology.name, document: result.topology, problems: [] }
    : { path, name: nameOf(document, fallback), document, problems: result.problems }
}

/** Loads a topology that must be valid (CLI, sandbox); throws TopologyFileError listing every problem. */
export function loadTopology(path: string): Topology {
  const opened = readTopologyFile(path)
  const result = validateTopology(opened.document)
  if (!result.ok) throw new TopologyFileError(path, result.problems)
  return result.topology
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
