import { readFileSync } from 'node:fs'
import type { Problem } from '../../../common/topology/validate'
import { formatProblem, parseTopologyText } from '../../../common/topology/validate'
import type { Topology } from '../../../common/topology/schema'

export type LoadResult =
  { ok: true; topology: Topology } | { ok: false; lines: string[]; problems: Problem[] }

/** Reads and validates a topology file for a CLI command; failures come back as printable lines. */
export function loadTopologyForCli(path: string): LoadResult {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    const line =
      code === 'ENOENT'
        ? `${path}: topology file not found (check the path)`
        : `${path}: cannot read topology file: ${(err as Error).message}`
    return { ok: false, lines: [line], problems: [] }
  }
  const result = parseTopologyText(text)
  if (result.ok) return { ok: true, topology: result.topology }
  return {
    ok: false,
    problems: result.problems,
    lines: [
      ...result.problems.map((p) => `${path}: ${formatProblem(p)}`),
      `${path}: not a valid topology; run \`drstudio validate ${path}\` and fix the problems first`
    ]
  }
}
