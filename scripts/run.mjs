// Small helpers for the setup and start scripts: run a command, print one line per step.
import { spawnSync } from 'node:child_process'

export function step(message) {
  process.stdout.write(`\n▸ ${message}\n`)
}

/** Runs a command with inherited output; returns its exit code (never throws). */
export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', shell: false, ...opts })
  if (r.error) return 127
  return r.status ?? 1
}

export function must(cmd, args, opts = {}, fix = '') {
  const code = run(cmd, args, opts)
  if (code !== 0) {
    process.stderr.write(
      `\nsetup failed: \`${cmd} ${args.join(' ')}\` exited with ${code}${fix ? `\nfix: ${fix}` : ''}\n`
    )
    process.exit(code)
  }
}

export function commandExists(cmd) {
  const r = spawnSync(process.platform === 'win32' ? 'where' : 'which', [cmd], { stdio: 'ignore' })
  return r.status === 0
}
