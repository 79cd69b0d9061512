import { httpManagementNameServers } from './launch-discovery'
import { mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { NetworkFault } from '../../../common/scenario/schema'
import type { Topology } from '../../../common/topology/schema'
import { findAppPaths } from '../app-paths'
import type { ActiveFault } from '../network/faults'
import type { ControllerEndpoint } from './controller-readiness'
import type { ControllerBootInput } from './controller-boot'
import { controllerEndpoints } from './controller-boot'
import { SandboxError } from './errors'
import { onProcessExit } from './exit-handlers'
import type { JavaInfo } from './java'
import { findJava } from './java'
import type { GroupTrackerDeps } from './group-tracker'
import { trackGroups } from './group-tracker'
import { formatCommand } from './jvm'
import type { NodeCommandContext } from './node-commands'
import type { NodeProcess, NodeProcessDeps, NodeStatus, ServerNode } from './node-process'
import { tcpPortProbe } from './ports'
import { defaultProcFs } from './procfs'
import type { ProcessSpawner } from './processes'
import { nodeProcessSpawner } from './processes'
import type { Clock } from './readiness'
import { realNetProbe, systemClock, tailFile } from './readiness'
import type { RegistrationReport } from './registration'
import { pollRegistration } from './registration'
import type { RocketmqLib } from './rocketmq-lib'
import { locateRocketmqLib } from './rocketmq-lib'
import { ClassArchives, defaultArchiveDir } from './class-archives'
import { makeRunName, pruneRunFolders } from './run-folders'
import type { TeardownMode } from './sandbox-actions'
import { actOnNode, stopNodes } from './sandbox-actions'
import { SandboxAdminClients } from './sandbox-admin'
import type { BootDeps } from './sandbox-boot'
import {
  bootSequence,
  checkDiscovery,
  checkManagementEntry,
  defaultManagementCommand,
  needsJvm
} from './sandbox-boot'
import type { NetworkStatus } from './sandbox-network'
import { SandboxNetwork } from './sandbox-network'
import type { SandboxEvents, SandboxOptions, SandboxStatus } from './sandbox-options'
import { SandboxPids } from './sandbox-pids'
import { serverNodes } from './sandbox-placement'
import type { NodeAction, NodeState } from './state'
import { RUNNING_STATES } from '../../../common/contract/node-actions'
import { TypedEmitter } from './typed-emitter'
import { AttachedNodes } from './attached-nodes'
import type { ObservedChange } from '../attach/prober'

export type { NodeStatus } from './node-process'
export { BOOT_LINE } from './node-process'
export type { ManagementCommand } from './node-commands'
export type { RegistrationReport } from './registration'
export type { ControllerEndpoint } from './controller-readiness'
export { makeRunName } from './run-folders'
export type { NetworkStatus } from './sandbox-network'
export type { ProgressEvent, SandboxEvents, SandboxOptions, SandboxStatus } from './sandbox-options'

/** Live sandboxes of this process, for the orphan sweep (which must not kill a live one's children). */
const liveSandboxes = new Set<Sandbox>()

// Works from source and from the bundled CLI (out/cli), which sit at different depths.
const defaultRepoRoot = (): string => findAppPaths().root

function liveRunDirs(): string[] {
  return [...liveSandboxes].map((s) => s.runDir).filter((d): d is string => d !== null)
}

/**
 * Runs a topology for real: name servers, management nodes, brokers and proxies as child processes,
 * each room on its own network when the OS allows (else on loopback), with kill/pause/resume/restart
 * as real signals and link faults as rules. Plain Node; every effect is a port.
 */
export class Sandbox {
  readonly root: string
  private readonly opts: SandboxOptions
  private readonly emitter = new TypedEmitter<SandboxEvents>()
  private readonly spawner: ProcessSpawner
  private readonly clock: Clock
  private readonly repoRoot: string
  private readonly pids: SandboxPids
  private readonly net: SandboxNetwork
  private nodes = new Map<string, NodeProcess>()
  private currentRunId: number | null = null
  private currentRunDir: string | null = null
  private startedAt: number | null = null
  private java: JavaInfo | undefined
  private lib: RocketmqLib | undefined
  private archives: ClassArchives | undefined
  private readonly admin: SandboxAdminClients
  private starting = false
  /** Aborted by stop() during a boot, so waiting nodes give up at once instead of after 90 s. */
  private bootAbort: AbortController | undefined
  private teardownRun: Promise<void> | undefined
  private registration: Promise<RegistrationReport> | undefined
  private unregisterExit: (() => void) | undefined
  private topology: Topology | undefined
  private readonly attachedNodes: AttachedNodes
  /** Aborted at teardown: replicas restarted during the run stop being tracked to readiness. */
  private trackAbort = new AbortController()
  private readonly tracking = new Set<Promise<void>>()

  constructor(options: SandboxOptions) {
    this.opts = options
    this.root = resolve(options.dataDir, 'sandbox')
    this.spawner = options.spawner ?? nodeProcessSpawner
    this.clock = options.clock ?? systemClock
    this.pids = new SandboxPids(join(this.root, 'pids.json'), this.clock)
    this.repoRoot = options.repoRoot ?? defaultRepoRoot()
    this.net = new SandboxNetwork(options.network)
    this.admin = new SandboxAdminClients({ ...options, attachedProbe: options.attached?.probe })
    this.attachedNodes = new AttachedNodes(
      {
        probe: () => this.admin.attachedProbe(),
        ...(options.attached?.allowActions !== undefined
          ? { allowActions: options.attached.allowActions }
          : {}),
        ...(options.attached?.run ? { run: options.attached.run } : {})
      },
      (change) => this.emitter.emit('observed', change)
    )
  }

  /** Node state changes and attached nodes' observed states, for a run's ledger (ClusterPort.watch). */
  watch(fns: {
    nodeState?: (s: NodeStatus) => void
    observed?: (c: ObservedChange) => void
  }): () => void {
    const offs = [
      ...(fns.nodeState ? [this.on('node-state', fns.nodeState)] : []),
      ...(fns.observed ? [this.on('observed', fns.observed)] : [])
    ]
    return () => offs.forEach((off) => off())
  }

  /** Lets operator commands run on attached nodes (the app, once the user confirmed). */
  allowOperatorActions(allow: boolean): void {
    this.attachedNodes.allow(allow)
  }

  /** Subscribes to node-state, progress or network events; returns the unsubscribe function. */
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
      nodes: [...this.nodes.values()].map((rt) => this.nodeStatus(rt))
    }
  }

  private nodeStatus(rt: NodeProcess): NodeStatus {
    const s = rt.status()
    if (!rt.attached) return s
    return {
      ...s,
      attached: true,
      ...(this.attachedNodes.restorable(rt.id) ? { restorable: true } : {})
    }
  }

  /** Status of one node. */
  node(nodeId: string): NodeStatus {
    return this.nodeStatus(this.runtime(nodeId))
  }

  /** Pids of every live child, for RSS sampling and diagnostics. */
  processes(): { nodeId: string; pid: number }[] {
    return [...this.nodes.values()]
      .filter((rt) => rt.proc && rt.proc.pid > 0)
      .map((rt) => ({ nodeId: rt.id, pid: rt.proc!.pid }))
  }

  /** CPU seconds a running node's process has used (null: not running, or not readable here). */
  cpuSeconds(nodeId: string): number | null {
    const pid = this.nodes.get(nodeId)?.proc?.pid
    if (!pid || pid <= 0) return null
    return (this.opts.procFs ?? defaultProcFs()).cpuSeconds?.(pid) ?? null
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

  /** The rooms' networks: mode, why faults are off (if they are), links and active faults. */
  network(): NetworkStatus {
    return this.net.status()
  }

  /** argv prefix that runs a client worker inside its room's network (empty on loopback). */
  workerPrefix(workerId: string): string[] {
    return this.net.prefixFor(workerId)
  }

  /** Applies a network fault or heal; refused with the reason on loopback. */
  async applyNetworkFault(step: NetworkFault): Promise<ActiveFault[]> {
    const changed = await this.net.apply(step)
    this.emitter.emit('network', this.net.status())
    return changed
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

  /** Java and the jars when a JVM will start; the management entry when a node of ours needs it. */
  private checkPrerequisites(topology: Topology, nodes: ServerNode[]): void {
    checkDiscovery(topology, nodes)
    if (needsJvm(nodes)) {
      this.java ??= (this.opts.findJava ?? findJava)({
        env: this.opts.env,
        javaHome: this.opts.javaHome
      })
      this.lib = (this.opts.locateRocketmq ?? locateRocketmqLib)({
        repoRoot: this.repoRoot,
        env: this.opts.env,
        override: this.opts.rocketmqHome
      })
      const archives = this.opts.classArchives
      this.archives = new ClassArchives({
        dir: archives?.dir !== undefined ? archives.dir : defaultArchiveDir(this.lib),
        write: archives?.write ?? false
      })
    }
    checkManagementEntry(this.repoRoot, this.opts.managementCommand, nodes)
  }

  private async boot(topology: Topology, runId: number | undefined): Promise<void> {
    const t0 = this.clock.now()
    const nodes = serverNodes(topology)
    this.checkPrerequisites(topology, nodes)
    mkdirSync(this.root, { recursive: true })
    this.sweepOrphans()
    const runDir = join(this.root, makeRunName(this.clock.now(), runId))
    this.registration = undefined
    this.topology = topology
    this.currentRunId = runId ?? null
    this.currentRunDir = runDir
    liveSandboxes.add(this)
    this.unregisterExit = onProcessExit(
      { cleanupSync: () => this.killAllSync() },
      this.opts.installExitHandlers ?? true
    )
    pruneRunFolders(this.root, this.opts.keepRuns ?? 3, this.pids.foldersInUse(liveRunDirs()))
    this.progress('', `run folder ${runDir}`)
    this.trackAbort = new AbortController()
    const bootAbort = (this.bootAbort = new AbortController())
    try {
      await bootSequence(this.bootDeps(), topology, nodes, runDir, bootAbort.signal)
    } catch (err) {
      this.progress('', `boot failed: ${(err as Error).message}; stopping everything started`)
      await this.teardown('abandon')
      throw err
    } finally {
      this.bootAbort = undefined
    }
    this.startedAt = this.clock.now()
    this.progress('', `all nodes ready in ${this.startedAt - t0} ms`)
  }

  private bootDeps(): BootDeps {
    return {
      net: this.net,
      ...(this.opts.workerIds ? { workerIds: this.opts.workerIds } : {}),
      portProbe: this.opts.portProbe ?? tcpPortProbe,
      portRange: this.opts.portRange,
      processDeps: () => this.processDeps(),
      progress: (nodeId, message) => this.progress(nodeId, message),
      emitNetwork: (status) => this.emitter.emit('network', status),
      setNodes: (nodes) => (this.nodes = nodes),
      clock: this.clock,
      attachedNodes: this.attachedNodes,
      nodes: () => this.nodes,
      commandContext: (topology, runDir) => this.commandContext(topology, runDir),
      controllerBoot: (signal) => this.controllerBoot(signal),
      trackRegistration: this.opts.trackRegistration ?? true,
      registrationSince: (since, timeoutMs) => this.registrationSince(since, timeoutMs),
      setRegistration: (registration) => (this.registration = registration),
      emitState: (rt) => this.emitState(rt),
      awaitGroupsReady: (replicas, signal) =>
        trackGroups(this.trackerDeps(), replicas, {
          timeoutMs: this.opts.bootTimeoutMs ?? 90_000,
          signal,
          strict: true
        }),
      managementNameServers: this.opts.managementNameServers ?? httpManagementNameServers
    }
  }

  private trackerDeps(): GroupTrackerDeps {
    return {
      probe: () => this.admin.controllerProbe(),
      writes: () => this.admin.writeProbe(),
      controllers: () => this.controllers(),
      nodes: () => [...this.nodes.values()],
      clock: this.clock,
      progress: (nodeId, message) => this.progress(nodeId, message)
    }
  }

  /**
   * A replica started again during a run: tracked to readiness in the background (its state goes
   * electing → syncing → up), so act() returns once its JVM is up, as for any node.
   */
  private trackRestarted(rt: NodeProcess): void {
    if (!rt.awaitsGroup || this.trackAbort.signal.aborted) return
    const p = trackGroups(this.trackerDeps(), [rt], {
      timeoutMs: this.opts.bootTimeoutMs ?? 90_000,
      signal: this.trackAbort.signal,
      strict: false
    })
      .catch(() => undefined)
      .finally(() => this.tracking.delete(p))
    this.tracking.add(p)
  }

  private commandContext(topology: Topology, runDir: string): NodeCommandContext {
    return {
      topology,
      nodes: [...this.nodes.values()],
      runDir,
      jvm: () => ({
        java: this.java!.path,
        lib: this.lib!.dir,
        archive: (kind, nodeDir) => this.archives?.flags(kind, nodeDir) ?? [],
        serverTls: this.opts.serverTls ?? 'disabled'
      }),
      fastBrokerExpiry: this.opts.fastBrokerExpiry ?? true,
      management: this.opts.managementCommand ?? defaultManagementCommand(this.repoRoot)
    }
  }

  private processDeps(): NodeProcessDeps {
    return {
      spawner: this.spawner,
      clock: this.clock,
      net: this.opts.net ?? realNetProbe,
      procFs: this.opts.procFs ?? defaultProcFs(),
      env: this.opts.env ?? process.env,
      bootTimeoutMs: this.opts.bootTimeoutMs ?? 90_000,
      stopGraceMs: this.opts.stopGraceMs ?? 30_000,
      onState: (s) => this.emitter.emit('node-state', s),
      progress: (nodeId, message) => this.progress(nodeId, message),
      pidStarted: (nodeId, pid) => this.pids.record(nodeId, pid, this.currentRunDir!),
      pidEnded: (pid) => this.pids.forget(pid)
    }
  }

  /**
   * Stops every node, then forgets the run: gracefully (brokers and proxies first, so they can
   * unregister), or with `force` SIGKILL at once for a sandbox that is thrown away; either way the
   * nodes end stopped.
   */
  async stop(options: { force?: boolean } = {}): Promise<SandboxStatus> {
    this.bootAbort?.abort(
      new SandboxError('boot-exit', 'The sandbox was stopped while it was booting.')
    )
    if (this.running) await this.teardown(options.force ? 'discard' : 'graceful')
    return this.status()
  }

  /** One teardown at a time: stop() during a failing boot joins the boot's own teardown. */
  private teardown(mode: TeardownMode): Promise<void> {
    this.teardownRun ??= this.doTeardown(mode).finally(() => (this.teardownRun = undefined))
    return this.teardownRun
  }

  private async doTeardown(mode: TeardownMode): Promise<void> {
    this.trackAbort.abort(new SandboxError('boot-exit', 'The sandbox was stopped.'))
    await stopNodes(this.nodes, mode)
    // A tracker's last poll may still be in flight; its clients close only after it settled. The
    // prober stops before them too, so no probe goes out on the admin clients' closed connections.
    await Promise.allSettled([...this.tracking])
    this.attachedNodes.stop()
    this.admin.close()
    await this.net.down().catch((e: Error) => this.progress('', `network clean-up: ${e.message}`))
    this.emitter.emit('network', this.net.status())
    const runDir = this.currentRunDir
    if (runDir) this.pids.forgetRun(runDir)
    liveSandboxes.delete(this)
    this.unregisterExit?.()
    this.unregisterExit = undefined
    this.currentRunDir = null
    this.currentRunId = null
    this.startedAt = null
    this.progress('', 'sandbox stopped')
  }

  /** Applies an operator action to one node. */
  async act(nodeId: string, action: NodeAction): Promise<NodeStatus> {
    const rt = this.runtime(nodeId)
    return actOnNode(
      {
        running: () => this.running,
        topology: () => this.topology,
        attachedNodes: this.attachedNodes,
        nodeStatus: (node) => this.nodeStatus(node),
        clock: this.clock,
        registrationSince: (since, timeoutMs, intervalMs) =>
          this.registrationSince(since, timeoutMs, intervalMs),
        trackReplica: (node) => this.trackRestarted(node)
      },
      rt,
      action
    )
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
   * a fresh one when called later, e.g. after a restart). A broker launched with the name servers its
   * management node listed registers at boot; one left to RocketMQ's own fetch adds ~10 s.
   */
  waitForRegistration(
    options: { timeoutMs?: number; intervalMs?: number; fresh?: boolean } = {}
  ): Promise<RegistrationReport> {
    if (this.registration && !options.fresh) return this.registration
    return this.registrationSince(this.clock.now(), options.timeoutMs, options.intervalMs)
  }

  private registrationSince(
    since: number,
    timeoutMs = 60_000,
    intervalMs = 250
  ): Promise<RegistrationReport> {
    const runDir = this.currentRunDir
    return pollRegistration({
      probe: this.admin.registrationProbe(),
      nodes: [...this.nodes.values()],
      clock: this.clock,
      since,
      timeoutMs,
      intervalMs,
      stillCurrent: () => this.currentRunDir === runDir,
      progress: (nodeId, message) => this.progress(nodeId, message)
    })
  }

  /**
   * Kills processes recorded in pids.json by a DR Studio process that is gone, when the pid still runs
   * a command line containing its run folder. Returns how many were killed.
   */
  sweepOrphans(): number {
    return this.pids.sweep({
      procFs: () => this.opts.procFs ?? defaultProcFs(),
      liveRunDirs: liveRunDirs(),
      spawner: this.spawner,
      progress: (nodeId, message) => this.progress(nodeId, message)
    })
  }

  /** Synchronous SIGKILL of every child, then the network's namespaces; for process exit handlers. */
  killAllSync(): void {
    for (const rt of this.nodes.values()) rt.killSync()
    this.net.downSync()
  }

  /**
   * The controller quorum (standalone controllers and name servers embedding one), with the
   * address brokers reach each on; empty for topologies without controller mode.
   */
  controllers(): ControllerEndpoint[] {
    return controllerEndpoints([...this.nodes.values()])
  }

  private controllerBoot(signal: AbortSignal): ControllerBootInput {
    return {
      nodes: [...this.nodes.values()],
      probe: () => this.admin.controllerProbe(),
      clock: this.clock,
      timeoutMs: this.opts.bootTimeoutMs ?? 90_000,
      signal,
      progress: (nodeId, message) => this.progress(nodeId, message)
    }
  }

  private runtime(nodeId: string): NodeProcess {
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

  private emitState(rt: NodeProcess): void {
    this.emitter.emit('node-state', rt.status())
  }

  private progress(nodeId: string, message: string): void {
    this.emitter.emit('progress', { nodeId, message, at: this.clock.now() })
  }
}

/** True when the node has a live process (starting, up or paused). */
export function isRunningState(state: NodeState): boolean {
  return RUNNING_STATES.includes(state)
}
