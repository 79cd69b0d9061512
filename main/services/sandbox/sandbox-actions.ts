import type { Topology } from '../../../common/topology/schema'
import type { AttachedNodes } from './attached-nodes'
import { SandboxError } from './errors'
import type { NodeProcess, NodeStatus } from './node-process'
import type { Clock } from './readiness'
import type { RegistrationReport } from './registration'
import type { PortedKind } from './ports'
import { SERVER_KINDS } from './sandbox-placement'
import type { NodeAction } from '../../../common/contract/sandbox'
import { checkAction } from '../../../common/contract/node-actions'

/** What an operator action needs from its sandbox. */
export interface NodeActionDeps {
  running: () => boolean
  topology: () => Topology | undefined
  attachedNodes: Pick<AttachedNodes, 'act'>
  nodeStatus: (rt: NodeProcess) => NodeStatus
  clock: Clock
  registrationSince: (
    since: number,
    timeoutMs: number,
    intervalMs: number
  ) => Promise<RegistrationReport>
  /** A controller-mode replica booted again: follow it to readiness (electing → syncing → up). */
  trackReplica: (rt: NodeProcess) => void
}

/**
 * Applies an operator action to one node: an attached node's go to its operator commands, ours
 * to its process once the state machine allows them (queued behind the node's other actions).
 */
export async function actOnNode(
  deps: NodeActionDeps,
  rt: NodeProcess,
  action: NodeAction
): Promise<NodeStatus> {
  if (!deps.running()) {
    throw new SandboxError(
      'node-state',
      `Cannot ${action} node ${rt.id}: the sandbox is not running; start it first.`,
      { nodeId: rt.id }
    )
  }
  if (rt.attached) {
    await rt.enqueue(() => deps.attachedNodes.act(rt, deps.topology()!, action))
    return deps.nodeStatus(rt)
  }
  await rt.enqueue(() => applyAction(deps, rt, action))
  return rt.status()
}

async function applyAction(
  deps: NodeActionDeps,
  rt: NodeProcess,
  action: NodeAction
): Promise<void> {
  const check = checkAction(rt.state, action)
  if (!check.ok) {
    if (check.reason === 'attached') rt.refuseAttached(action)
    throw new SandboxError('node-state', `Cannot ${action} node ${rt.id}: ${check.reason}.`, {
      nodeId: rt.id
    })
  }
  if (check.noop) return
  switch (action) {
    case 'start':
      await rt.bootWithRetry()
      return afterBrokerBoot(deps, rt)
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
      return afterBrokerBoot(deps, rt)
  }
}

/**
 * A broker started again registers as soon as it knows the name servers, not on its next tick; a
 * controller-mode replica is followed until its group takes it back into the SyncStateSet.
 */
function afterBrokerBoot(deps: NodeActionDeps, rt: NodeProcess): void {
  if (rt.kind !== 'broker') return
  deps.registrationSince(deps.clock.now(), 60_000, 500).catch(() => undefined)
  if (rt.awaitsGroup) deps.trackReplica(rt)
}

/**
 * How a teardown ends the nodes. `graceful`: SIGTERM, brokers and proxies first so they can
 * unregister (setup's class archives need a JVM to exit on its own). `discard`: the sandbox is
 * thrown away, so SIGKILL everything at once and mark the nodes stopped. `abandon`: a failed boot,
 * SIGKILL and the nodes show killed.
 */
export type TeardownMode = 'graceful' | 'discard' | 'abandon'

export async function stopNodes(
  nodes: ReadonlyMap<string, NodeProcess>,
  mode: TeardownMode
): Promise<void> {
  // Every node, not only those with a process now: a start queued or mid-boot at this moment would
  // otherwise spawn its JVM after the teardown. Retired nodes refuse boots that have not begun; the
  // stop, queued behind a boot already under way, ends the process that boot spawns.
  for (const rt of nodes.values()) rt.retire()
  const live = (kinds: PortedKind[]): NodeProcess[] =>
    [...nodes.values()].filter((rt) => kinds.includes(rt.kind) && !rt.attached)
  if (mode !== 'graceful') {
    const as = mode === 'discard' ? 'stop' : 'kill'
    await Promise.all(live([...SERVER_KINDS]).map((rt) => rt.enqueue(() => rt.kill(as))))
  } else {
    await Promise.all(live(['broker', 'proxy']).map((rt) => rt.enqueue(() => rt.stop())))
    await Promise.all(
      live(['nameserver', 'management', 'controller']).map((rt) => rt.enqueue(() => rt.stop()))
    )
  }
}
