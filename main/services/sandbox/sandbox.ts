import { appendFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Topology } from '../../../common/topology/schema'
import type { TopologyNode } from '../../../common/topology/model'
import { hostOf, isAttached, listNodes, topicsOf } from '../../../common/topology/model'
import { findAppPaths, nodeRuntimeCommand } from '../app-paths'
import type { RegistrationProbe, TopicCreator } from './admin-ports'
import { createRemotingAdmin, remotingRegistrationProbe, remotingTopicCreator } from './admin-ports'
import type { Discovery, ManagementNodeConfig } from './config'
import { brokerProperties, namesrvProperties, proxyConfig, renderProperties } from './config'
import { NodeBootError, SandboxError } from './errors'
import type { FindJavaOptions, JavaInfo } from './java'
import { findJava } from './java'
import type { CommandSpec, JvmContext } from './jvm'
import { brokerCommand, formatCommand, namesrvCommand, proxyCommand, scrubEnv } from './jvm'
import type { PidEntry } from './orphans'
import { isPidAlive, planOrphanSweep, readPidFile, updatePidFile, writePidFile } from './orphans'
import type { PortProbe, PortRequest, PortedKind } from './ports'
import { allocatePorts, tcpPortProbe } from './ports'
import type { ProcFs } from './procfs'
import { defaultProcFs } from './procfs'
import type { ExitInfo, ProcessSpawner, SpawnedProcess } from './processes'
import { nodeProcessSpawner } from './processes'
import type { Clock, NetProbe } from './readiness'
import {
  fileSize,
  lastLines,
  LogWatcher,
  readRange,
  realNetProbe,
  systemClock,
  tailFile
} from './readiness'
import type { RocketmqLib } from './rocketmq-lib'
import { locateRocketmqLib } from './rocketmq-lib'
import type { ExitIntent, NodeAction, NodeState } from './state'
import { checkAction, RUNNING_STATES, stateAfterExit } from './state'
import { TypedEmitter } from './typed-emitter'

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
}

/** Progress line; `nodeId` is '' for sandbox-wide steps. */
export interface ProgressEvent {
  nodeId: string
  message: string
  at: number
}

export interface SandboxEvents extends Record<string, unknown> {
  'node-state': NodeStatus
  progress: ProgressEvent
}

export interface SandboxStatus {
  running: boolean
  /** The engine's (recorder's) run id passed to start(), if any. */
  runId: number | null
  /** Folder of this run: `<dataDir>/sandbox/<stamp>-<runId>`. */
  runDir: string | null
  startedAt: number | null
  nodes: NodeStatus[]
}

/** How long each name server took, after the last broker booted, to list every running broker. */
export interface RegistrationReport {
  /** Milliseconds from "all brokers up" to "every name server lists every broker"; null on timeout. */
  allMs: number | null
  byNameServer: Record<string, number | null>
  /** Brokers a name server still did not list when the wait ended. */
  missing: Record<string, string[]>
}

/** The management-node process command; a packaged app passes its built entry instead of tsx. */
export type ManagementCommand = (configFile: string) => {
  command: string
  args: string[]
  cwd?: string
  /** Extra environment, e.g. ELECTRON_RUN_AS_NODE when the command is the Electron binary. */
  env?: Record<string, string>
}

export interface SandboxOptions {
  /** App data folder; runs live in `<dataDir>/sandbox/<runId>/<nodeId>/`. */
  dataDir: string
  /** Repository (or app resources) root: `.rocketmq/lib` and the management entry are found from it. */
  repoRoot?: string
  /** Settings override for the RocketMQ folder (a home with lib/, or lib itself). */
  rocketmqHome?: string
  /** Settings override for the JDK. */
  javaHome?: string
  env?: NodeJS.ProcessEnv
  spawner?: ProcessSpawner
  clock?: Clock
  portProbe?: PortProbe
  portRange?: [number, number]
  net?: NetProbe
  procFs?: ProcFs
  /** Tests inject a fake; the default runs `java -version`. */
  findJava?: (options: FindJavaOptions) => JavaInfo
  locateRocketmq?: typeof locateRocketmqLib
  topicCreator?: TopicCreator
  registrationProbe?: RegistrationProbe
  managementCommand?: ManagementCommand
  /** Per-node boot budget (default 90 s). */
  bootTimeoutMs?: number
  /** SIGTERM → SIGKILL grace period on stop (default 15 s). */
  stopGraceMs?: number
  /** Heartbeat-based broker expiry (~10 s instead of 120 s); see brokerProperties. Default true. */
  fastBrokerExpiry?: boolean
  /** Old run folders kept on disk (default 3). */
  keepRuns?: number
  /** Measure broker registration in the background once brokers are up (default true). */
  trackRegistration?: boolean
  /** Kill children synchronously on exit/SIGINT/SIGTERM (default true). */
  installExitHandlers?: boolean
}

/** Boot-success lines RocketMQ prints to stdout (NamesrvStartup, BrokerStartup, ProxyStartup). */
export const BOOT_LINE: Record<'nameserver' | 'broker' | 'proxy', RegExp> = {
  nameserver: /The Name Server boot success/,
  broker: /The broker\[[^\]]*\] boot success/,
  proxy: /rocketmq-proxy startup successfully/
}

type ServerNode = Extract<TopologyNode, { kind: PortedKind }>

interface Runtime {
  node: ServerNode
  id: string
  kind: PortedKind
  room: string
  attached: boolean
  host: string
  port: number
  remotingPort?: number
  dir: string
  logFile: string
  command?: CommandSpec
  state: NodeState
  detail?: string
  proc?: SpawnedProcess
  exit?: ExitInfo
  intent: ExitIntent
  /** Serialises lifecycle operations on one node. */
  queue: Promise<unknown>
}

