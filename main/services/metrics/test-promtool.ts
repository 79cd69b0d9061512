import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { spawnSync } from 'node:child_process'

/** promtool: the one setup extracted into `.tools/bin`, else the one on PATH. */
export function promtoolCommand(root = resolve(import.meta.dirname, '../../..')): string {
  const local = join(root, '.tools', 'bin', 'promtool')
  return existsSync(local) ? local : 'promtool'
}

/**
 * `promtool check metrics` on an exposition: ok, and what it said (lint problems or a parse
 * error). Throws when promtool is missing, naming the fix.
 */
export function checkMetrics(text: string): { ok: boolean; output: string } {
  const r = spawnSync(promtoolCommand(), ['check', 'metrics'], { input: text, encoding: 'utf8' })
  if (r.error) throw new Error(`promtool is missing (${r.error.message}); run npm run setup`)
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}`.trim() }
}
