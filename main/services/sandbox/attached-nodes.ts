import type { OperatorAction, Topology } from '../../../common/topology/schema'
import {
  exampleActionCommand,
  offeredActions,
  renderNodeAction
} from '../../../common/topology/actions'
import type { ActionRunResult } from '../attach/action-runner'
import {
  describeActionResult,
  DEFAULT_ACTION_TIMEOUT_MS,
  runActionCommand
} from '../attach/action-runner'
import type { ObservedChange, ObservedState, ProbePort } from '../attach/prober'
import { AttachedProber, probeTargets } from '../attach/prober'
import { SandboxError } from './errors'
import type { NodeProcess } from './node-process'
import type { NodeState } from './state'

/** Actions after which the node is out of service until a start, resume or restart. */
const TAKES_DOWN: ReadonlySet<OperatorAction> = new Set(['kill', 'pause', 'stop'])

/** How the sandbox treats nodes it does not run (an operator's cluster). */
export interface AttachedOptions {
  /** A real request per node kind (attach/remoting-ports `remotingProbePort`). */
  probe: ProbePort
  /**
   * Whether operator commands (`actions` in the topology) may run: the CLI needs
   * `--allow-actions`, the app asks before the first destructive one. Default false.
   */
  allowActions?: boolean
  /** Runs one command; tests substitute a recorder. */
  run?: typeof runActionCommand
}

/** AttachedNodes' options: the probe is asked for at each start; whoever opened it closes it. */
export type AttachedNodesOptions = Omit<AttachedOptions, 'probe'> & { probe: () => ProbePort }

/** The node state an observation shows as (the badge on the canvas). */
export function observedNodeState(state: ObservedState): NodeState {
  switch (state) {
    case 'up':
      return 'up'
    case 'slow':
      return 'slow'
    case 'down':
      return 'down'
    case 'unprobed':
      return 'attached'
  }
}

/**
 * An operator's nodes in a sandbox run: watched every probe interval with a real request (state
 * up / slow / down on the canvas, every change reported so the run records it), and faulted only
 * through the operator's own commands. DR Studio remembers which of them it took down, so a
 * restore undoes exactly that and nothing the operator did.
 */
export class AttachedNodes {
  private prober: AttachedProber | undefined
  /** Nodes DR Studio took out of service with a command, until a command brought them back. */
  private readonly faultedByUs = new Set<string>()

  constructor(
    private readonly opts: AttachedNodesOptions,
    private readonly onChange: (change: ObservedChange) => void
  ) {}

  allow(allow: boolean): void {
    this.opts.allowActions = allow
  }

  /**
   * Starts watching every attached node of the topology; the promise settles when each has been
   * probed once, so a started sandbox shows what it saw rather than "not probed yet".
   */
  start(topology: Topology, nodes: ReadonlyMap<string, NodeProcess>): Promise<void> {
    const targets = probeTargets(topology)
    if (targets.length === 0) return Promise.resolve()
    this.prober = new AttachedProber({
      targets,
      port: this.opts.probe(),
      intervalMs: topology.settings.probeIntervalMs,
      timeoutMs: topology.settings.probeTimeoutMs
    })
    this.prober.on('change', (c) => {
      const rt = nodes.get(c.nodeId)
      if (rt) {
        const latency = c.latencyMs === null ? '' : `, ${Math.round(c.latencyMs)} ms`
        rt.setState(observedNodeState(c.to), `${c.to}${latency}: ${c.reason}`)
      }
      this.onChange(c)
    })
    return this.prober.start()
  }

  stop(): void {
    this.prober?.stop()
    this.prober = undefined
    this.faultedByUs.clear()
  }

  /** True when DR Studio took this node down and a restore should bring it back. */
  restorable(nodeId: string): boolean {
    return this.faultedByUs.has(nodeId)
  }

  /** Runs the operator's command for `action` on an attached node; refused with the fix otherwise. */
  async act(rt: NodeProcess, topology: Topology, action: OperatorAction): Promise<ActionRunResult> {
    const offered = offeredActions(topology, rt.id)
    const rendered = renderNodeAction(topology, rt.id, action)
    if (!rendered) {
      throw new SandboxError(
        'node-attached',
        `node ${rt.id} is attached (${rt.host}:${rt.port}) and the topology has no ${action} command for it` +
          (offered.length ? ` (it has: ${offered.join(', ')})` : '') +
          `; add "actions": {"${action}": "…"} to the node or to its room's actions, e.g. "${exampleActionCommand(rt.kind, action)}"`,
        { nodeId: rt.id }
      )
    }
    if (!this.opts.allowActions) {
      throw new SandboxError(
        'node-attached',
        `${action} ${rt.id} would run your command \`${rendered.command}\` on a cluster DR Studio does not own; ` +
          'pass --allow-actions (CLI) or confirm it in the app',
        { nodeId: rt.id }
      )
    }
    const result = await (this.opts.run ?? runActionCommand)({
      nodeId: rt.id,
      action,
      command: rendered.command,
      logFile: rt.logFile,
      timeoutMs: topology.settings.actionTimeoutMs ?? DEFAULT_ACTION_TIMEOUT_MS
    })
    if (!result.ok) {
      throw new SandboxError('node-state', describeActionResult(result), { nodeId: rt.id })
    }
    if (TAKES_DOWN.has(action)) this.faultedByUs.add(rt.id)
    else this.faultedByUs.delete(rt.id)
    // See the effect now rather than at the next interval.
    await this.prober?.probeOnce()
    return result
  }
}