const SERVER_KINDS: readonly PortedKind[] = ['nameserver', 'management', 'broker', 'proxy']
const KILL_WAIT_MS = 10_000
const PROXY_BOOT_ATTEMPTS = 3
const PROXY_TRANSIENT_BOOT_FAILURE =
  /Remoting(Timeout|Connect|SendRequest|TooMuchRequest)Exception|create system .*topic .* failed/
const POLL_MS = 150

/** Live sandboxes of this process, for the synchronous exit handlers and the orphan sweep. */
const liveSandboxes = new Set<Sandbox>()
let handlersInstalled = false
const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']

function killEverythingSync(): void {
  for (const sandbox of liveSandboxes) sandbox.killAllSync()
}

function onFatalSignal(signal: NodeJS.Signals): void {
  killEverythingSync()
  // Re-raise with the default action when nobody else handles it, so Ctrl-C still exits.
  if (process.listenerCount(signal) === 1) {
    uninstallExitHandlers()
    process.kill(process.pid, signal)
  }
}

function installExitHandlers(): void {
  if (handlersInstalled) return
  handlersInstalled = true
  process.on('exit', killEverythingSync)
  for (const s of SIGNALS) process.on(s, onFatalSignal)
}

function uninstallExitHandlers(): void {
  if (!handlersInstalled) return
  handlersInstalled = false
  process.off('exit', killEverythingSync)
  for (const s of SIGNALS) process.off(s, onFatalSignal)
}

// Works from source and from the bundled CLI (out/cli), which sit at different depths.
const defaultRepoRoot = (): string => findAppPaths().root

/** Sortable, path-safe run folder name: 20261129-091512-r42 (engine run 42) or 20261129-091512-3f2a. */
export function makeRunName(
  now: number,
  runId?: number,
  random: () => number = Math.random
): string {
  const d = new Date(now)
  const p = (n: number): string => String(n).padStart(2, '0')
  const stamp = `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}-${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`
  const suffix =
    runId !== undefined
      ? `r${runId}`
      : Math.floor(random() * 0x10000)
          .toString(16)
          .padStart(4, '0')
  return `${stamp}-${suffix}`
}

/**
 * Runs a topology for real: name servers, management nodes, brokers and proxies as child processes
 * on loopback, with kill/pause/resume/restart as real signals. Plain Node; every effect is a port.
 */
export class Sandbox {
  readonly root: string
  private readonly opts: SandboxOptions
  private readonly emitter = new TypedEmitter<SandboxEvents>()
  private readonly spawner: ProcessSpawner
  private readonly clock: Clock
  private readonly net: NetProbe
  private readonly procFs: ProcFs
  private readonly repoRoot: string
  private readonly pidFile: string
  private nodes = new Map<string, Runtime>()
  private topology: Topology | undefined
  private currentRunId: number | null = null
  private currentRunDir: string | null = null
  private startedAt: number | null = null
  private brokersUpAt: number | null = null
  private java: JavaInfo | undefined
  private lib: RocketmqLib | undefined
  private topicCreator: TopicCreator | undefined
  private registrationProbe: RegistrationProbe | undefined
  private starting = false
  /** Aborted by stop() during a boot, so waiting nodes give up at once instead of after 90 s. */
  private bootAbort: AbortController | undefined
  private teardownRun: Promise<void> | undefined
  private registration: Promise<RegistrationReport> | undefined

  constructor(options: SandboxOptions) {
    this.opts = options
    this.root = resolve(options.dataDir, 'sandbox')
    this.pidFile = join(this.root, 'pids.json')
    this.spawner = options.spawner ?? nodeProcessSpawner
    this.clock = options.clock ?? systemClock
    this.net = options.net ?? realNetProbe
    this.procFs = options.procFs ?? defaultProcFs()
    this.repoRoot = options.repoRoot ?? defaultRepoRoot()
  }

  /** Subscribes to node-state or progress events; returns the unsubscribe function. */
  on<K extends keyof SandboxEvents>(
    event: K,
    listener: (payload: SandboxEvents[K]) => void
  ): () => void {
    return this.emitter.on(event, listener)
  }

  get running(): boolean {
    return this.currentRunDir !== null
  }

  get runId(): number | null {
    return this.currentRunId
  }

  get runDir(): string | null {
    return this.currentRunDir
  }

  status(): SandboxStatus {
    return {
      running: this.running,
      runId: this.currentRunId,
      runDir: this.currentRunDir,
      startedAt: this.startedAt,
      nodes: [...this.nodes.values()].map((rt) => this.statusOf(rt))
    }
  }

  /** Status of one node. */
  node(nodeId: string): NodeStatus {
    return this.statusOf(this.runtime(nodeId))
  }

  /** Pids of every live child, for RSS sampling and diagnostics. */
  processes(): { nodeId: string; pid: number }[] {
    return [...this.nodes.values()]
      .filter((rt) => rt.proc && rt.proc.pid > 0)
      .map((rt) => ({ nodeId: rt.id, pid: rt.proc!.pid }))
  }

  /** The exact command line a node runs with (shell-quoted), once the sandbox has planned it. */
  commandLine(nodeId: string): string | undefined {
    const rt = this.runtime(nodeId)
    return rt.command ? formatCommand(rt.command) : undefined
  }

