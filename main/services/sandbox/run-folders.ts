import { readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'

/** Sortable, path-safe run folder name: 20261129-091512-r42 (engine run 42) or 20261129-091512-3f2a. */
export function makeRunName(
  now: number,
  runId?: number,
  random: () => number = Math.random
): string {
  const d = new Date(now)
  const p = (n: number): string => String(n).padStart(2, '0')
  const stamp = `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}-${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`
  const suffix =
    runId !== undefined
      ? `r${runId}`
      : Math.floor(random() * 0x10000)
          .toString(16)
          .padStart(4, '0')
  return `${stamp}-${suffix}`
}

/** Keeps the newest `keep` run folders under `root`, never one in `inUse`. */
export function pruneRunFolders(root: string, keep: number, inUse: ReadonlySet<string>): void {
  let dirs: string[]
  try {
    dirs = readdirSync(root, { withFileTypes: true })
      .filter((d) => d.isDirectory() && /^\d{8}-\d{6}-(r\d+|[0-9a-f]{4})$/.test(d.name))
      .map((d) => d.name)
      .sort()
  } catch {
    return
  }
  for (const name of dirs.slice(0, Math.max(0, dirs.length - keep))) {
    const dir = join(root, name)
    if (!inUse.has(dir)) rmSync(dir, { recursive: true, force: true })
  }
}
