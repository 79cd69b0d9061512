import { spawn, spawnSync } from 'node:child_process'

export interface ExecResult {
  /** Exit code; 127 when the program could not be started (not installed). */
  code: number
  stdout: string
  stderr: string
}

/** A long-lived child with a line protocol on stdin/stdout (the delay router). */
export interface LineProcess {
  pid: number
  /** Writes one line (a newline is added). */
  send(line: string): void
  onLine(listener: (line: string) => void): void
  /** Ends stdin: a well-behaved child then exits by itself. */
  closeInput(): void
  kill(signal: NodeJS.Signals): void
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>
}

/**
 * The lab's only door to the OS: every `ip`, `nft`, `tc` and `sysctl` goes through it, so the lab's
 * logic tests with a recording fake and the real one is a thin wrapper.
 */
export interface ExecPort {
  run(argv: readonly string[], input?: string): Promise<ExecResult>
  /** For process-exit handlers, where nothing asynchronous runs any more. */
  runSync(argv: readonly string[], input?: string): ExecResult
  start(argv: readonly string[]): LineProcess
}

const MAX_OUTPUT = 4 * 1024 * 1024

/** The real port: no shell, argv as given, output captured. */
export const nodeExec: ExecPort = {
  run(argv, input) {
    return new Promise((resolve) => {
      const child = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (d: Buffer) => {
        if (stdout.length < MAX_OUTPUT) stdout += d.toString()
      })
      child.stderr.on('data', (d: Buffer) => {
        if (stderr.length < MAX_OUTPUT) stderr += d.toString()
      })
      child.once('error', (err) => resolve({ code: 127, stdout, stderr: stderr + err.message }))
      child.once('close', (code, signal) =>
        resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr })
      )
      child.stdin.on('error', () => {})
      child.stdin.end(input ?? '')
    })
  },
  runSync(argv, input) {
    const r = spawnSync(argv[0]!, argv.slice(1), {
      input: input ?? '',
      encoding: 'utf8',
      maxBuffer: MAX_OUTPUT
    })
    if (r.error) return { code: 127, stdout: r.stdout ?? '', stderr: r.error.message }
    return { code: r.status ?? 128, stdout: r.stdout, stderr: r.stderr }
  },
  start(argv) {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] })
    const listeners: ((line: string) => void)[] = []
    let buffer = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => {
      buffer += d.toString()
      let nl: number
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl)
        buffer = buffer.slice(nl + 1)
        for (const l of listeners) l(line)
      }
    })
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < 64 * 1024) stderr += d.toString()
    })
    child.stdin.on('error', () => {})
    const exited = new Promise<{
      code: number | null
      signal: NodeJS.Signals | null
      stderr: string
    }>((resolve) => {
      child.once('error', (err) =>
        resolve({ code: 127, signal: null, stderr: stderr + err.message })
      )
      child.once('close', (code, signal) => resolve({ code, signal, stderr }))
    })
    return {
      pid: child.pid ?? -1,
      send: (line) => {
        child.stdin.write(line + '\n')
      },
      onLine: (listener) => {
        listeners.push(listener)
      },
      closeInput: () => {
        child.stdin.end()
      },
      kill: (signal) => {
        child.kill(signal)
      },
      exited
    }
  }
}

/** A one-line description of a failed command for error messages. */
export function describeFailure(argv: readonly string[], r: ExecResult): string {
  const out = (r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | ')
  return `\`${argv.join(' ')}\` exited with ${r.code}${out ? `: ${out}` : ''}`
}
