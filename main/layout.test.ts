import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

// Issue 13, items 11–15: the structure the README's Layout section describes is the structure of
// the tree, and the owners it names stay the only owners.
const ROOT = join(import.meta.dirname, '..')
const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter(Boolean)
const layout = /## Layout\n\n```\n([\s\S]*?)```/.exec(
  readFileSync(join(ROOT, 'README.md'), 'utf8')
)![1]!
const source = (f: string) => /\.(ts|tsx)$/.test(f) && !/\.test\.tsx?$/.test(f)

describe('the README layout section', () => {
  it('names every folder of main/services and every top-level folder', () => {
    const services = new Set(
      tracked.flatMap((f) => /^main\/services\/([^/]+)\//.exec(f)?.[1] ?? [])
    )
    const top = new Set(
      tracked.flatMap((f) => /^([^./][^/]*)\//.exec(f)?.[1] ?? []).filter((d) => d !== '.ci')
    )
    const missing = [
      ...[...services].filter((d) => !layout.includes(`${d}/`)).map((d) => `main/services/${d}/`),
      ...[...top].filter((d) => !layout.includes(`${d}/`))
    ]
    expect(missing).toEqual([])
  })

  it('names only folders and files that exist', () => {
    // A folder under main/services (indented four) or under one of them (six), and every file name.
    const lines = layout.split('\n')
    const start = lines.findIndex((l) => /^\s+services\//.test(l))
    const named: string[] = []
    let parent = ''
    for (const line of lines.slice(start + 1)) {
      const m = /^( {4}| {6})([a-z-]+)\/ /.exec(line)
      if (!m && /^\S/.test(line)) break
      if (!m) continue
      if (m[1] === '    ') parent = m[2]!
      named.push(m[1] === '    ' ? `main/services/${m[2]}/` : `main/services/${parent}/${m[2]}/`)
    }
    expect(named.length).toBeGreaterThan(10)
    const files = [...layout.matchAll(/\b([a-z][\w-]*\.ts)\b/g)].map((m) => m[1]!)
    expect(named.filter((d) => !tracked.some((f) => f.startsWith(d)))).toEqual([])
    expect(files.filter((n) => !tracked.some((f) => f.endsWith(`/${n}`)))).toEqual([])
  })

  it('names every design note in docs/', () => {
    const notes = tracked.flatMap((f) => /^docs\/([^/]+)\.md$/.exec(f)?.[1] ?? [])
    const unnamed = notes.filter((n) => !layout.includes(n.replace(/-/g, ' ')))
    expect(unnamed).toEqual([])
  })
})

describe('owners', () => {
  it('only ledger/ opens SQLite', () => {
    const users = tracked.filter(
      (f) =>
        source(f) &&
        f.startsWith('main/') &&
        /from 'better-sqlite3'/.test(readFileSync(join(ROOT, f), 'utf8'))
    )
    expect(users.filter((f) => !f.startsWith('main/services/ledger/'))).toEqual([])
  })

  it('every drstudio command lives in main/cli', () => {
    const commands = tracked.filter(
      (f) =>
        source(f) &&
        f.startsWith('main/') &&
        /from 'commander'/.test(readFileSync(join(ROOT, f), 'utf8'))
    )
    expect(commands.length).toBeGreaterThan(0)
    expect(commands.filter((f) => !f.startsWith('main/cli/'))).toEqual([])
  })
})
