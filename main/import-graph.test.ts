import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

// Issue 21: no import circle in main/ or common/, and the run's home (engine/run/) and the scenario
// files' home (scenario/) do not import each other. Static relative imports only (type imports too:
// a circle of types is still two modules that cannot be understood apart).
const ROOT = join(import.meta.dirname, '..')

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f)
    if (statSync(p).isDirectory()) return sources(p)
    return /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f) ? [p] : []
  })
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]/g

/** Relative imports of a file, resolved to files (`./x` → `x.ts`, `x.tsx` or `x/index.ts`). */
function importsOf(file: string, known: ReadonlySet<string>): string[] {
  const text = readFileSync(file, 'utf8')
  return [...text.matchAll(IMPORT)].flatMap((m) => {
    const base = resolve(dirname(file), m[1]!)
    const hit = [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), base].find((c) =>
      known.has(c)
    )
    return hit ? [hit] : []
  })
}

/** Every cycle's first appearance, as paths relative to the repo (depth-first, one per back edge). */
export function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  const cycles: string[][] = []
  const visit = (n: string): void => {
    state.set(n, 'open')
    stack.push(n)
    for (const m of graph.get(n) ?? []) {
      if (state.get(m) === 'open') cycles.push([...stack.slice(stack.indexOf(m)), m])
      else if (!state.has(m)) visit(m)
    }
    stack.pop()
    state.set(n, 'done')
  }
  for (const n of graph.keys()) if (!state.has(n)) visit(n)
  return cycles
}

const files = [...sources(join(ROOT, 'main')), ...sources(join(ROOT, 'common'))]
const known = new Set(files)
const graph = new Map(files.map((f) => [f, importsOf(f, known)]))
const rel = (f: string): string => relative(ROOT, f)

describe('the import graph of main/ and common/', () => {
  it('finds a cycle when there is one (the check can fail)', () => {
    const g = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']]
    ])
    expect(findCycles(g)).toEqual([['a', 'b', 'c', 'a']])
    expect(
      findCycles(
        new Map([
          ['a', ['b']],
          ['b', []]
        ])
      )
    ).toEqual([])
  })

  it('reads the imports it walks', () => {
    const run = graph.get(join(ROOT, 'main/services/engine/run/run.ts'))!.map(rel)
    expect(run).toContain('common/scenario/run-plan.ts')
  })

  it('has no circle', () => {
    expect(findCycles(graph).map((c) => c.map(rel).join(' → '))).toEqual([])
  })

  it('keeps scenario/ and engine/run/ apart', () => {
    const crossing = [...graph].flatMap(([from, to]) => {
      const f = rel(from)
      const bad = to
        .map(rel)
        .filter(
          (t) =>
            (f.startsWith('main/services/scenario/') &&
              t.startsWith('main/services/engine/run/')) ||
            (f.startsWith('main/services/engine/run/') && t.startsWith('main/services/scenario/'))
        )
      return bad.map((t) => `${f} → ${t}`)
    })
    expect(crossing).toEqual([])
  })
})
