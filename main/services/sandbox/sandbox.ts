import { existsSync, mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { NetworkFault } from '../../../common/scenario/schema'
import type { Topology } from '../../../common/topology/schema'
import { hostOf, isAttached, listNodes, topicsOf } from '../../../common/topology/model'
import { findAppPaths, nodeRuntimeCommand } from '../app-paths'
import type { ActiveFault } from '../network/faults'
import type { RegistrationProbe, TopicCreator } from './admin-ports'
import { createRemotingAdmin, remotingRegistrationProbe, remotingTopicCreator } from './admin-ports'
import type { ControllerEndpoint, ControllerProbe } from './controller-readiness'
import type { ControllerBootInput } from './controller-boot'
import { awaitControllerLeader, awaitGroupMasters, controllerEndpoints } from './controller-boot'
import { electionWaves, remotingControllerProbe } from './controller-readiness'
import { SandboxError } from './errors'
import { onProcessExit } from './exit-handlers'
import type { FindJavaOptions, JavaInfo } from './java'
import { findJava } from './java'
import { formatCommand } from './jvm'
import type { ManagementCommand, NodeCommandContext } from './node-commands'
import { writeNodeConfig } from './node-commands'
import type { NodeProcessDeps, NodeStatus, ServerNode } from './node-process'
import { NodeProcess } from './node-process'
import type { PidEntry } from './orphans'
import { isPidAlive, planOrphanSweep, readPidFile, updatePidFile, writePidFile } from './orphans'
import type { PortProbe, PortRequest, PortedKind } from './ports'
import { allocatePorts, tcpPortProbe } from './ports'
import type { ProcFs } from './procfs'
import { defaultProcFs } from './procfs'
import type { ProcessSpawner } from './processes'
import { nodeProcessSpawner } from './processes'
import type { Clock, NetProbe } from './readiness'
import { realNetProbe, systemClock, tailFile } from './readiness'
import type { RegistrationReport } from './registration'
import { pollRegistration } from './registration'
import type { RocketmqLib } from './rocketmq-lib'
import { locateRocketmqLib } from './rocketmq-lib'
import { makeRunName, pruneRunFolders } from './run-folders'
import type { NetworkStatus, SandboxNetworkDeps } from './sandbox-network'
import { SandboxNetwork } from './sandbox-network'
import type { NodeAction, NodeState } from './state'
import { checkAction, RUNNING_STATES } from './state'
import { TypedEmitter } from './typed-emitter'
import { RemotingRpc } from '../remoting/remoting-rpc'
import type { AttachedOptions } from './attached-nodes'
import { AttachedNodes } from './attached-nodes'
import type { ObservedChange } from '../attach/prober'
import { remotingProbePort } from '../attach/remoting-ports'

export type { NodeStatus } from './node-process'
export { BOOT_LINE } from './node-process'
export type { ManagementCommand } from './node-commands'
export type { RegistrationReport } from './registration'
export type { ControllerEndpoint } from './controller-readiness'
export { makeRunName } from './run-folders'
export type { NetworkStatus } from './sandbox-network'

/** Progress line; `nodeId` is '' for sandbox-wide steps. */
export interface ProgressEvent {
  nodeId: string
  message: string
  at: number
}

export interface SandboxEvents extends Record<string, unknown> {
  'node-state': NodeStatus
  progress: ProgressEvent
  /** An attached node's observed state changed (up / slow / down): a run records it. */
  observed: ObservedChange
  /** Mode, links and active faults of the rooms' networks, on every change. */
  network: NetworkStatus
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
  /** Controller reads for readiness (leader elected, every controller-mode group has a master). */
  controllerProbe?: ControllerProbe
  managementCommand?: ManagementCommand
  /**
   * Rooms as separate networks (namespaces per room and node, link faults). Absent: every room on
   * loopback, as in unit tests; the shells pass the real lab.
   */
  network?: SandboxNetworkDeps
  /** How nodes of an operator's cluster are watched and faulted (default: remoting probes, no commands). */
  attached?: Partial<AttachedOptions>
  /** Ids of the client workers to give a place in each room's network (see workers/client-fleet). */
  workerIds?: (rooms: string[]) => { id: string; room: string }[]
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

/** In a room's own network every node has its own address, so RocketMQ's default ports. */
const NAMESPACE_PORTS: Record<PortedKind, { port: number; remotingPort?: number }> = {
  nameserver: { port: 9876 },
  broker: { port: 10911 },
  management: { port: 8080 },
  proxy: { port: 8081, remotingPort: 8080 },
  // The samples' DLedger port (distribution/conf/controller): also where brokers reach a controller.
  controller: { port: 9878 }
}
const NAMESPACE_EMBEDDED_CONTROLLER_PORT = 9878

const SERVER_KINDS: readonly PortedKind[] = [
  'nameserver',
  'management',
  'controller',
  'broker',
  'proxy'
]

/** Live sandboxes of this process, for the orphan sweep (which must not kill a live one's children). */
const liveSandboxes = new Set<Sandbox>()

// Works from source and from the bundled CLI (out/cli), which sit at different depths.
const defaultRepoRoot = (): string => findAppPaths().root

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
  private readonly pidFile: string
  private readonly net: SandboxNetwork
  private nodes = new Map<string, NodeProcess>()
  private currentRunId: number | null = null
  private currentRunDir: string | null = null
  private startedAt: number | null = null
  private java: JavaInfo | undefined
  private lib: RocketmqLib | undefined
  private topicCreator: TopicCreator | undefined
  private registrationProbe: RegistrationProbe | undefined
  private controllerProbe: ControllerProbe | undefined
  private starting = false
  /** Aborted by stop() during a boot, so waiting nodes give up at once instead of after 90 s. */
  private bootAbort: AbortController | undefined
  private teardownRun: Promise<void> | undefined
  private registration: Promise<RegistrationReport> | undefined
  private unregisterExit: (() => void) | undefined
  private topology: Topology | undefined
  private readonly attachedNodes: AttachedNodes

  constructor(options: SandboxOptions) {
    this.opts = options
    this.root = resolve(options.dataDir, 'sandbox')
    this.pidFile = join(this.root, 'pids.json')
    this.spawner = options.spawner ?? nodeProcessSpawner
    this.clock = options.clock ?? systemClock
    this.repoRoot = options.repoRoot ?? defaultRepoRoot()
    this.net = new SandboxNetwork(options.network)
    this.attachedNodes = new AttachedNodes(
      {
        probe:
          options.attached?.probe ?? remotingProbePort(new RemotingRpc({ connectTimeoutMs: 1000 })),
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

  private serverNodes(topology: Topology): ServerNode[] {
    return listNodes(topology).filter((n): n is ServerNode =>
      SERVER_KINDS.includes(n.kind as PortedKind)
    )
  }

  /** Java and the jars when a JVM will start; the management entry when a node of ours needs it. */
  private checkPrerequisites(topology: Topology, nodes: ServerNode[]): void {
    this.checkDiscovery(topology, nodes)
    if (nodes.some((n) => !isAttached(n) && n.kind !== 'management')) {
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
    const entry = join(this.repoRoot, 'main', 'services', 'management', 'standalone.ts')
    if (
      !this.opts.managementCommand &&
      nodes.some((n) => n.kind === 'management' && !isAttached(n)) &&
      !existsSync(entry)
    ) {
      throw new SandboxError(
        'topology',
        `The management node entry ${entry} is missing; restore it from git, or pass a managementCommand.`
      )
    }
  }

  private async boot(topology: Topology, runId: number | undefined): Promise<void> {
    const t0 = this.clock.now()
    const nodes = this.serverNodes(topology)
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
    pruneRunFolders(this.root, this.opts.keepRuns ?? 3, this.foldersInUse())
    this.progress('', `run folder ${runDir}`)
    const bootAbort = (this.bootAbort = new AbortController())
    const checkpoint = (): void => {
      if (bootAbort.signal.aborted) throw bootAbort.signal.reason
    }
    try {
      await this.place(topology, nodes, runDir)
      mkdirSync(runDir, { recursive: true })
      const ours = [...this.nodes.values()].filter((rt) => !rt.attached)
      for (const rt of ours) rt.command = writeNodeConfig(rt, this.commandContext(topology, runDir))
      for (const rt of this.nodes.values()) this.emitState(rt)
      const attachedProbed = this.attachedNodes.start(topology, this.nodes)
      const first = ours.filter(
        (rt) => rt.kind === 'nameserver' || rt.kind === 'management' || rt.kind === 'controller'
      )
      const brokers = ours.filter((rt) => rt.kind === 'broker')
      const controllerMode = controllerEndpoints(ours).length > 0
      if (topology.settings.namesrvDiscovery === 'management' && !controllerMode) {
        // A broker that learns the name servers from its management node first asks it 10 s after
        // boot, so it needs neither up yet: boot them together.
        this.progress(
          '',
          'brokers ask their room’s management node for the name servers 10 s after boot (RocketMQ’s first address-server fetch); traffic starts within ~12 s of their boot'
        )
        await this.bootGroup([...first, ...brokers], bootAbort.signal)
      } else {
        // With a static list a broker registers at once, and in controller mode it asks the
        // controllers for its role: both must be up (and a leader elected) first.
        await this.bootGroup(first, bootAbort.signal)
        checkpoint()
        await awaitControllerLeader(this.controllerBoot(bootAbort.signal))
        const [early, later] = electionWaves(brokers)
        await this.bootGroup(early, bootAbort.signal)
        checkpoint()
        if (later.length > 0) {
          await awaitGroupMasters(this.controllerBoot(bootAbort.signal))
          await this.bootGroup(later, bootAbort.signal)
        }
      }
      checkpoint()
      await awaitGroupMasters(this.controllerBoot(bootAbort.signal))
      const brokersUpAt = this.clock.now()
      if (this.opts.trackRegistration ?? true) {
        this.registration = this.registrationSince(brokersUpAt, 120_000)
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
        await (this.registration ?? this.registrationSince(brokersUpAt, 120_000))
        checkpoint()
        await this.bootGroup(proxies, bootAbort.signal)
      }
      await attachedProbed
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

  /**
   * Gives every node its address and ports: the room's network lab (own address, RocketMQ's default
   * ports) when rooms are namespaces, else loopback with free ports. Attached nodes keep theirs.
   */
  private async place(topology: Topology, nodes: ServerNode[], runDir: string): Promise<void> {
    const ours = nodes.filter((n) => !isAttached(n))
    const rooms = topology.rooms.map((r) => r.id)
    const workers = this.opts.workerIds?.(rooms) ?? []
    const status = await this.net.up(
      topology,
      [...ours.map((n) => ({ id: n.id, room: n.room })), ...workers],
      ours.length < nodes.length
    )
    if (status.notice) this.progress('', status.notice)
    this.progress(
      '',
      status.mode === 'namespaces'
        ? 'rooms are separate networks (one namespace per room and node)'
        : `rooms share loopback${status.faultsDisabled ? `; ${status.faultsDisabled}` : ''}`
    )
    this.emitter.emit('network', status)
    this.nodes = new Map()
    for (const node of nodes) {
      const dir = join(runDir, node.id)
      const attached = isAttached(node)
      const placed = attached ? null : this.net.placement(node.id)
      const explicit = {
        port: node.spec.port ?? 0,
        ...(node.kind === 'proxy' && node.spec.remotingPort !== undefined
          ? { remotingPort: node.spec.remotingPort }
          : {})
      }
      const ports = placed ? { ...NAMESPACE_PORTS[node.kind], ...pick(explicit) } : explicit
      const rt = new NodeProcess(
        node,
        dir,
        join(dir, 'out.log'),
        { attached, host: attached ? hostOf(node) : (placed?.host ?? '127.0.0.1'), ...ports },
        this.processDeps()
      )
      if (placed) rt.prefix = placed.prefix
      if (node.kind === 'nameserver' && node.spec.controller) {
        const own = node.spec.controller.port
        rt.controllerPort = own ?? (placed ? NAMESPACE_EMBEDDED_CONTROLLER_PORT : undefined)
      }
      this.nodes.set(node.id, rt)
    }
    if (status.mode === 'loopback') await this.allocateLoopbackPorts()
  }

  private async allocateLoopbackPorts(): Promise<void> {
    const ours = [...this.nodes.values()].filter((rt) => !rt.attached)
    const requests: PortRequest[] = ours.map((rt) => ({
      nodeId: rt.id,
      kind: rt.kind,
      path: rt.node.path,
      port: rt.node.spec.port,
      remotingPort: rt.node.kind === 'proxy' ? rt.node.spec.remotingPort : undefined,
      ...(rt.node.kind === 'nameserver' && rt.node.spec.controller
        ? { controllerPort: rt.node.spec.controller.port ?? (true as const) }
        : {})
    }))
    const reserved = [...this.nodes.values()]
      .filter((rt) => rt.attached && isLoopback(rt.host))
      .flatMap((rt) => [
        rt.port,
        ...(rt.remotingPort ? [rt.remotingPort] : []),
        ...(rt.controllerPort ? [rt.controllerPort] : [])
      ])
    const ports = await allocatePorts(requests, this.opts.portProbe ?? tcpPortProbe, {
      range: this.opts.portRange,
      reserved
    })
    for (const rt of ours) {
      const a = ports.get(rt.id)!
      rt.port = a.port
      if (a.remotingPort !== undefined) rt.remotingPort = a.remotingPort
      if (a.controllerPort !== undefined) rt.controllerPort = a.controllerPort
    }
  }

  private commandContext(topology: Topology, runDir: string): NodeCommandContext {
    return {
      topology,
      nodes: [...this.nodes.values()],
      runDir,
      jvm: () => ({ java: this.java!.path, lib: this.lib!.dir }),
      fastBrokerExpiry: this.opts.fastBrokerExpiry ?? true,
      management: this.opts.managementCommand ?? this.defaultManagementCommand()
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
      stopGraceMs: this.opts.stopGraceMs ?? 15_000,
      onState: (s) => this.emitter.emit('node-state', s),
      progress: (nodeId, message) => this.progress(nodeId, message),
      pidStarted: (nodeId, pid) => this.recordPid(nodeId, pid),
      pidEnded: (pid) => this.forgetPid(pid)
    }
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

  /** Boots nodes in parallel; on the first failure the others stop waiting and the error propagates. */
  private async bootGroup(group: NodeProcess[], parent: AbortSignal): Promise<void> {
    if (group.length === 0) return
    const abort = new AbortController()
    const signal = AbortSignal.any([parent, abort.signal])
    const runs = group.map((rt) =>
      rt
        .enqueue(() => rt.bootWithRetry(signal))
        .catch((err: unknown) => {
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
    const live = (kinds: PortedKind[]): NodeProcess[] =>
      [...this.nodes.values()].filter((rt) => kinds.includes(rt.kind) && rt.proc)
    if (force) {
      await Promise.all(live([...SERVER_KINDS]).map((rt) => rt.enqueue(() => rt.kill())))
    } else {
      await Promise.all(live(['broker', 'proxy']).map((rt) => rt.enqueue(() => rt.stop())))
      await Promise.all(
        live(['nameserver', 'management', 'controller']).map((rt) => rt.enqueue(() => rt.stop()))
      )
    }
    this.topicCreator?.close?.()
    this.topicCreator = undefined
    this.controllerProbe?.close?.()
    this.controllerProbe = undefined
    this.registrationProbe?.close?.()
    this.registrationProbe = undefined
    this.attachedNodes.stop()
    await this.net.down().catch((e: Error) => this.progress('', `network clean-up: ${e.message}`))
    this.emitter.emit('network', this.net.status())
    const runDir = this.currentRunDir
    if (runDir) updatePidFile(this.pidFile, (entries) => entries.filter((e) => e.runDir !== runDir))
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
    if (!this.running) {
      throw new SandboxError(
        'node-state',
        `Cannot ${action} node ${nodeId}: the sandbox is not running; start it first.`,
        { nodeId }
      )
    }
    if (rt.attached) {
      await rt.enqueue(() => this.attachedNodes.act(rt, this.topology!, action))
      return this.nodeStatus(rt)
    }
    await rt.enqueue(async () => {
      const check = checkAction(rt.state, action)
      if (!check.ok) {
        if (check.reason === 'attached') rt.refuseAttached(action)
        throw new SandboxError('node-state', `Cannot ${action} node ${nodeId}: ${check.reason}.`, {
          nodeId
        })
      }
      if (check.noop) return
      switch (action) {
        case 'start':
          await rt.bootWithRetry()
          return this.afterBrokerBoot(rt)
        case 'stop':
          return rt.stop()
        case 'kill':
          return rt.kill()
        case 'pause':
          return rt.pause()
        case 'resume':
          return rt.resume()
        case 'restart':
          if (rt.proc) await rt.stop()
          await rt.bootWithRetry()
          return this.afterBrokerBoot(rt)
      }
    })
    return rt.status()
  }

  /** A broker started again registers as soon as it knows the name servers, not on its next tick. */
  private afterBrokerBoot(rt: NodeProcess): void {
    if (rt.kind !== 'broker') return
    this.registrationSince(this.clock.now(), 60_000, 500).catch(() => undefined)
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
    return this.registrationSince(this.clock.now(), options.timeoutMs, options.intervalMs)
  }

  private registrationSince(
    since: number,
    timeoutMs = 60_000,
    intervalMs = 250
  ): Promise<RegistrationReport> {
    const runDir = this.currentRunDir
    return pollRegistration({
      probe: (this.registrationProbe ??=
        this.opts.registrationProbe ?? remotingRegistrationProbe(createRemotingAdmin())),
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
    const entries = readPidFile(this.pidFile)
    if (entries.length === 0) return 0
    const plan = planOrphanSweep(entries, {
      procFs: this.opts.procFs ?? defaultProcFs(),
      liveRunDirs: new Set(
        [...liveSandboxes].map((s) => s.runDir).filter((d): d is string => d !== null)
      ),
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
      probe: () =>
        (this.controllerProbe ??= this.opts.controllerProbe ?? remotingControllerProbe()),
      clock: this.clock,
      timeoutMs: this.opts.bootTimeoutMs ?? 90_000,
      signal,
      progress: (nodeId, message) => this.progress(nodeId, message)
    }
  }

  private async createTopics(topology: Topology): Promise<void> {
    const topics = topicsOf(topology)
    // Controller-mode replicas get the topic too: whichever is elected next must already serve it.
    const masters = [...this.nodes.values()].filter(
      (rt) =>
        rt.kind === 'broker' &&
        !rt.attached &&
        rt.node.kind === 'broker' &&
        (rt.node.spec.role === 'master' || rt.node.spec.role === 'replica')
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

  private recordPid(nodeId: string, pid: number): void {
    const entry: PidEntry = {
      pid,
      nodeId,
      runDir: this.currentRunDir!,
      ownerPid: process.pid,
      startedAt: this.clock.now()
    }
    updatePidFile(this.pidFile, (entries) => [...entries.filter((e) => e.pid !== pid), entry])
  }

  private forgetPid(pid: number): void {
    updatePidFile(this.pidFile, (entries) => entries.filter((e) => e.pid !== pid))
  }

  private foldersInUse(): Set<string> {
    return new Set([
      ...readPidFile(this.pidFile).map((e) => e.runDir),
      ...[...liveSandboxes].map((s) => s.runDir).filter((d): d is string => d !== null)
    ])
  }
}

/** Only the explicit fields that are set (a node's own port wins over the namespace default). */
function pick(p: { port: number; remotingPort?: number }): {
  port?: number
  remotingPort?: number
} {
  return {
    ...(p.port > 0 ? { port: p.port } : {}),
    ...(p.remotingPort !== undefined ? { remotingPort: p.remotingPort } : {})
  }
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.')
}

/** True when the node has a live process (starting, up or paused). */
export function isRunningState(state: NodeState): boolean {
  return RUNNING_STATES.includes(state)
}
