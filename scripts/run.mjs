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

/** Whether missing tools can be installed here: Debian's apt-get, as root, on Linux. */
export function canAptInstall() {
  return process.platform === 'linux' && commandExists('apt-get') && process.getuid?.() === 0
}

/**
 * Makes `command` available from Debian package `pkg` when it is missing and apt-get can install
 * it (retrying once after `apt-get update`); returns whether the command exists afterwards.
 */
export function ensureDebianTool(command, pkg) {
  if (commandExists(command)) return true
  if (!canAptInstall()) return false
  if (run('apt-get', ['install', '-y', '-qq', pkg]) !== 0) {
    run('apt-get', ['update', '-qq'])
    run('apt-get', ['install', '-y', '-qq', pkg])
  }
  return commandExists(command)
}
