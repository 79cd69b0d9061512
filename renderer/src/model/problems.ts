import type { Problem, Topology } from '../../../common/topology'
import { NODE_KINDS, ROOM_KEY, validateTopology } from '../../../common/topology'

/** The same rules as `drstudio validate`, run on the document being edited. */
export function documentProblems(doc: Topology): Problem[] {
  const result = validateTopology(doc)
  return result.ok ? [] : result.problems
}

const KEY_RE = new RegExp(
  `^\\$\\.rooms\\[(\\d+)\\](?:\\.(${NODE_KINDS.map((k) => ROOM_KEY[k]).join('|')})\\[(\\d+)\\])?(.*)$`
)

/**
 * Which room or node a problem is about, and which field of it.
 *
 * Schema problems carry only a JSON path, so the path is resolved against the document.
 */
export function problemTarget(doc: Topology, problem: Problem): { id?: string; field?: string } {
  const m = KEY_RE.exec(problem.path)
  let id = problem.nodeId
  let rest = ''
  if (m) {
    const room = doc.rooms[Number(m[1])]
    rest = m[4] ?? ''
    if (!id && room) {
      if (m[2] !== undefined) {
        const list = (room as unknown as Record<string, { id?: unknown }[]>)[m[2]]
        const spec = list?.[Number(m[3])]
        if (spec && typeof spec.id === 'string') id = spec.id
      } else id = room.id
    }
  }
  const field = /^\.([A-Za-z]+)/.exec(rest)?.[1]
  return { ...(id !== undefined ? { id } : {}), ...(field !== undefined ? { field } : {}) }
}

/** Problems grouped by the id they point at, for badges and inline field errors. */
export function problemsById(
  doc: Topology,
  problems: Problem[]
): Map<string, { problem: Problem; field?: string }[]> {
  const out = new Map<string, { problem: Problem; field?: string }[]>()
  for (const problem of problems) {
    const t = problemTarget(doc, problem)
    if (!t.id) continue
    const list = out.get(t.id) ?? []
    list.push({ problem, ...(t.field !== undefined ? { field: t.field } : {}) })
    out.set(t.id, list)
  }
  return out
}
