import { appendFileSync, mkdirSync } from 'node:fs'
import type { TopologyNode } from '../../../common/topology/model'
import { NodeBootError, SandboxError } from './errors'
import type { CommandSpec } from './jvm'
import { formatCommand, scrubEnv } from './jvm'
import type { PortedKind } from './ports'
import type { ProcFs } from './procfs'
import type { ExitInfo, ProcessSpawner, SpawnedProcess } from './processes'
import type { Clock, NetProbe } from './readiness'
import { fileSize, lastLines, LogWatcher, readRange } from './readiness'
import type { ExitIntent, NodeState } from './state'
import { stateAfterExit } from './state'

/** A node as the UI and the engine see it (the shape of common/contract's NodeStatus). */
export interface NodeStatus {
  nodeId: string
  kind: PortedKind
  room: string
  state: NodeState
  pid?: number
  /** host:port clients use (a broker's listenPort, a proxy's gRPC port). */
  address?: string
  detail?: string
  /** An operator's node DR Studio watches but does not run. */
  attached?: boolean
  /** Attached and taken down by DR Studio's own command: a restore brings it back. */
  restorable?: boolean
  /** A controller-mode replica: from its JVM up to its group ready (see group-readiness.ts). */
  readyInMs?: number
}

/** Boot-success lines RocketMQ prints to stdout (NamesrvStartup, BrokerStartup, ProxyStartup, ControllerStartup). */
export const BOOT_LINE: Record<'nameserver' | 'broker' | 'proxy' | 'controller', RegExp> = {
  nameserver: /The Name Server boot success/,
  broker: /The broker\[[^\]]*\] boot success/,
  proxy: /rocketmq-proxy startup successfully/,
  controller: /The Controller Server boot success/
}

/** NamesrvStartup prints this after its own line when it embeds a controller. */
export const EMBEDDED_CONTROLLER_LINE = /The ControllerManager boot success/

export type ServerNode = Extract<TopologyNode, { kind: PortedKind }>

const KILL_WAIT_MS = 10_000
/** Time a JVM gets to write its thread dump before SIGKILL. */
const THREAD_DUMP_WAIT_MS = 500
const PROXY_BOOT_ATTEMPTS = 3
const PROXY_TRANSIENT_BOOT_FAILURE =
  /Remoting(Timeout|Connect|SendRequest|TooMuchRequest)Exception|create system .*topic .* failed/
const POLL_MS = 150

/** What a node process needs from its sandbox. */
export interface NodeProcessDeps {
  spawner: ProcessSpawner
  clock: Clock
  net: NetProbe
  procFs: ProcFs
  env: NodeJS.ProcessEnv
  bootTimeoutMs: number
  stopGraceMs: number
  onState(status: NodeStatus): void
  progress(nodeId: string, message: string): void
  pidStarted(nodeId: string, pid: number): void
  pidEnded(pid: number): void
}

/**
 * One node of the sandbox and its process: spawn, wait for readiness (boot line and an answering
 * port), and the operator's signals. Operations on one node run one at a time (`enqueue`).
 */
export class NodeProcess {
  readonly id: string
  readonly kind: PortedKind
  readonly room: string
  readonly attached: boolean
  host: string
  port: number
  remotingPort?: number
  /** A name server's embedded controller: its DLedger port, which brokers reach it on. */
  controllerPort?: number
  /** argv prefix that runs the command inside the node's network (namespace), if any. */
  prefix: string[] = []
  command?: CommandSpec
  state: NodeState
  detail?: string
  /** Set by the group tracker once this replica's group is ready; cleared at each boot. */
  readyInMs?: number
  /** When this replica's JVM was last up (it turned electing): the group tracker counts from it. */
  jvmUpAt?: number
  proc?: SpawnedProcess
  private intent: ExitIntent
  private queue: Promise<unknown> = Promise.resolve()
  /** Set when the sandbox tears down: a start still queued behind it must not boot a JVM. */
  private retired = false

