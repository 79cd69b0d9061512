import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Topology } from '../../../common/topology/schema'
import { isAttached } from '../../../common/topology/model'
import { nodeRuntimeCommand } from '../app-paths'
import type { AttachedNodes } from './attached-nodes'
import type { ControllerBootInput } from './controller-boot'
import { awaitControllerLeader, awaitGroupMasters, controllerEndpoints } from './controller-boot'
import { electionWaves } from './controller-readiness'
import { SandboxError } from './errors'
import type { ManagementCommand, NodeCommandContext } from './node-commands'
import { managementOfRoom, writeNodeConfig } from './node-commands'
import type { ManagementNameServers } from './launch-discovery'
import { learningMessage, learnNameServers } from './launch-discovery'
import type { NodeProcess, ServerNode } from './node-process'
import type { Clock } from './readiness'
import type { RegistrationReport } from './registration'
import type { PlacementDeps } from './sandbox-placement'
import { placeNodes } from './sandbox-placement'

/** What the boot sequence needs from its sandbox (which keeps the run's state). */
export interface BootDeps extends PlacementDeps {
  clock: Clock
  attachedNodes: Pick<AttachedNodes, 'start'>
  nodes: () => ReadonlyMap<string, NodeProcess>
  commandContext: (topology: Topology, runDir: string) => NodeCommandContext
  controllerBoot: (signal: AbortSignal) => ControllerBootInput
  /** Measure registration in the background once brokers are up. */
  trackRegistration: boolean
  registrationSince: (since: number, timeoutMs: number) => Promise<RegistrationReport>
  /** Remembers the background measurement for waitForRegistration(). */
  setRegistration: (registration: Promise<RegistrationReport>) => void
  emitState: (rt: NodeProcess) => void
  /**
   * Waits until the controller-mode groups of these replicas are ready (a master acknowledging a
   * write, the SyncStateSet full); fails the boot when one is not in time.
   */
  awaitGroupsReady: (replicas: NodeProcess[], signal: AbortSignal) => Promise<void>
  /** Where brokers learn the name servers just before launch (management discovery). */
  managementNameServers: ManagementNameServers
}

/**
 * Places and configures every node, boots ours in waves (name servers, management nodes and
 * controllers, then brokers), then boots proxies once brokers registered. Topics are a run's:
 * each run creates the ones it uses (engine/run/setup).
 * Throws the abort reason at each checkpoint once `signal` is aborted.
 */
export async function bootSequence(
  deps: BootDeps,
  topology: Topology,
  nodes: ServerNode[],
  runDir: string,
  signal: AbortSignal
): Promise<void> {
  await placeNodes(deps, topology, nodes, runDir)
  mkdirSync(runDir, { recursive: true })
  const ours = [...deps.nodes().values()].filter((rt) => !rt.attached)
  for (const rt of ours) rt.command = writeNodeConfig(rt, deps.commandContext(topology, runDir))
  for (const rt of deps.nodes().values()) deps.emitState(rt)
  const attachedProbed = deps.attachedNodes.start(topology, deps.nodes())
  await bootServers(deps, topology, ours, runDir, signal)
  checkpoint(signal)
  await awaitGroupMasters(deps.controllerBoot(signal))
  const brokersUpAt = deps.clock.now()
  let registration: Promise<RegistrationReport> | undefined
  if (deps.trackRegistration) {
    registration = deps.registrationSince(brokersUpAt, 120_000)
    deps.setRegistration(registration)
    registration.catch(() => undefined)
  }
  checkpoint(signal)
  await awaitReplicas(deps, ours, signal)
  checkpoint(signal)
  const proxies = ours.filter((rt) => rt.kind === 'proxy')
  if (proxies.length > 0) {
    // A cluster-mode proxy creates its system topics through the name servers at boot and exits
    // when no broker of its cluster is registered yet.
    deps.progress(
      '',
      'waiting for brokers to register with the name servers before starting proxies'
    )
    await (registration ?? deps.registrationSince(brokersUpAt, 120_000))
    checkpoint(signal)
    await bootGroup(proxies, signal)
  }
  await attachedProbed
}

/**
 * Start reports a controller-mode group ready only once it accepts writes with its SyncStateSet
 * full; until then its replicas show `electing` or `syncing` (see group-readiness.ts).
 */
async function awaitReplicas(
  deps: Pick<BootDeps, 'awaitGroupsReady' | 'progress'>,
  ours: NodeProcess[],
  signal: AbortSignal
): Promise<void> {
  const replicas = ours.filter((rt) => rt.awaitsGroup)
  if (replicas.length === 0) return
  const groups = [
    ...new Set(replicas.map((rt) => (rt.node.kind === 'broker' ? rt.node.spec.brokerName : '')))
  ]
  deps.progress(
    '',
    `waiting for ${groups.join(', ')} to acknowledge a write with every replica in the SyncStateSet`
  )
  await deps.awaitGroupsReady(replicas, signal)
}

