import { spawn, spawnSync } from 'node:child_process'
import { accessSync, closeSync, constants, mkdirSync, openSync } from 'node:fs'
import type { Socket } from 'node:net'
import { delimiter, dirname, join } from 'node:path'
import { LIFELINE_ENV, LIFELINE_FD } from '../lifeline'
import { signalGroup } from './orphans'

/** How a child ended; `error` is set when it could not be started at all (e.g. ENOENT). */
export interface ExitInfo {
  code: number | null
  signal: NodeJS.Signals | null
  error?: string
}

/** A started child. `pid` is -1 when the spawn itself failed (then `exited` carries the error). */
export interface SpawnedProcess {
  pid: number
  exited: Promise<ExitInfo>
}

/** Everything needed to start one node process; stdout and stderr are appended to `logFile`. */
export interface SpawnRequest {
  command: string
  args: string[]
  /** The complete environment of the child. */
  env: Record<string, string>
  cwd: string
  logFile: string
  /**
   * Node children (management nodes): also hand them a lifeline pipe on fd 3 that closes when we
   * die, and they exit on its EOF (see main/services/lifeline.ts). JVMs cannot watch a pipe.
   */
  lifeline?: boolean
}

/** Process port: spawning and signalling, so the sandbox logic tests without real JVMs. */
export interface ProcessSpawner {
  spawn(request: SpawnRequest): SpawnedProcess
  /** Signals the child's whole process group; false when it is already gone. */
  signal(pid: number, signal: NodeJS.Signals): boolean
}

/** What ties a child's life to ours: a wrapper program, or none (with the reason). */
export type DeathTie = { kind: 'setpriv'; program: string } | { kind: 'none'; reason: string }

/** A program on PATH (or in the usual system folders) that we may execute. */
function findExecutable(name: string, path: string): string | null {
  const dirs = path.split(delimiter).filter(Boolean)
  for (const dir of dirs) {
    const file = join(dir, name)
    try {
      accessSync(file, constants.X_OK)
      return file
    } catch {
      // not here
    }
  }
  return null
}

/**
 * Finds util-linux `setpriv` with `--pdeathsig` (2.33+). Linux only: elsewhere there is no
 * parent-death signal, and the pid-file sweep at the next start is the only safety net.
 */
export function detectDeathTie(
  platform: NodeJS.Platform = process.platform,
  // A GUI-launched app may get a bare PATH; util-linux lives in /usr/bin or /bin.
  path: string = [process.env.PATH, '/usr/bin', '/bin'].filter(Boolean).join(delimiter),
  probe: (program: string) => boolean = (program) =>
    spawnSync(program, ['--pdeathsig', 'KILL', '--', 'true'], { stdio: 'ignore', timeout: 5000 })
      .status === 0
): DeathTie {
  if (platform !== 'linux') {
    return { kind: 'none', reason: `${platform} has no parent-death signal` }
  }
  const program = findExecutable('setpriv', path)
  if (!program) return { kind: 'none', reason: 'setpriv (util-linux) is not installed' }
  if (!probe(program)) {
    return { kind: 'none', reason: `${program} does not support --pdeathsig (util-linux < 2.33)` }
  }
  return { kind: 'setpriv', program }
}

/**
 * The command line that starts `command` tied to our life. setpriv sets PR_SET_PDEATHSIG=SIGKILL
 * and then execs the command, so the pid, the process group and /proc/<pid>/cmdline stay the
 * child's own (kill, pause and the orphan sweep see the real node).
 */
export function tiedCommand(
  tie: DeathTie,
  command: string,
  args: string[]
): { command: string; args: string[] } {
  if (tie.kind === 'none') return { command, args }
  return { command: tie.program, args: ['--pdeathsig', 'KILL', '--', command, ...args] }
}

/** Warning printed once when children cannot be tied to our life. */
export function deathTieWarning(tie: Extract<DeathTie, { kind: 'none' }>): string {
  return (
    `children cannot be tied to this process (${tie.reason}); if DR Studio crashes, its JVMs keep ` +
    'running until the next start sweeps them. On Linux, install util-linux (setpriv) to fix this.'
  )
}

export interface ProcessSpawnerOptions {
  /** Default: detected once, at the first spawn. */
  deathTie?: () => DeathTie
  warn?: (message: string) => void
}

/**
 * Real spawner: each child is detached into its own process group (so kill/pause reach all of it
 * and a Ctrl-C in the terminal does not), writes straight into its log file, not through us, and
 * is killed by the kernel when we die (SIGKILL of DR Studio included).
 *
 * Why the parent-death signal is safe with libuv: PR_SET_PDEATHSIG fires when the *thread* that
 * forked the child exits, not the process. libuv forks in uv_spawn on the thread that runs the
 * event loop, and this spawner is only ever called on Node's main thread (never from a
 * worker_thread), which lives exactly as long as the process. So the signal means "DR Studio is
 * gone". The kernel cannot close the gap between fork and setpriv's prctl; a parent that dies in
 * that instant leaves the child to the pid-file sweep (sandbox/orphans.ts), which stays.
 */
export function createProcessSpawner(options: ProcessSpawnerOptions = {}): ProcessSpawner {
  let tie: DeathTie | undefined
  const warn = options.warn ?? ((m: string) => process.stderr.write(`drstudio: warning: ${m}\n`))
  const currentTie = (): DeathTie => {
    if (tie) return tie
    tie = (options.deathTie ?? (() => detectDeathTie()))()
    if (tie.kind === 'none') warn(deathTieWarning(tie))
    return tie
  }
  return {
    spawn(request) {
      mkdirSync(dirname(request.logFile), { recursive: true })
      const fd = openSync(request.logFile, 'a')
      try {
        const { command, args } = tiedCommand(currentTie(), request.command, request.args)
        const child = spawn(command, args, {
          cwd: request.cwd,
          env: request.lifeline
            ? { ...request.env, [LIFELINE_ENV]: String(LIFELINE_FD) }
            : request.env,
          detached: true,
          // fd 3 is the lifeline: we never write; the child sees EOF when our end closes, which
          // the kernel does when we die. libuv creates it close-on-exec, so no other child holds it.
          stdio: request.lifeline ? ['ignore', fd, fd, 'pipe'] : ['ignore', fd, fd]
        })
        const exited = new Promise<ExitInfo>((resolve) => {
          child.once('error', (err) => {
            if (child.pid === undefined) resolve({ code: null, signal: null, error: err.message })
          })
          child.once('exit', (code, signal) => resolve({ code, signal }))
        })
        const lifeline = child.stdio[LIFELINE_FD] as Socket | null | undefined
        if (lifeline) {
          lifeline.on('error', () => {})
          lifeline.unref()
        }
        child.unref()
        return { pid: child.pid ?? -1, exited }
      } finally {
        closeSync(fd)
      }
    },
    signal: signalGroup
  }
}

/** The spawner every sandbox uses unless a test injects its own. */
export const nodeProcessSpawner: ProcessSpawner = createProcessSpawner()