  constructor(
    readonly node: ServerNode,
    readonly dir: string,
    readonly logFile: string,
    placement: { attached: boolean; host: string; port: number; remotingPort?: number },
    private readonly deps: NodeProcessDeps
  ) {
    this.id = node.id
    this.kind = node.kind
    this.room = node.room
    this.attached = placement.attached
    this.host = placement.host
    this.port = placement.port
    if (placement.remotingPort !== undefined) this.remotingPort = placement.remotingPort
    this.state = placement.attached ? 'attached' : 'stopped'
  }

  status(): NodeStatus {
    const s: NodeStatus = { nodeId: this.id, kind: this.kind, room: this.room, state: this.state }
    if (this.proc && this.proc.pid > 0) s.pid = this.proc.pid
    if (this.port > 0) s.address = `${this.host}:${this.port}`
    if (this.detail) s.detail = this.detail
    if (this.readyInMs !== undefined) s.readyInMs = this.readyInMs
    return s
  }

  /**
   * A controller-mode replica of ours: once its JVM is up it is `electing` until the group tracker
   * finds its group ready (a master acknowledging writes, the SyncStateSet full), not `up`.
   */
  get awaitsGroup(): boolean {
    return !this.attached && this.node.kind === 'broker' && this.node.spec.role === 'replica'
  }

  setState(state: NodeState, detail?: string): void {
    this.state = state
    this.detail = detail
    this.deps.onState(this.status())
  }

  /** From now on, boots are refused: the sandbox is being torn down. */
  retire(): void {
    this.retired = true
  }

  /** Runs `op` after every earlier operation on this node. */
  enqueue<T>(op: () => Promise<T>): Promise<T> {
    const next = this.queue.then(op, op)
    this.queue = next.catch(() => undefined)
    return next
  }