  /** Where a node's stdout/stderr goes; RocketMQ's own logs are under `<dir>/logs/rocketmqlogs`. */
  logPath(nodeId: string): string {
    return this.runtime(nodeId).logFile
  }

  /** The end of a node's out.log. */
  readLog(nodeId: string, tailBytes = 65536): { path: string; text: string } {
    const rt = this.runtime(nodeId)
    return { path: rt.logFile, text: tailFile(rt.logFile, Math.max(1, tailBytes)) }
  }

  /** Boots the topology: name servers + management nodes, then brokers, topics, and proxies once brokers registered. */
  async start(topology: Topology, runId?: number): Promise<SandboxStatus> {
    if (this.running || this.starting) {
      throw new SandboxError(
        'already-running',
        `The sandbox is already running (${this.currentRunDir}); stop it before starting another topology.`
      )
    }
    this.starting = true
    try {
      await this.boot(topology, runId)
    } finally {
      this.starting = false
    }
    return this.status()
  }

  private async boot(topology: Topology, runId: number | undefined): Promise<void> {
    const t0 = this.clock.now()
    const nodes = listNodes(topology).filter((n): n is ServerNode =>
      SERVER_KINDS.includes(n.kind as PortedKind)
    )
    this.checkDiscovery(topology, nodes)
    const needsJvm = nodes.some((n) => !isAttached(n) && n.kind !== 'management')
    if (needsJvm) {
      this.java ??= (this.opts.findJava ?? findJava)({
        env: this.opts.env,
        javaHome: this.opts.javaHome
      })
      this.lib = (this.opts.locateRocketmq ?? locateRocketmqLib)({
        repoRoot: this.repoRoot,
        env: this.opts.env,
        override: this.opts.rocketmqHome
      })
    }
    const managementEntry = join(this.repoRoot, 'main', 'services', 'management', 'standalone.ts')
    if (
      !this.opts.managementCommand &&
      nodes.some((n) => n.kind === 'management' && !isAttached(n)) &&
      !existsSync(managementEntry)
    ) {
      throw new SandboxError(
        'topology',
        `The management node entry ${managementEntry} is missing; restore it from git, or pass a managementCommand.`
      )
    }

    mkdirSync(this.root, { recursive: true })
    this.sweepOrphans()

    const runDir = join(this.root, makeRunName(this.clock.now(), runId))
    this.topology = topology
    this.nodes = new Map()
    this.brokersUpAt = null
    this.registration = undefined
    for (const node of nodes) this.nodes.set(node.id, this.plan(node, runDir))

    const ours = [...this.nodes.values()].filter((rt) => !rt.attached)
    const requests: PortRequest[] = ours.map((rt) => ({
      nodeId: rt.id,
      kind: rt.kind,
      path: rt.node.path,
      port: rt.node.spec.port,
      remotingPort: rt.node.kind === 'proxy' ? rt.node.spec.remotingPort : undefined
    }))
    const reserved = [...this.nodes.values()]
      .filter((rt) => rt.attached && isLoopback(rt.host))
      .flatMap((rt) => [rt.port, ...(rt.remotingPort ? [rt.remotingPort] : [])])
    const ports = await allocatePorts(requests, this.opts.portProbe ?? tcpPortProbe, {
      range: this.opts.portRange,
      reserved
    })
    for (const rt of ours) {
      const a = ports.get(rt.id)!
      rt.port = a.port
      if (a.remotingPort !== undefined) rt.remotingPort = a.remotingPort
    }

    mkdirSync(runDir, { recursive: true })
    this.currentRunId = runId ?? null
    this.currentRunDir = runDir
    liveSandboxes.add(this)
    if (this.opts.installExitHandlers ?? true) installExitHandlers()
    this.pruneRuns()
    this.progress('', `run folder ${runDir}`)

    const bootAbort = (this.bootAbort = new AbortController())
    const checkpoint = (): void => {
      if (bootAbort.signal.aborted) throw bootAbort.signal.reason
    }
    try {
      for (const rt of ours) this.writeConfig(rt, topology)
      for (const rt of this.nodes.values()) this.emitState(rt)
      await this.probeAttached()

      await this.bootGroup(
        ours.filter((rt) => rt.kind === 'nameserver' || rt.kind === 'management'),
        bootAbort.signal
      )
      checkpoint()
      await this.bootGroup(
        ours.filter((rt) => rt.kind === 'broker'),
        bootAbort.signal
      )
      checkpoint()
      this.brokersUpAt = this.clock.now()
      if (this.opts.trackRegistration ?? true) {
        this.registration = this.pollRegistration(this.brokersUpAt, 120_000)
        this.registration.catch(() => undefined)
      }
      await this.createTopics(topology)
      checkpoint()
      const proxies = ours.filter((rt) => rt.kind === 'proxy')
      if (proxies.length > 0) {
        // A cluster-mode proxy creates its system topics through the name servers at boot and exits
        // when no broker of its cluster is registered yet (~10-20 s with management discovery).
        this.progress(
          '',
          'waiting for brokers to register with the name servers before starting proxies'
        )
        await (this.registration ?? this.pollRegistration(this.brokersUpAt, 120_000))
        checkpoint()
        await this.bootGroup(proxies, bootAbort.signal)
      }
    } catch (err) {
      this.progress('', `boot failed: ${(err as Error).message}; stopping everything started`)
      await this.teardown(true)
      throw err
    } finally {
      this.bootAbort = undefined
    }
    this.startedAt = this.clock.now()
    this.progress('', `all nodes ready in ${this.startedAt - t0} ms`)
  }