/** Name servers, management nodes and controllers, then brokers (in election waves). */
async function bootServers(
  deps: BootDeps,
  topology: Topology,
  ours: NodeProcess[],
  runDir: string,
  signal: AbortSignal
): Promise<void> {
  const first = ours.filter(
    (rt) => rt.kind === 'nameserver' || rt.kind === 'management' || rt.kind === 'controller'
  )
  const brokers = ours.filter((rt) => rt.kind === 'broker')
  const controllerMode = controllerEndpoints(ours).length > 0
  if (topology.settings.namesrvDiscovery === 'management' && !controllerMode) {
    await bootWithManagementDiscovery(deps, topology, first, brokers, runDir, signal)
    return
  }
  // With a static list a broker registers at once, and in controller mode it asks the
  // controllers for its role: both must be up (and a leader elected) first.
  await bootGroup(first, signal)
  checkpoint(signal)
  // Management nodes are up: a replica launched with the name servers registers at boot and gets
  // its master's HA address from them, instead of 10 s later (see launch-discovery.ts).
  await Promise.all([
    topology.settings.namesrvDiscovery === 'management'
      ? learnAtLaunch(deps, topology, brokers, runDir)
      : undefined,
    awaitControllerLeader(deps.controllerBoot(signal))
  ])
  const [early, later] = electionWaves(brokers)
  await bootGroup(early, signal)
  checkpoint(signal)
  if (later.length > 0) {
    await awaitGroupMasters(deps.controllerBoot(signal))
    await bootGroup(later, signal)
  }
}

/**
 * Management nodes first (a second or two: no JVM), then each broker launches with the name
 * servers its room's node lists, while the name servers boot alongside. A broker does not need
 * them up yet: its boot outlasts theirs, and the topic creation after boot re-registers it anyway.
 */
async function bootWithManagementDiscovery(
  deps: BootDeps,
  topology: Topology,
  first: NodeProcess[],
  brokers: NodeProcess[],
  runDir: string,
  parent: AbortSignal
): Promise<void> {
  const mgmt = first.filter((rt) => rt.kind === 'management')
  const rest = first.filter((rt) => rt.kind !== 'management')
  deps.progress(
    '',
    'brokers get every room’s name servers from their room’s management node, then register with them at boot'
  )
  const launchBrokers = async (signal: AbortSignal): Promise<void> => {
    await bootGroup(mgmt, signal)
    if (brokers.length === 0) return
    await learnAtLaunch(deps, topology, brokers, runDir)
    checkpoint(signal)
    await bootGroup(brokers, signal)
  }
  await allOrAbandon(parent, [(signal) => bootGroup(rest, signal), launchBrokers], (err) => err)
}

/** Asks each room's management node for the name servers and writes them into its brokers' configs. */
async function learnAtLaunch(
  deps: BootDeps,
  topology: Topology,
  brokers: NodeProcess[],
  runDir: string
): Promise<void> {
  if (brokers.length === 0) return
  const all = [...deps.nodes().values()]
  const learned = await learnNameServers(
    deps.managementNameServers,
    brokers,
    (room) => managementOfRoom(all, room),
    3000
  )
  const namesrvAtLaunch = new Map(
    learned.flatMap((l) => ('namesrvAddr' in l ? [[l.room, l.namesrvAddr] as const] : []))
  )
  const ctx = { ...deps.commandContext(topology, runDir), namesrvAtLaunch }
  for (const rt of brokers) {
    const l = learned.find((x) => x.room === rt.room)
    if (l) deps.progress(rt.id, learningMessage(l))
    rt.command = writeNodeConfig(rt, ctx)
  }
}

/** Throws the abort reason once stop() aborted the boot. */
function checkpoint(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason
}

/** Boots nodes in parallel; on the first failure the others stop waiting and the error propagates. */
export async function bootGroup(group: NodeProcess[], parent: AbortSignal): Promise<void> {
  if (group.length === 0) return
  await allOrAbandon(
    parent,
    group.map((rt) => (signal: AbortSignal) => rt.enqueue(() => rt.bootWithRetry(signal))),
    () => new SandboxError('boot-exit', 'Boot abandoned: another node failed to boot.')
  )
}

/**
 * Runs tasks in parallel under one signal. The first failure aborts the others (with the reason
 * `abandon` gives), waits until every task has settled, then propagates.
 */
async function allOrAbandon(
  parent: AbortSignal,
  tasks: ((signal: AbortSignal) => Promise<void>)[],
  abandon: (err: unknown) => unknown
): Promise<void> {
  const abort = new AbortController()
  const signal = AbortSignal.any([parent, abort.signal])
  const runs = tasks.map((task) =>
    task(signal).catch((err: unknown) => {
      abort.abort(abandon(err))
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

/** True when a node of ours runs on a JVM (so Java and the RocketMQ jars must be found). */
export function needsJvm(nodes: ServerNode[]): boolean {
  return nodes.some((n) => !isAttached(n) && n.kind !== 'management')
}

export function checkDiscovery(topology: Topology, nodes: ServerNode[]): void {
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

function managementEntry(repoRoot: string): string {
  return join(repoRoot, 'main', 'services', 'management', 'standalone.ts')
}

/** The management entry must exist when a node of ours needs it and no command was passed. */
export function checkManagementEntry(
  repoRoot: string,
  managementCommand: ManagementCommand | undefined,
  nodes: ServerNode[]
): void {
  const entry = managementEntry(repoRoot)
  if (
    !managementCommand &&
    nodes.some((n) => n.kind === 'management' && !isAttached(n)) &&
    !existsSync(entry)
  ) {
    throw new SandboxError(
      'topology',
      `The management node entry ${entry} is missing; restore it from git, or pass a managementCommand.`
    )
  }
}

/** Runs the management node from source through tsx. */
export function defaultManagementCommand(repoRoot: string): ManagementCommand {
  const entry = managementEntry(repoRoot)
  const runtime = nodeRuntimeCommand()
  return (configFile) => ({
    command: runtime.command,
    args: ['--import', 'tsx', entry, configFile],
    cwd: repoRoot,
    env: { ...runtime.env }
  })
}