  /**
   * boot, plus retries for a proxy that exits at boot because its first name-server or broker call
   * timed out (it creates its system topics with ~1-3 s timeouts and exits on failure; seen at load 20
   * on 2 cores). Any other boot failure propagates at once.
   */
  async bootWithRetry(signal?: AbortSignal): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.boot(signal)
      } catch (err) {
        const transient =
          this.kind === 'proxy' &&
          err instanceof NodeBootError &&
          err.code === 'boot-exit' &&
          PROXY_TRANSIENT_BOOT_FAILURE.test(err.message)
        if (!transient || attempt >= PROXY_BOOT_ATTEMPTS || signal?.aborted) throw err
        this.deps.progress(
          this.id,
          `proxy exited while booting (a name-server/broker call timed out); retrying, attempt ${attempt + 1} of ${PROXY_BOOT_ATTEMPTS}`
        )
      }
    }
  }

  /** Spawns the node and waits for readiness; a failed boot leaves no process behind. */
  private async boot(signal?: AbortSignal): Promise<void> {
    if (this.retired) {
      throw new SandboxError(
        'node-state',
        `Cannot start node ${this.id}: the sandbox stopped before the start ran; start the sandbox again.`,
        { nodeId: this.id }
      )
    }
    const spec = this.command!
    mkdirSync(this.dir, { recursive: true })
    const argv = [...this.prefix, spec.command, ...spec.args]
    appendFileSync(
      this.logFile,
      `\n=== DR Studio ${new Date(this.deps.clock.now()).toISOString()} starting ${this.id}: ${formatCommand({ ...spec, command: argv[0]!, args: argv.slice(1) })}\n`
    )
    const offset = fileSize(this.logFile)
    this.intent = undefined
    this.detail = undefined
    this.readyInMs = undefined
    this.setState('starting')
    this.deps.progress(this.id, `starting ${this.kind} on ${this.host}:${this.port}`)
    const proc = this.deps.spawner.spawn({
      command: argv[0]!,
      args: argv.slice(1),
      env: { ...scrubEnv(this.deps.env), ...spec.env },
      cwd: spec.cwd,
      logFile: this.logFile,
      lifeline: this.kind === 'management'
    })
    this.proc = proc
    if (proc.pid > 0) this.deps.pidStarted(this.id, proc.pid)
    void proc.exited.then((info) => this.onExit(proc, info))
    try {
      await this.waitReady(proc, offset, signal)
    } catch (err) {
      if (this.proc === proc) {
        await this.kill()
        // A node abandoned because of another one's failure (or a stop) stays "killed", not "failed".
        if (!(signal?.aborted && err === signal.reason)) {
          this.setState('failed', err instanceof Error ? err.message : String(err))
        }
      }
      throw err
    }
    if (this.awaitsGroup) {
      this.jvmUpAt = this.deps.clock.now()
      const group = this.node.kind === 'broker' ? this.node.spec.brokerName : this.id
      this.setState('electing', `waiting for ${group} to have a master that accepts writes`)
      this.deps.progress(
        this.id,
        `broker JVM up on ${this.host}:${this.port}; ${group} not ready yet`
      )
      return
    }
    this.setState('up')
    this.deps.progress(this.id, `${this.kind} ready on ${this.host}:${this.port}`)
  }

  private async waitReady(
    proc: SpawnedProcess,
    offset: number,
    signal?: AbortSignal
  ): Promise<void> {
    const { clock, net } = this.deps
    const deadline = clock.now() + this.deps.bootTimeoutMs
    const watcher = new LogWatcher(this.logFile, offset)
    let exited: ExitInfo | undefined
    void proc.exited.then((info) => (exited = info))
    const management = this.kind === 'management'
    const lines = management ? [] : [BOOT_LINE[this.kind as keyof typeof BOOT_LINE]]
    const ports = [this.port]
    if (this.controllerPort !== undefined) {
      lines.push(EMBEDDED_CONTROLLER_LINE)
      ports.push(this.controllerPort)
    }
    let lineSeen = management
    const seen = lines.map(() => false)
    const url = `http://${this.host}:${this.port}/healthz`
    const what = management
      ? `GET ${url}`
      : `${lines.map((l) => `"${l.source}"`).join(' and ')} in the log and port ${ports.join(', ')} open`
    for (;;) {
      if (exited) throw this.bootExitError(exited, offset)
      if (signal?.aborted) throw signal.reason
      if (!lineSeen) {
        watcher.findEach(lines).forEach((hit, i) => (seen[i] ||= hit))
        lineSeen = seen.every(Boolean)
      }
      if (lineSeen) {
        const ready = management
          ? Math.floor(((await net.httpGet(url, 1000))?.status ?? 0) / 100) === 2
          : (await Promise.all(ports.map((p) => net.tcp(this.host, p, 1000)))).every(Boolean)
        if (ready && !exited) return
      }
      if (clock.now() >= deadline) {
        throw new NodeBootError(
          'boot-timeout',
          this.id,
          `Node ${this.id} (${this.kind}) was not ready after ${seconds(this.deps.bootTimeoutMs)} ` +
            `(waiting for ${what}). Check its log: ${this.logFile}`,
          this.logFile
        )
      }
      await Promise.race([clock.sleep(POLL_MS), proc.exited])
    }
  }

  private bootExitError(exit: ExitInfo, offset: number): NodeBootError {
    const how = exit.error
      ? `could not be started (${exit.error})`
      : exit.signal
        ? `was killed by ${exit.signal} while booting`
        : `exited with code ${exit.code} while booting`
    const tail = lastLines(
      readRange(this.logFile, Math.max(offset, fileSize(this.logFile) - 16384)),
      15
    )
    const lines = tail.length > 0 ? `\nLast log lines:\n  ${tail.join('\n  ')}` : ''
    return new NodeBootError(
      'boot-exit',
      this.id,
      `Node ${this.id} (${this.kind}) ${how}.${lines}\nFull log: ${this.logFile}`,
      this.logFile,
      exit.code
    )
  }

  private onExit(proc: SpawnedProcess, info: ExitInfo): void {
    if (proc.pid > 0) this.deps.pidEnded(proc.pid)
    if (this.proc !== proc) return
    this.proc = undefined
    const next = stateAfterExit(this.state, this.intent)
    const how = info.error ?? (info.signal ? `signal ${info.signal}` : `exit code ${info.code}`)
    this.setState(next, next === 'down' ? `exited unexpectedly (${how})` : how)
  }

  /** SIGTERM, then SIGKILL after the grace period. */
  async stop(): Promise<void> {
    const proc = this.proc
    if (!proc) return
    this.intent = 'stop'
    this.deps.progress(this.id, 'stopping (SIGTERM)')
    this.deps.spawner.signal(proc.pid, 'SIGTERM')
    if (this.state === 'paused') this.deps.spawner.signal(proc.pid, 'SIGCONT')
    if (await waitExit(proc, this.deps.stopGraceMs)) return
    // A JVM prints every thread's stack on SIGQUIT: the log then says what the stop was waiting on.
    const dumped = this.kind !== 'management' && this.deps.spawner.signal(proc.pid, 'SIGQUIT')
    if (dumped && (await waitExit(proc, THREAD_DUMP_WAIT_MS))) return
    const where = dumped ? `; thread dump in ${this.logFile}` : ''
    this.deps.progress(
      this.id,
      `still running after ${this.deps.stopGraceMs} ms${where}; sending SIGKILL`
    )
    this.deps.spawner.signal(proc.pid, 'SIGKILL')
    await waitExit(proc, KILL_WAIT_MS)
  }

  /**
   * SIGKILL to the node's process group. `as: 'stop'` when the whole sandbox is thrown away: the
   * node then ends stopped, as the user asked, not killed as a fault would leave it.
   */
  async kill(as: 'kill' | 'stop' = 'kill'): Promise<void> {
    const proc = this.proc
    if (!proc) return
    this.intent = as
    this.deps.spawner.signal(proc.pid, 'SIGKILL')
    await waitExit(proc, KILL_WAIT_MS)
  }

  /** Synchronous SIGKILL, for process exit handlers. */
  killSync(): void {
    if (this.proc && this.proc.pid > 0) {
      this.intent = 'kill'
      this.deps.spawner.signal(this.proc.pid, 'SIGKILL')
    }
  }

  /** SIGSTOP: the process freezes without closing its sockets, like a hung machine. */
  async pause(): Promise<void> {
    const proc = this.proc!
    this.deps.spawner.signal(proc.pid, 'SIGSTOP')
    await this.waitProcState(proc.pid, (s) => s === 'T' || s === 't')
    this.setState('paused', 'SIGSTOP')
  }

  async resume(): Promise<void> {
    const proc = this.proc!
    this.deps.spawner.signal(proc.pid, 'SIGCONT')
    await this.waitProcState(proc.pid, (s) => s !== 'T' && s !== 't')
    this.setState('up', 'SIGCONT')
  }

  /** Signals are asynchronous; wait (briefly) until /proc shows the effect. */
  private async waitProcState(
    pid: number,
    ok: (state: string | undefined) => boolean
  ): Promise<void> {
    const deadline = this.deps.clock.now() + 2000
    while (this.deps.clock.now() < deadline) {
      const s = this.deps.procFs.state(pid)
      if (s === undefined || ok(s)) return
      await this.deps.clock.sleep(20)
    }
  }

  /** Refuses operations on an attached node, with what to do instead. */
  refuseAttached(action: string): never {
    throw new SandboxError(
      'node-attached',
      `node ${this.id} is attached (${this.host}:${this.port}); DR Studio cannot ${action} it. ` +
        'Manage it where it runs, or remove its "host" and "port" to let the sandbox start its own.',
      { nodeId: this.id }
    )
  }
}

async function waitExit(proc: SpawnedProcess, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<false>((r) => (timer = setTimeout(() => r(false), ms)))
  const done = await Promise.race([proc.exited.then(() => true as const), timeout])
  clearTimeout(timer)
  return done
}

/** 90000 → "90 s", 400 → "0.4 s". */
export function seconds(ms: number): string {
  return `${ms % 1000 === 0 ? ms / 1000 : (ms / 1000).toFixed(1)} s`
}