  /** Stops every node (brokers and proxies first, so they can unregister), then forgets the run. */
  async stop(options: { force?: boolean } = {}): Promise<SandboxStatus> {
    this.bootAbort?.abort(
      new SandboxError('boot-exit', 'The sandbox was stopped while it was booting.')
    )
    if (this.running) await this.teardown(options.force ?? false)
    return this.status()
  }

  /** One teardown at a time: stop() during a failing boot joins the boot's own teardown. */
  private teardown(force: boolean): Promise<void> {
    this.teardownRun ??= this.doTeardown(force).finally(() => (this.teardownRun = undefined))
    return this.teardownRun
  }

  private async doTeardown(force: boolean): Promise<void> {
    const live = (kinds: PortedKind[]): Runtime[] =>
      [...this.nodes.values()].filter((rt) => kinds.includes(rt.kind) && rt.proc)
    if (force) {
      await Promise.all(
        live([...SERVER_KINDS]).map((rt) => this.enqueue(rt, () => this.doKill(rt)))
      )
    } else {
      await Promise.all(
        live(['broker', 'proxy']).map((rt) => this.enqueue(rt, () => this.doStop(rt)))
      )
      await Promise.all(
        live(['nameserver', 'management']).map((rt) => this.enqueue(rt, () => this.doStop(rt)))
      )
    }
    this.topicCreator?.close?.()
    this.topicCreator = undefined
    this.registrationProbe?.close?.()
    this.registrationProbe = undefined
    const runDir = this.currentRunDir
    if (runDir) updatePidFile(this.pidFile, (entries) => entries.filter((e) => e.runDir !== runDir))
    liveSandboxes.delete(this)
    if (liveSandboxes.size === 0) uninstallExitHandlers()
    this.currentRunDir = null
    this.currentRunId = null
    this.startedAt = null
    this.progress('', 'sandbox stopped')
  }

  /** Applies an operator action to one node. */
  async act(nodeId: string, action: NodeAction): Promise<NodeStatus> {
    const rt = this.runtime(nodeId)
    if (!this.running) {
      throw new SandboxError(
        'node-state',
        `Cannot ${action} node ${nodeId}: the sandbox is not running; start it first.`,
        {
          nodeId
        }
      )
    }
    await this.enqueue(rt, async () => {
      const check = checkAction(rt.state, action)
      if (!check.ok) {
        if (check.reason === 'attached') {
          throw new SandboxError(
            'node-attached',
            `node ${nodeId} is attached (${rt.host}:${rt.port}); DR Studio cannot ${action} it. ` +
              'Manage it where it runs, or remove its "host" and "port" to let the sandbox start its own.',
            { nodeId }
          )
        }
        throw new SandboxError('node-state', `Cannot ${action} node ${nodeId}: ${check.reason}.`, {
          nodeId
        })
      }
      if (check.noop) return
      switch (action) {
        case 'start':
          return this.bootNode(rt)
        case 'stop':
          return this.doStop(rt)
        case 'kill':
          return this.doKill(rt)
        case 'pause':
          return this.doPause(rt)
        case 'resume':
          return this.doResume(rt)
        case 'restart':
          if (rt.proc) await this.doStop(rt)
          return this.bootNode(rt)
      }
    })
    return this.statusOf(rt)
  }

  startNode(nodeId: string): Promise<NodeStatus> {
    return this.act(nodeId, 'start')
  }

  /** Graceful: SIGTERM, then SIGKILL after the grace period. */
  stopNode(nodeId: string): Promise<NodeStatus> {
    return this.act(nodeId, 'stop')
  }

  /** SIGKILL to the node's process group. */
  killNode(nodeId: string): Promise<NodeStatus> {
    return this.act(nodeId, 'kill')
  }

  /** SIGSTOP: the process freezes without closing its sockets, like a hung machine. */
  pauseNode(nodeId: string): Promise<NodeStatus> {
    return this.act(nodeId, 'pause')
  }

  /** SIGCONT. */
  resumeNode(nodeId: string): Promise<NodeStatus> {
    return this.act(nodeId, 'resume')
  }

  restartNode(nodeId: string): Promise<NodeStatus> {
    return this.act(nodeId, 'restart')
  }

  /**
   * How long after the last broker printed its boot line every name server listed every broker.
   * The sandbox starts measuring as soon as the brokers are up; this awaits that measurement (or runs
   * a fresh one when called later, e.g. after a restart). Management discovery adds ~10 s by design:
   * a broker first fetches the address list 10 s after boot.
   */
  waitForRegistration(
    options: { timeoutMs?: number; intervalMs?: number; fresh?: boolean } = {}
  ): Promise<RegistrationReport> {
    if (this.registration && !options.fresh) return this.registration
    return this.pollRegistration(this.clock.now(), options.timeoutMs, options.intervalMs)
  }

