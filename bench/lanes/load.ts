// Load as a controlled variable for the lane benchmark (issue 23): every case can run at several
// steps of background CPU load from stress-ng (busy processes competing with the sandbox and the
// clients), and servers and client workers can be pinned to separate CPUs with taskset, so a figure
// can be read against the load it was taken at rather than whatever the host happened to carry.
import type { ChildProcess } from 'node:child_process'
import { execFileSync, spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { WORKER_ENV } from '../../main/services/workers/worker-launcher'

/** One step of the load axis: `idle` (nothing added) or N busy stress-ng CPU workers. */
export interface LoadStep {
  name: string
  busy: number
}

/**
 * `idle,8,24` → three steps. Empty or undefined: one step, the host as it is (no stress-ng). A bad
 * value is named with the fix.
 */
export function parseLoadSteps(raw: string | undefined): LoadStep[] {
  if (raw === undefined || raw.trim() === '') return [{ name: 'as is', busy: 0 }]
  return raw.split(',').map((part) => {
    const v = part.trim()
    if (v === 'idle' || v === '0') return { name: 'idle', busy: 0 }
    const n = Number(v)
    if (!Number.isInteger(n) || n < 0 || n > 256)
      throw new Error(
        `--load: "${v}" is not a load step; give a comma list of "idle" and busy-process counts 1-256, e.g. --load idle,8,24`
      )
    return { name: `${n} busy`, busy: n }
  })
}

/** The value of `--name X` or `--name=X` in argv, else the environment variable's. */
export function argOrEnv(
  argv: readonly string[],
  name: string,
  env: string | undefined
): string | undefined {
  const i = argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`))
  if (i < 0) return env
  return argv[i]!.includes('=') ? argv[i]!.slice(argv[i]!.indexOf('=') + 1) : argv[i + 1]
}

/** N stress-ng CPU hogs for the length of a load step; nothing for idle. */
export class BusyLoad {
  private child: ChildProcess | undefined

  start(step: LoadStep): void {
    if (step.busy === 0) return
    this.child = spawn(
      'stress-ng',
      ['--cpu', String(step.busy), '--cpu-method', 'int64', '--quiet'],
      {
        stdio: 'ignore',
        // Its own process group, so stop() and an exit handler take every hog with it.
        detached: true
      }
    )
    this.child.on('error', (e) => {
      process.stderr.write(
        `stress-ng could not start (${e.message}): run npm run setup (installs it from Debian) or apt-get install stress-ng\n`
      )
    })
  }

  async stop(): Promise<void> {
    const child = this.child
    this.child = undefined
    if (!child?.pid || child.exitCode !== null) return
    const exited = new Promise<void>((r) => child.once('exit', () => r()))
    try {
      process.kill(-child.pid, 'SIGKILL')
    } catch {
      return
    }
    await exited
  }

  /** For process exit handlers: no hog outlives the benchmark. */
  killSync(): void {
    if (this.child?.pid)
      try {
        process.kill(-this.child.pid, 'SIGKILL')
      } catch {
        // already gone
      }
  }
}

/** Fails early, naming the fix, when a load step needs stress-ng and it is missing. */
export function requireStressNg(steps: readonly LoadStep[]): void {
  if (steps.every((s) => s.busy === 0)) return
  try {
    execFileSync('stress-ng', ['--version'], { stdio: 'ignore' })
  } catch {
    throw new Error(
      '--load needs stress-ng for its busy steps: run npm run setup (it installs stress-ng from Debian) or apt-get install stress-ng'
    )
  }
}

/** Which side of the pin a process is on: a client worker, a sandbox node of this run, or neither. */
function sideOf(pid: string, within: string): 'clients' | 'servers' | null {
  try {
    const env = readFileSync(`/proc/${pid}/environ`, 'utf8')
    if (env.includes(`${WORKER_ENV}=`)) return 'clients'
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(within) ? 'servers' : null
  } catch {
    return null
  }
}

/**
 * Pins every thread of the sandbox's processes (their command line names `within`, the run's data
 * folder) to `servers` and every client worker to `clients` (taskset CPU lists, e.g. "0" and "1").
 * Returns how many processes were pinned on each side.
 */
export function pinProcesses(
  within: string,
  cpus: { servers: string; clients: string }
): { servers: number; clients: number } {
  const pinned = { servers: 0, clients: 0 }
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    if (Number(pid) === process.pid) continue
    const side = sideOf(pid, within)
    if (!side) continue
    try {
      execFileSync('taskset', ['-a', '-p', '-c', cpus[side], pid], { stdio: 'ignore' })
      pinned[side]++
    } catch {
      // The process ended between the scan and the pin.
    }
  }
  return pinned
}

/** `--pin servers:clients`, e.g. `0:1`; null when not asked. */
export function parsePin(raw: string | undefined): { servers: string; clients: string } | null {
  if (raw === undefined || raw === '') return null
  const m = /^([\d,-]+):([\d,-]+)$/.exec(raw.trim())
  if (!m)
    throw new Error(
      `--pin: "${raw}" is not SERVERS:CLIENTS CPU lists; e.g. --pin 0:1 puts the sandbox on CPU 0 and the client workers on CPU 1`
    )
  return { servers: m[1]!, clients: m[2]! }
}
