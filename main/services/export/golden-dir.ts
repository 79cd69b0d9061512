import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { expect } from 'vitest'

// Test support for golden folders (tests only: it imports vitest).

/** Run with UPDATE_GOLDEN=1 to rewrite golden folders after an intended output change. */
export const UPDATE_GOLDEN = process.env.UPDATE_GOLDEN === '1'

function filesUnder(root: string): string[] {
  if (!existsSync(root)) return []
  const out: string[] = []
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name)
      if (e.isDirectory()) walk(p)
      else out.push(relative(root, p).split('\\').join('/'))
    }
  }
  walk(root)
  return out.sort()
}

/** Expects `dir` to hold exactly the rendered files, byte for byte (rewrites it first when updating). */
export function expectGoldenDir(dir: string, rendered: Map<string, string>): void {
  if (UPDATE_GOLDEN) {
    rmSync(dir, { recursive: true, force: true })
    for (const [rel, text] of rendered) {
      mkdirSync(dirname(join(dir, rel)), { recursive: true })
      writeFileSync(join(dir, rel), text)
    }
  }
  expect(filesUnder(dir), `file list of ${dir}; run UPDATE_GOLDEN=1 to accept`).toEqual(
    [...rendered.keys()].sort()
  )
  for (const [rel, text] of rendered) {
    expect(text, `${dir}/${rel} differs; run UPDATE_GOLDEN=1 to accept`).toBe(
      readFileSync(join(dir, rel), 'utf8')
    )
  }
}