  private async pollRegistration(
    since: number,
    timeoutMs = 60_000,
    intervalMs = 250
  ): Promise<RegistrationReport> {
    const probe = (this.registrationProbe ??=
      this.opts.registrationProbe ?? remotingRegistrationProbe(createRemotingAdmin()))
    const runDir = this.currentRunDir
    const nameServers = [...this.nodes.values()].filter(
      (rt) => rt.kind === 'nameserver' && rt.state === 'up'
    )
    const expected = [...this.nodes.values()]
      .filter((rt) => rt.kind === 'broker' && rt.state === 'up')
      .map((rt) => `${rt.host}:${rt.port}`)
    const deadline = this.clock.now() + timeoutMs
    const byNameServer: Record<string, number | null> = {}
    const missing: Record<string, string[]> = {}
    for (const ns of nameServers) {
      byNameServer[ns.id] = null
      missing[ns.id] = [...expected]
    }
    while (this.clock.now() < deadline && this.currentRunDir === runDir) {
      await Promise.all(
        nameServers
          .filter((ns) => byNameServer[ns.id] === null)
          .map(async (ns) => {
            const listed = await probe
              .brokersOn(`${ns.host}:${ns.port}`)
              .catch(() => [] as string[])
            missing[ns.id] = expected.filter((a) => !listed.includes(a))
            if (missing[ns.id]!.length === 0 && byNameServer[ns.id] === null) {
              byNameServer[ns.id] = this.clock.now() - since
              this.progress(
                ns.id,
                `lists all ${expected.length} brokers (${byNameServer[ns.id]} ms after boot)`
              )
            }
          })
      )
      if (Object.values(byNameServer).every((v) => v !== null)) break
      await this.clock.sleep(intervalMs)
    }
    const times = Object.values(byNameServer)
    const allMs = times.every((v) => v !== null) ? Math.max(0, ...(times as number[])) : null
    return { allMs, byNameServer, missing }
  }

  /**
   * Kills processes recorded in pids.json by a DR Studio process that is gone, when the pid still runs
   * a command line containing its run folder. Returns how many were killed.
   */
  sweepOrphans(): number {
    const entries = readPidFile(this.pidFile)
    if (entries.length === 0) return 0
    const liveRunDirs = new Set(
      [...liveSandboxes].map((s) => s.runDir).filter((d): d is string => d !== null)
    )
    const plan = planOrphanSweep(entries, {
      procFs: this.procFs,
      liveRunDirs,
      selfPid: process.pid,
      isAlive: isPidAlive
    })
    for (const entry of plan.kill) {
      this.spawner.signal(entry.pid, 'SIGKILL')
      this.progress(
        entry.nodeId,
        `killed orphan pid ${entry.pid} left by an earlier run (${entry.runDir})`
      )
    }
    writePidFile(this.pidFile, plan.keep)
    return plan.kill.length
  }

  /** Synchronous SIGKILL of every child; used by the process exit handlers. */
  killAllSync(): void {
    for (const rt of this.nodes.values()) {
      if (rt.proc && rt.proc.pid > 0) {
        rt.intent = 'kill'
        this.spawner.signal(rt.proc.pid, 'SIGKILL')
      }
    }
  }

  // ---- planning -------------------------------------------------------------------------------

  private checkDiscovery(topology: Topology, nodes: ServerNode[]): void {
    if (topology.settings.namesrvDiscovery !== 'management') return
    for (const room of topology.rooms) {
      const needs = nodes.some(
        (n) => n.room === room.id && (n.kind === 'broker' || n.kind === 'proxy') && !isAttached(n)
      )
      if (needs && room.managementNodes.length === 0) {
        throw new SandboxError(
          'topology',
          `Room ${room.id} has brokers but no management node, and settings.namesrvDiscovery is "management". ` +
            `Add a management node to room ${room.id}, or set namesrvDiscovery to "static".`
        )
      }
    }
  }

  private plan(node: ServerNode, runDir: string): Runtime {
    const attached = isAttached(node)
    const dir = join(runDir, node.id)
    return {
      node,
      id: node.id,
      kind: node.kind,
      room: node.room,
      attached,
      host: attached ? hostOf(node) : '127.0.0.1',
      port: node.spec.port ?? 0,
      ...(node.kind === 'proxy' && node.spec.remotingPort !== undefined
        ? { remotingPort: node.spec.remotingPort }
        : {}),
      dir,
      logFile: join(dir, 'out.log'),
      state: attached ? 'attached' : 'stopped',
      intent: undefined,
      queue: Promise.resolve()
    }
  }

  private discoveryFor(room: string): Discovery {
    const topology = this.topology!
    if (topology.settings.namesrvDiscovery === 'management') {
      const mgmt = [...this.nodes.values()].find(
        (rt) => rt.kind === 'management' && rt.room === room
      )!
      return { mode: 'management', address: `${mgmt.host}:${mgmt.port}` }
    }
    return { mode: 'static', namesrvAddr: this.nameServerAddresses() }
  }

  private nameServerAddresses(): string[] {
    return [...this.nodes.values()]
      .filter((rt) => rt.kind === 'nameserver')
      .map((rt) => `${rt.host}:${rt.port}`)
  }

