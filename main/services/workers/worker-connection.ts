import { EventEmitter } from 'node:events'
import { createWriteStream, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import type { ClientChoice } from '../../../common/scenario/events'
import type { TxFact, WireRow, WorkerOp, WorkerOps, WorkerToEngine } from '../worker-wire/protocol'
import { encodeFrame, FrameDecoder } from '../worker-wire/protocol'
import type { WorkerChannel, WorkerCommand } from './worker-channel'
import { spawnWorker } from './worker-channel'

export interface WorkerConnectionOptions {
  /** Shown in errors and logs, e.g. `worker-room1`. */
  name: string
  /** Spawns the worker here (unless `channel` is given). */
  command?: WorkerCommand
  /** Reach the worker this way instead of spawning `command` (a pod through the API server). */
  channel?: WorkerChannel
  /** The worker's stderr goes here. */
  logFile: string
  /** Default budget per request (ops that wait for brokers pass their own). */
  requestTimeoutMs?: number
}

export interface WorkerExit {
  code: number | null
  signal: NodeJS.Signals | null
  /** Set when the engine asked for it (shutdown, kill); false = the worker died on its own. */
  expected: boolean
}

export interface WorkerConnectionEvents {
  rows: [WireRow[]]
  choice: [ClientChoice]
  log: [{ level: 'info' | 'warn' | 'error'; message: string; clientId?: string }]
  'client-died': [{ id: string; reason: string }]
  'tx-ran': [TxFact[]]
  exit: [WorkerExit]
  /** The worker broke the protocol (bad frame); it is killed. */
  'protocol-error': [Error]
}

interface Pending {
  op: string
  resolve: (v: unknown) => void
  reject: (e: Error) => void
  timer: NodeJS.Timeout
}

/** A worker's request failed; `code` comes from the worker (e.g. `unknown-op`) or is ours. */
export class WorkerRequestError extends Error {
  constructor(
    message: string,
    readonly code: string
  ) {
    super(message)
  }
}

/**
 * The engine's end of one client worker: spawns it, frames requests down its stdin, matches
 * responses, and re-emits its rows, choices and logs. A worker that exits fails every pending
 * request with its exit status and log file, so nothing waits on a dead process.
 */
export class WorkerConnection extends EventEmitter<WorkerConnectionEvents> {
  readonly name: string
  private readonly child: WorkerChannel
  private readonly decoder = new FrameDecoder()
  private readonly pending = new Map<number, Pending>()
  private readonly opts: WorkerConnectionOptions
  private nextId = 1
  private expectedExit = false
  private exitInfo: WorkerExit | undefined
  readonly exited: Promise<WorkerExit>

  constructor(opts: WorkerConnectionOptions) {
    super()
    this.opts = opts
    this.name = opts.name
    mkdirSync(dirname(opts.logFile), { recursive: true })
    const log = createWriteStream(opts.logFile, { flags: 'a' })
    this.child = opts.channel ?? spawnWorker(opts.name, opts.command ?? { argv: [] })
    this.child.stderr?.pipe(log)
    this.child.stdout.on('data', (chunk: Buffer) => this.onData(chunk))
    // A worker that died leaves a broken pipe; the exit handler reports it, not an EPIPE crash.
    this.child.stdin.on('error', () => undefined)
    this.exited = new Promise((resolve) => {
      const done = (code: number | null, signal: NodeJS.Signals | null): void => {
        if (this.exitInfo) return
        this.exitInfo = { code, signal, expected: this.expectedExit }
        this.failPending(this.exitMessage())
        log.end()
        this.emit('exit', this.exitInfo)
        resolve(this.exitInfo)
      }
      this.child.onExit(done)
      this.child.onStartError((e) => {
        log.write(`\n=== DR Studio: could not start ${opts.name}: ${e.message}\n`)
        done(null, null)
      })
    })
  }

  get pid(): number | undefined {
    return this.child.pid
  }

  get alive(): boolean {
    return this.exitInfo === undefined
  }

  /** Sends one request and resolves with its result. */
  request<O extends WorkerOp>(
    op: O,
    args: WorkerOps[O]['args'],
    timeoutMs = this.opts.requestTimeoutMs ?? 30_000
  ): Promise<WorkerOps[O]['result']> {
    if (this.exitInfo) {
      return Promise.reject(new WorkerRequestError(`${op}: ${this.exitMessage()}`, 'worker-exited'))
    }
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id)
        reject(
          new WorkerRequestError(
            `${this.name} did not answer ${op} within ${timeoutMs} ms; see ${this.opts.logFile}`,
            'timeout'
          )
        )
      }, timeoutMs)
      this.pending.set(id, { op, resolve: resolve as (v: unknown) => void, reject, timer })
      this.child.stdin.write(encodeFrame({ t: 'req', id, op, args }))
    })
  }

  /** Asks the worker to stop its clients and exit; kills it after `graceMs`. */
  async shutdown(graceMs = 10_000): Promise<WorkerExit> {
    if (this.exitInfo) return this.exitInfo
    this.expectedExit = true
    const timer = setTimeout(() => this.kill(), graceMs)
    try {
      await this.request('shutdown', {}, graceMs)
    } catch {
      // Exit status below says what happened.
    }
    this.child.stdin.end()
    const exit = await this.exited
    clearTimeout(timer)
    return exit
  }

  /** SIGKILL: a crash of every client the worker hosts. */
  kill(expected = true): void {
    if (this.exitInfo) return
    this.expectedExit ||= expected
    this.child.kill()
  }

  private onData(chunk: Buffer): void {
    let frames: unknown[]
    try {
      frames = this.decoder.push(chunk)
    } catch (e) {
      const err = new Error(`${this.name} broke the worker protocol: ${(e as Error).message}`)
      this.emit('protocol-error', err)
      this.kill(false)
      return
    }
    for (const f of frames) this.onFrame(f as WorkerToEngine)
  }

  private onFrame(f: WorkerToEngine): void {
    switch (f.t) {
      case 'res': {
        const p = this.pending.get(f.id)
        if (!p) return
        this.pending.delete(f.id)
        clearTimeout(p.timer)
        if (f.ok) p.resolve(f.result)
        else
          p.reject(
            new WorkerRequestError(
              `${this.name} ${p.op}: ${f.error.message}`,
              f.error.code ?? 'failed'
            )
          )
        return
      }
      case 'rows':
        this.emit('rows', f.rows)
        return
      case 'choice':
        this.emit('choice', f.choice)
        return
      case 'log':
        this.emit('log', { level: f.level, message: f.message, clientId: f.clientId })
        return
      case 'client-died':
        this.emit('client-died', { id: f.id, reason: f.reason })
        return
      case 'tx-ran':
        this.emit('tx-ran', f.facts)
        return
    }
  }

  private exitMessage(): string {
    const e = this.exitInfo
    const how = !e
      ? 'is not running'
      : e.signal
        ? `was killed by ${e.signal}`
        : e.code === null
          ? 'could not be started, or its stream was cut'
          : `exited with code ${e.code}`
    return `${this.name} ${how}; see ${this.opts.logFile}`
  }

  private failPending(message: string): void {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer)
      p.reject(new WorkerRequestError(`${p.op}: ${message}`, 'worker-exited'))
      this.pending.delete(id)
    }
  }
}
