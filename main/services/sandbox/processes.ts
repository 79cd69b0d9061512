import { spawn } from 'node:child_process'
import { closeSync, mkdirSync, openSync } from 'node:fs'
import { dirname } from 'node:path'
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
}

/** Process port: spawning and signalling, so the sandbox logic tests without real JVMs. */
export interface ProcessSpawner {
  spawn(request: SpawnRequest): SpawnedProcess
  /** Signals the child's whole process group; false when it is already gone. */
  signal(pid: number, signal: NodeJS.Signals): boolean
}

/**
 * Real spawner: each child is detached into its own process group (so kill/pause reach all of it
 * and a Ctrl-C in the terminal does not), and writes straight into its log file, not through us.
 */
export const nodeProcessSpawner: ProcessSpawner = {
  spawn(request) {
    mkdirSync(dirname(request.logFile), { recursive: true })
    const fd = openSync(request.logFile, 'a')
    try {
      const child = spawn(request.command, request.args, {
        cwd: request.cwd,
        env: request.env,
        detached: true,
        stdio: ['ignore', fd, fd]
      })
      const exited = new Promise<ExitInfo>((resolve) => {
        child.once('error', (err) => {
          if (child.pid === undefined) resolve({ code: null, signal: null, error: err.message })
        })
        child.once('exit', (code, signal) => resolve({ code, signal }))
      })
      child.unref()
      return { pid: child.pid ?? -1, exited }
    } finally {
      closeSync(fd)
    }
  },
  signal: signalGroup
}