  private writeConfig(rt: Runtime, topology: Topology): void {
    mkdirSync(rt.dir, { recursive: true })
    const fast = this.opts.fastBrokerExpiry ?? true
    const jvm = (): JvmContext => ({ java: this.java!.path, lib: this.lib!.dir })
    const header = [
      `DR Studio sandbox, node ${rt.id} (${rt.kind}) in room ${rt.room}`,
      `run folder ${this.currentRunDir}`
    ]
    const node = rt.node
    let spec: CommandSpec
    switch (node.kind) {
      case 'nameserver': {
        const file = join(rt.dir, 'namesrv.properties')
        const props = namesrvProperties({ port: rt.port, nodeDir: rt.dir, fastBrokerExpiry: fast })
        writeFileSync(file, renderProperties(props, header))
        spec = namesrvCommand(jvm(), rt.dir, file)
        break
      }
      case 'broker': {
        const file = join(rt.dir, 'broker.conf')
        const props = brokerProperties({
          cluster: node.spec.cluster,
          brokerName: node.spec.brokerName,
          brokerId: node.spec.brokerId,
          role: node.spec.role,
          port: rt.port,
          nodeDir: rt.dir,
          discovery: this.discoveryFor(rt.room),
          fastBrokerExpiry: fast,
          popConsumption: listNodes(topology).some((n) => n.kind === 'proxy')
        })
        writeFileSync(file, renderProperties(props, header))
        spec = brokerCommand(jvm(), rt.dir, file, rt.room)
        break
      }
      case 'proxy': {
        const file = join(rt.dir, 'rmq-proxy.json')
        const brokers = listNodes(topology).filter((n) => n.kind === 'broker')
        const cluster =
          (brokers.find((b) => b.room === rt.room) ?? brokers[0])?.spec.cluster ?? 'DefaultCluster'
        const config = proxyConfig({
          cluster,
          proxyName: rt.id,
          grpcPort: rt.port,
          remotingPort: rt.remotingPort ?? rt.port + 1,
          discovery: this.discoveryFor(rt.room)
        })
        writeFileSync(file, JSON.stringify(config, null, 2) + '\n')
        spec = proxyCommand(jvm(), rt.dir, file, node.spec.zoneMode ? rt.room : undefined)
        break
      }
      case 'management': {
        const file = join(rt.dir, 'management.json')
        const config: ManagementNodeConfig = {
          id: rt.id,
          room: rt.room,
          host: '127.0.0.1',
          port: rt.port,
          probeIntervalMs: topology.settings.probeIntervalMs,
          probeTimeoutMs: topology.settings.probeTimeoutMs,
          nameServers: [...this.nodes.values()]
            .filter((n) => n.kind === 'nameserver')
            .map((n) => ({ id: n.id, room: n.room, address: `${n.host}:${n.port}` })),
          proxies: [...this.nodes.values()].flatMap((n) =>
            n.node.kind === 'proxy'
              ? [
                  {
                    id: n.id,
                    room: n.room,
                    address: `${n.host}:${n.port}`,
                    ...(n.remotingPort !== undefined
                      ? { remotingAddress: `${n.host}:${n.remotingPort}` }
                      : {}),
                    zoneMode: n.node.spec.zoneMode
                  }
                ]
              : []
          )
        }
        writeFileSync(file, JSON.stringify(config, null, 2) + '\n')
        const cmd = (this.opts.managementCommand ?? this.defaultManagementCommand())(file)
        spec = { command: cmd.command, args: cmd.args, env: cmd.env ?? {}, cwd: cmd.cwd ?? rt.dir }
        break
      }
    }
    rt.command = spec
  }

  private defaultManagementCommand(): ManagementCommand {
    const entry = join(this.repoRoot, 'main', 'services', 'management', 'standalone.ts')
    const runtime = nodeRuntimeCommand()
    return (configFile) => ({
      command: runtime.command,
      args: ['--import', 'tsx', entry, configFile],
      cwd: this.repoRoot,
      env: { ...runtime.env }
    })
  }

  // ---- booting --------------------------------------------------------------------------------

  /** Boots nodes in parallel; on the first failure the others stop waiting and the error propagates. */
  private async bootGroup(group: Runtime[], parent: AbortSignal): Promise<void> {
    if (group.length === 0) return
    const abort = new AbortController()
    const signal = AbortSignal.any([parent, abort.signal])
    const runs = group.map((rt) =>
      this.enqueue(rt, () => this.bootNode(rt, signal)).catch((err: unknown) => {
        abort.abort(new SandboxError('boot-exit', 'Boot abandoned: another node failed to boot.'))
        throw err
      })
    )
    try {
      await Promise.all(runs)
    } catch (err) {
      await Promise.allSettled(runs)
      throw err
    }
  }

