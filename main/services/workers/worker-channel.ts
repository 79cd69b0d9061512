import { spawn } from 'node:child_process'
import type { Readable, Writable } from 'node:stream'

/** How to start a local worker process. */
export interface WorkerCommand {
  /** Full argv: a namespace prefix (`ip netns exec …`) and the parent-death wrapper included. */
  argv: string[]
  env?: NodeJS.ProcessEnv
  cwd?: string
}

/**
 * The byte streams of one client worker and its end, wherever it runs: a child process here, or a
 * pod's container reached through the Kubernetes API server (kubernetes/kube-attach.ts).
 */
export interface WorkerChannel {
  readonly stdin: Writable
  readonly stdout: Readable
  /** Null when the worker's errors do not come back this way. */
  readonly stderr: Readable | null
  readonly pid: number | undefined
  /** Ends the worker at once: SIGKILL here, the stream cut (and the pod deleted) there. */
  kill(): void
  /** Called once, when the worker has gone; code null = it could not start or was cut off. */
  onExit(listener: (code: number | null, signal: NodeJS.Signals | null) => void): void
  /** Called when the worker could not be started or reached at all. */
  onStartError(listener: (e: Error) => void): void
}

/** A worker as a local child process. */
export function spawnWorker(name: string, command: WorkerCommand): WorkerChannel {
  const [file, ...args] = command.argv
  if (!file) throw new Error(`${name}: empty worker command`)
  const child = spawn(file, args, {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: command.env ?? process.env,
    cwd: command.cwd
  })
  return {
    stdin: child.stdin,
    stdout: child.stdout,
    stderr: child.stderr,
    get pid() {
      return child.pid
    },
    kill: () => child.kill('SIGKILL'),
    onExit: (listener) => child.on('exit', listener),
    onStartError: (listener) => child.on('error', listener)
  }
}
