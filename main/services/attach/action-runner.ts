import { spawn } from 'node:child_process'
import { appendFileSync, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'

/** Upper bound on one operator command unless the topology sets settings.actionTimeoutMs. */
export const DEFAULT_ACTION_TIMEOUT_MS = 60_000

/** Time between SIGTERM and SIGKILL to a command's process group after its timeout. */
const KILL_GRACE_MS = 2_000

const TAIL_LINES = 20

export interface ActionRunInput {
  nodeId: string
  action: string
  /** The rendered shell command (placeholders already filled and quoted). */
  command: string
  /** The node's log; header, output and result are appended. */
  logFile: string
  timeoutMs?: number
  /** Extra environment for the command, on top of this process's. */
  env?: Record<string, string>
  now?: () => number
}

export interface ActionRunResult {
  nodeId: string
  action: string
  command: string
  ok: boolean
  exitCode: number | null
  signal: string | null
  timedOut: boolean
  durationMs: number
  /** The last lines of stdout and stderr, interleaved as they came. */
  lastLines: string[]
  logFile: string
}

function appendLog(file: string, text: string): void {
  try {
    appendFileSync(file, text)
  } catch {
    // A log that cannot be written must not hide the action's own result.
  }
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return
  try {
    process.kill(-pid, signal)
  } catch {
    // Already gone.
  }
}

/** One line summarising a result, for toasts, the Timeline and the CLI. */
export function describeActionResult(r: ActionRunResult): string {
  const how = r.timedOut
    ? `timed out after ${r.durationMs} ms and was killed`
    : r.exitCode !== null
      ? `exited ${r.exitCode} after ${r.durationMs} ms`
      : `was killed by ${r.signal} after ${r.durationMs} ms`
  const tail = r.ok || r.lastLines.length === 0 ? '' : `: ${r.lastLines.slice(-3).join(' | ')}`
  return `${r.action} ${r.nodeId}: \`${r.command}\` ${how}${tail}`
}

/**
 * Runs one operator command with `sh -c` in its own process group, so a timeout takes down
 * everything it started (ssh and its children), and appends what it printed to the node's log.
 */
export function runActionCommand(input: ActionRunInput): Promise<ActionRunResult> {
  const now = input.now ?? Date.now
  const timeoutMs = input.timeoutMs ?? DEFAULT_ACTION_TIMEOUT_MS
  try {
    mkdirSync(dirname(input.logFile), { recursive: true })
  } catch {
    // appendLog reports nothing either: the command's result matters more than its log.
  }
  const started = now()
  appendLog(
    input.logFile,
    `\n--- ${new Date(started).toISOString()} ${input.action} ${input.nodeId}: ${input.command}\n`
  )
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', input.command], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...input.env }
    })
    let tail = ''
    const onOutput = (chunk: Buffer): void => {
      appendLog(input.logFile, chunk.toString('utf8'))
      tail = (tail + chunk.toString('utf8')).slice(-8000)
    }
    child.stdout.on('data', onOutput)
    child.stderr.on('data', onOutput)
    let timedOut = false
    let hardKill: NodeJS.Timeout | undefined
    const timer = setTimeout(() => {
      timedOut = true
      killGroup(child.pid, 'SIGTERM')
      hardKill = setTimeout(() => killGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS)
    }, timeoutMs)
    let spawnError: Error | undefined
    child.once('error', (e) => {
      spawnError = e
    })
    child.once('close', (code, signal) => {
      clearTimeout(timer)
      if (hardKill) clearTimeout(hardKill)
      // Anything the command left running in its group goes with it.
      if (timedOut) killGroup(child.pid, 'SIGKILL')
      const durationMs = now() - started
      if (spawnError) tail += `\n${spawnError.message}`
      const lastLines = tail
        .split(/\r?\n/)
        .filter((l) => l.trim() !== '')
        .slice(-TAIL_LINES)
      const result: ActionRunResult = {
        nodeId: input.nodeId,
        action: input.action,
        command: input.command,
        ok: !timedOut && code === 0 && !spawnError,
        exitCode: code,
        signal,
        timedOut,
        durationMs,
        lastLines,
        logFile: input.logFile
      }
      appendLog(input.logFile, `--- ${describeActionResult(result)}\n`)
      resolve(result)
    })
  })
}