  /**
   * bootOne, plus retries for a proxy that exits at boot because its first name-server or broker call
   * timed out (it creates its system topics with ~1-3 s timeouts and exits on failure; seen at load 20
   * on 2 cores). Any other boot failure propagates at once.
   */
  private async bootNode(rt: Runtime, signal?: AbortSignal): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.bootOne(rt, signal)
      } catch (err) {
        const transient =
          rt.kind === 'proxy' &&
          err instanceof NodeBootError &&
          err.code === 'boot-exit' &&
          PROXY_TRANSIENT_BOOT_FAILURE.test(err.message)
        if (!transient || attempt >= PROXY_BOOT_ATTEMPTS || signal?.aborted) throw err
        this.progress(
          rt.id,
          `proxy exited while booting (a name-server/broker call timed out); retrying, attempt ${attempt + 1} of ${PROXY_BOOT_ATTEMPTS}`
        )
      }
    }
  }

  /** Spawns one node and waits for readiness; a failed boot leaves no process behind. */
  private async bootOne(rt: Runtime, signal?: AbortSignal): Promise<void> {
    const spec = rt.command!
    mkdirSync(rt.dir, { recursive: true })
    appendFileSync(
      rt.logFile,
      `\n=== DR Studio ${new Date(this.clock.now()).toISOString()} starting ${rt.id}: ${formatCommand(spec)}\n`
    )
    const offset = fileSize(rt.logFile)
    rt.intent = undefined
    rt.exit = undefined
    rt.detail = undefined
    this.setState(rt, 'starting')
    this.progress(rt.id, `starting ${rt.kind} on ${rt.host}:${rt.port}`)
    const env = { ...scrubEnv(this.opts.env ?? process.env), ...spec.env }
    const proc = this.spawner.spawn({
      command: spec.command,
      args: spec.args,
      env,
      cwd: spec.cwd,
      logFile: rt.logFile,
      lifeline: rt.kind === 'management'
    })
    rt.proc = proc
    if (proc.pid > 0) this.recordPid(rt, proc.pid)
    void proc.exited.then((info) => this.onExit(rt, proc, info))
    try {
      await this.waitReady(rt, proc, offset, signal)
    } catch (err) {
      if (rt.proc === proc) {
        await this.doKill(rt)
        // A node abandoned because of another one's failure (or a stop) stays "killed", not "failed".
        if (!(signal?.aborted && err === signal.reason)) {
          this.setState(rt, 'failed', err instanceof Error ? err.message : String(err))
        }
      }
      throw err
    }
    this.setState(rt, 'up')
    this.progress(rt.id, `${rt.kind} ready on ${rt.host}:${rt.port}`)
  }

  private async waitReady(
    rt: Runtime,
    proc: SpawnedProcess,
    offset: number,
    signal?: AbortSignal
  ): Promise<void> {
    const timeoutMs = this.opts.bootTimeoutMs ?? 90_000
    const deadline = this.clock.now() + timeoutMs
    const watcher = new LogWatcher(rt.logFile, offset)
    let exited: ExitInfo | undefined
    void proc.exited.then((info) => (exited = info))
    let lineSeen = rt.kind === 'management'
    const what =
      rt.kind === 'management'
        ? `GET http://${rt.host}:${rt.port}/healthz`
        : `"${BOOT_LINE[rt.kind].source}" in the log and port ${rt.port} open`
    for (;;) {
      if (exited) throw this.bootExitError(rt, exited, offset)
      if (signal?.aborted) throw signal.reason
      if (!lineSeen && rt.kind !== 'management')
        lineSeen = watcher.find(BOOT_LINE[rt.kind]) !== undefined
      if (lineSeen) {
        const ready =
          rt.kind === 'management'
            ? Math.floor(
                ((await this.net.httpGet(`http://${rt.host}:${rt.port}/healthz`, 1000))?.status ??
                  0) / 100
              ) === 2
            : await this.net.tcp(rt.host, rt.port, 1000)
        if (ready && !exited) return
      }
      if (this.clock.now() >= deadline) {
        throw new NodeBootError(
          'boot-timeout',
          rt.id,
          `Node ${rt.id} (${rt.kind}) was not ready after ${seconds(timeoutMs)} ` +
            `(waiting for ${what}). Check its log: ${rt.logFile}`,
          rt.logFile
        )
      }
      await Promise.race([this.clock.sleep(POLL_MS), proc.exited])
    }
  }

  private bootExitError(rt: Runtime, exit: ExitInfo, offset: number): NodeBootError {
    const how = exit.error
      ? `could not be started (${exit.error})`
      : exit.signal
        ? `was killed by ${exit.signal} while booting`
        : `exited with code ${exit.code} while booting`
    const tail = lastLines(
      readRange(rt.logFile, Math.max(offset, fileSize(rt.logFile) - 16384)),
      15
    )
    const lines = tail.length > 0 ? `\nLast log lines:\n  ${tail.join('\n  ')}` : ''
    return new NodeBootError(
      'boot-exit',
      rt.id,
      `Node ${rt.id} (${rt.kind}) ${how}.${lines}\nFull log: ${rt.logFile}`,
      rt.logFile,
      exit.code
    )
  }

  private onExit(rt: Runtime, proc: SpawnedProcess, info: ExitInfo): void {
    if (proc.pid > 0) this.forgetPid(proc.pid)
    if (rt.proc !== proc) return
    rt.proc = undefined
    rt.exit = info
    const next = stateAfterExit(rt.state, rt.intent)
    const how = info.error ?? (info.signal ? `signal ${info.signal}` : `exit code ${info.code}`)
    this.setState(rt, next, next === 'down' ? `exited unexpectedly (${how})` : how)
  }

  // ---- operations -----------------------------------------------------------------------------

  private async doStop(rt: Runtime): Promise<void> {
    const proc = rt.proc
    if (!proc) return
    rt.intent = 'stop'
    this.progress(rt.id, 'stopping (SIGTERM)')
    this.spawner.signal(proc.pid, 'SIGTERM')
    if (rt.state === 'paused') this.spawner.signal(proc.pid, 'SIGCONT')
    const graceMs = this.opts.stopGraceMs ?? 15_000
    if (await this.waitExit(proc, graceMs)) return
    this.progress(rt.id, `still running after ${graceMs} ms; sending SIGKILL`)
    this.spawner.signal(proc.pid, 'SIGKILL')
    await this.waitExit(proc, KILL_WAIT_MS)
  }

  private async doKill(rt: Runtime): Promise<void> {
    const proc = rt.proc
    if (!proc) return
    rt.intent = 'kill'
    this.spawner.signal(proc.pid, 'SIGKILL')
    await this.waitExit(proc, KILL_WAIT_MS)
  }

  private async doPause(rt: Runtime): Promise<void> {
    const proc = rt.proc!
    this.spawner.signal(proc.pid, 'SIGSTOP')
    await this.waitProcState(proc.pid, (s) => s === 'T' || s === 't')
    this.setState(rt, 'paused', 'SIGSTOP')
  }

  private async doResume(rt: Runtime): Promise<void> {
    const proc = rt.proc!
    this.spawner.signal(proc.pid, 'SIGCONT')
    await this.waitProcState(proc.pid, (s) => s !== 'T' && s !== 't')
    this.setState(rt, 'up', 'SIGCONT')
  }

  /** Signals are asynchronous; wait (briefly) until /proc shows the effect. */
  private async waitProcState(
    pid: number,
    ok: (state: string | undefined) => boolean
  ): Promise<void> {
    const deadline = this.clock.now() + 2000
    while (this.clock.now() < deadline) {
      const s = this.procFs.state(pid)
      if (s === undefined || ok(s)) return
      await this.clock.sleep(20)
    }
  }

  private async waitExit(proc: SpawnedProcess, ms: number): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<false>((r) => (timer = setTimeout(() => r(false), ms)))
    const done = await Promise.race([proc.exited.then(() => true as const), timeout])
    clearTimeout(timer)
    return done
  }

  private async createTopics(topology: Topology): Promise<void> {
    const topics = topicsOf(topology)
    const masters = [...this.nodes.values()].filter(
      (rt) =>
        rt.kind === 'broker' &&
        !rt.attached &&
        rt.node.kind === 'broker' &&
        rt.node.spec.role === 'master'
    )
    if (topics.length === 0 || masters.length === 0) return
    const creator = (this.topicCreator ??=
      this.opts.topicCreator ?? remotingTopicCreator(createRemotingAdmin()))
    await Promise.all(
      masters.flatMap((rt) =>
        topics.map(async (topic) => {
          const brokerName = rt.node.kind === 'broker' ? rt.node.spec.brokerName : rt.id
          let lastError: unknown
          for (let attempt = 1; attempt <= 3; attempt++) {
            try {
              await creator.createTopic({
                brokerAddress: `${rt.host}:${rt.port}`,
                brokerName,
                topic: topic.name,
                queues: topic.queues
              })
              this.progress(rt.id, `topic ${topic.name} (${topic.queues} queues) created`)
              return
            } catch (err) {
              lastError = err
              await this.clock.sleep(500 * attempt)
            }
          }
          throw new SandboxError(
            'topic-create',
            `Could not create topic ${topic.name} on broker ${rt.id} (${rt.host}:${rt.port}): ` +
              `${(lastError as Error)?.message ?? lastError}. Check ${rt.logFile}.`,
            { nodeId: rt.id, cause: lastError }
          )
        })
      )
    )
  }

  private async probeAttached(): Promise<void> {
    await Promise.all(
      [...this.nodes.values()]
        .filter((rt) => rt.attached)
        .map(async (rt) => {
          const ok = await this.net.tcp(rt.host, rt.port, 2000)
          rt.detail = ok ? 'reachable' : `unreachable (${rt.host}:${rt.port} refused or timed out)`
          this.emitState(rt)
        })
    )
  }

  // ---- bookkeeping ----------------------------------------------------------------------------

  private runtime(nodeId: string): Runtime {
    const rt = this.nodes.get(nodeId)
    if (!rt) {
      const known = [...this.nodes.keys()].join(', ') || 'none (the sandbox has not been started)'
      throw new SandboxError(
        'unknown-node',
        `No sandbox node "${nodeId}"; known nodes: ${known}.`,
        { nodeId }
      )
    }
    return rt
  }

  private enqueue<T>(rt: Runtime, op: () => Promise<T>): Promise<T> {
    const next = rt.queue.then(op, op)
    rt.queue = next.catch(() => undefined)
    return next
  }

  private statusOf(rt: Runtime): NodeStatus {
    const status: NodeStatus = { nodeId: rt.id, kind: rt.kind, room: rt.room, state: rt.state }
    if (rt.proc && rt.proc.pid > 0) status.pid = rt.proc.pid
    if (rt.port > 0) status.address = `${rt.host}:${rt.port}`
    if (rt.detail) status.detail = rt.detail
    return status
  }

  private setState(rt: Runtime, state: NodeState, detail?: string): void {
    rt.state = state
    rt.detail = detail
    this.emitState(rt)
  }

  private emitState(rt: Runtime): void {
    this.emitter.emit('node-state', this.statusOf(rt))
  }

  private progress(nodeId: string, message: string): void {
    this.emitter.emit('progress', { nodeId, message, at: this.clock.now() })
  }

  private recordPid(rt: Runtime, pid: number): void {
    const entry: PidEntry = {
      pid,
      nodeId: rt.id,
      runDir: this.currentRunDir!,
      ownerPid: process.pid,
      startedAt: this.clock.now()
    }
    updatePidFile(this.pidFile, (entries) => [...entries.filter((e) => e.pid !== pid), entry])
  }

  private forgetPid(pid: number): void {
    updatePidFile(this.pidFile, (entries) => entries.filter((e) => e.pid !== pid))
  }

  /** Keeps the newest `keepRuns` run folders (plus any still in use). */
  private pruneRuns(): void {
    const keep = this.opts.keepRuns ?? 3
    const inUse = new Set([
      ...readPidFile(this.pidFile).map((e) => e.runDir),
      ...[...liveSandboxes].map((s) => s.runDir)
    ])
    let dirs: string[]
    try {
      dirs = readdirSync(this.root, { withFileTypes: true })
        .filter((d) => d.isDirectory() && /^\d{8}-\d{6}-(r\d+|[0-9a-f]{4})$/.test(d.name))
        .map((d) => d.name)
        .sort()
    } catch {
      return
    }
    for (const name of dirs.slice(0, Math.max(0, dirs.length - keep))) {
      const dir = join(this.root, name)
      if (!inUse.has(dir)) rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** 90000 → "90 s", 400 → "0.4 s". */
function seconds(ms: number): string {
  return `${ms % 1000 === 0 ? ms / 1000 : (ms / 1000).toFixed(1)} s`
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.')
}

/** True when the node has a live process (starting, up or paused). */
export function isRunningState(state: NodeState): boolean {
  return RUNNING_STATES.includes(state)
}
