import type {
  FaultAction,
  FaultSource,
  NetworkFault,
  AnyTimelineStep
} from '../../../../common/scenario/schema'
import { networkActionSchema } from '../../../../common/scenario/schema'
import type { TargetNode } from '../../../../common/scenario/selectors'
import { resolveTarget } from '../../../../common/scenario/selectors'
import { mastersHit, resolveControllerTargets, sampleAfterFault } from './controller-run'
import type { AppliedStep, RunContext } from './run-context'

/** Actions that take a node out of service; the first one marks "before the fault" for locality. */
export const FAULT_ACTIONS = new Set([
  'kill',
  'pause',
  'stop',
  'isolate',
  'partition',
  'loss',
  'observed-down'
])

/** Actions that bring something back into service: from the first after a fault, duplicates are a fail-back's. */
export const REPAIR_ACTIONS = new Set(['resume', 'restart', 'start', 'heal', 'observed-up'])

/** A node action on one or more targets (node ids, selectors, "master of group broker-a"). */
export interface NodeFault {
  action: FaultAction
  target: string | string[]
}

/** What DR Studio saw of a node it did not act on (an operator's node going down or coming back). */
export interface ObservedFault {
  action: 'observed-down' | 'observed-up'
  target: string
}

/** Every fault a run knows: node actions, network faults and observations. */
export type RunFault = NodeFault | NetworkFault | ObservedFault

/** A timeline step as the fault it applies. */
export function faultOfStep(step: AnyTimelineStep): NodeFault | NetworkFault {
  const { at: _at, note: _note, ...fault } = step
  return fault
}

/** A fault on links or node pairs (the network vocabulary). */
export function isNetworkFault(fault: RunFault): fault is NetworkFault {
  return networkActionSchema.safeParse(fault.action).success
}

/** What DR Studio saw of a node rather than did to it. */
export function isObservation(fault: RunFault): fault is ObservedFault {
  return fault.action === 'observed-down' || fault.action === 'observed-up'
}

/** What a fault names, resolved: the target as written, the nodes (or rooms and nodes) it hits. */
interface Resolved {
  target: string[]
  nodes: TargetNode[] | string[]
  /** Rooms among what it names (a network fault on a room hits every node of it). */
  rooms: string[]
}

/** What a fault names, with controller roles ("master of group broker-a") resolved as they stand now. */
function resolveFault(
  ctx: RunContext,
  fault: RunFault
): Resolved | { error: string; target: string[] } {
  if (isObservation(fault)) return { target: [fault.target], nodes: [fault.target], rooms: [] }
  if (isNetworkFault(fault)) {
    const named = [
      ...('target' in fault && fault.target ? [fault.target] : []),
      ...('peer' in fault && fault.peer ? [fault.peer] : [])
    ]
    const rooms = new Set(ctx.plan.rooms)
    return { target: named, nodes: named, rooms: named.filter((n) => rooms.has(n)) }
  }
  const target = typeof fault.target === 'string' ? [fault.target] : fault.target
  const roles = resolveControllerTargets(ctx, target)
  const r = roles.ok ? resolveTarget(roles.targets, ctx.plan.targets) : roles
  return r.ok ? { target, nodes: r.nodes, rooms: [] } : { error: r.error, target }
}

/** Does it: the network fault through the lab, a node action on each node; what went wrong. */
async function act(
  ctx: RunContext,
  fault: NodeFault | NetworkFault,
  nodes: Resolved['nodes']
): Promise<string | undefined> {
  if (isNetworkFault(fault)) {
    try {
      if (!ctx.cluster.applyNetworkFault) {
        throw new Error('this deployment has no network lab (network faults need the sandbox)')
      }
      await ctx.cluster.applyNetworkFault(fault)
      return undefined
    } catch (e) {
      return (e as Error).message
    }
  }
  const errors: string[] = []
  await Promise.all(
    (nodes as TargetNode[]).map(async (n) => {
      try {
        if (n.kind === 'producer' || n.kind === 'consumer')
          await actOnClient(ctx, n.id, fault.action)
        else await ctx.cluster.act(n.id, fault.action)
      } catch (e) {
        errors.push(`${n.id}: ${(e as Error).message}`)
      }
    })
  )
  return errors.length ? errors.join('; ') : undefined
}

/**
 * Applies one fault to the run's deployment and records it: the one path for a timeline step, an
 * operator's action on the canvas and what DR Studio observed. The controller-mode masters a fault
 * takes out are read before it is applied (the view changes once the controllers react), the
 * fault is stamped when it began, and the surviving replicas are sampled once it is on record.
 * With `source: 'observed'` nothing is acted on: the fault happened elsewhere and is only
 * recorded. Failures are recorded and returned (`report.ok` false), not thrown.
 */
export async function applyFault(
  ctx: RunContext,
  fault: RunFault,
  source: FaultSource,
  t0: number
): Promise<AppliedStep> {
  const atAbs = ctx.clock.now()
  const resolved = resolveFault(ctx, fault)
  const network = isNetworkFault(fault) ? (fault as Record<string, unknown>) : undefined
  const base = {
    action: fault.action,
    target: resolved.target,
    atAbs,
    source,
    ...(network ? { network } : {})
  }
  if ('error' in resolved)
    return recordFault(ctx, { ...base, nodes: [], error: resolved.error }, t0)
  const ids = resolved.nodes.map((n) => (typeof n === 'string' ? n : n.id))
  const hit = FAULT_ACTIONS.has(fault.action)
    ? mastersHit(ctx, { nodes: ids, rooms: resolved.rooms })
    : []
  const error =
    source === 'observed' || isObservation(fault)
      ? undefined
      : await act(ctx, fault, resolved.nodes)
  const applied = recordFault(
    ctx,
    { ...base, nodes: ids, ...(error !== undefined ? { error } : {}) },
    t0
  )
  if (!isObservation(fault)) {
    const what = network
      ? `${fault.action}${ids.length ? ` ${ids.join(' ~ ')}` : ''}`
      : `${fault.action} ${ids.join(', ')}`
    ctx.progress('workload', `${what}${error ? ` failed: ${error}` : ''}`)
  }
  // After the fault is on record: the sample may wait on replicas that do not answer.
  if (error === undefined) await sampleAfterFault(ctx, hit).catch(() => undefined)
  return applied
}

/** Kill / stop / start / restart of one of the run's clients, through its worker. */
async function actOnClient(ctx: RunContext, id: string, action: FaultAction): Promise<void> {
  const fleet = ctx.fleet
  const startBudget = Math.max(15_000, ctx.plan.loaded.scenario.workload.settleTimeout)
  if (!fleet.ids.includes(id))
    throw new Error('it has not started yet; wait until routes are ready')
  switch (action) {
    case 'kill':
      if (fleet.isAlive(id)) await fleet.stop(id, 'crash')
      return
    case 'stop':
      if (fleet.isAlive(id)) await fleet.stop(id, 'graceful')
      return
    case 'start':
    case 'restart':
      await fleet.restart(id, startBudget)
      return
    default:
      throw new Error(`a client can be killed, stopped, started or restarted, not ${action}d`)
  }
}

/**
 * Records a fault in the ledger and in the run's list. `t0` is the workload start when known;
 * faults before it are re-based at report time.
 */
function recordFault(
  ctx: RunContext,
  input: {
    action: AppliedStep['report']['action']
    target: string[]
    nodes: string[]
    source: FaultSource
    error?: string
    network?: Record<string, unknown>
    /** When the action began (epoch ms); default now. A fault is stamped at its start. */
    atAbs?: number
  },
  t0: number
): AppliedStep {
  const atAbs = input.atAbs ?? ctx.clock.now()
  const applied: AppliedStep = {
    atAbs,
    report: {
      atMs: atAbs - t0,
      action: input.action,
      target: input.target,
      nodes: input.nodes,
      ok: input.error === undefined,
      ...(input.error !== undefined ? { error: input.error } : {}),
      source: input.source
    }
  }
  ctx.applied.push(applied)
  ctx.ledger.event(
    'fault',
    null,
    null,
    {
      action: input.action,
      target: input.target,
      nodes: input.nodes,
      ok: applied.report.ok,
      source: input.source,
      ...(input.error !== undefined ? { error: input.error } : {}),
      ...(input.network ? { network: input.network } : {})
    },
    atAbs
  )
  if (input.network) recordNetworkEvent(ctx, input.network, applied.report, atAbs)
  return applied
}

/** The network fault (or heal) in the form replays read: what, between whom, and its figures. */
function recordNetworkEvent(
  ctx: RunContext,
  fault: Record<string, unknown>,
  report: AppliedStep['report'],
  atAbs: number
): void {
  const str = (k: string): string | undefined =>
    typeof fault[k] === 'string' ? (fault[k] as string) : undefined
  const num = (k: string): number | undefined =>
    typeof fault[k] === 'number' ? (fault[k] as number) : undefined
  const target = str('target')
  const peer = str('peer')
  if (fault.action === 'heal') {
    ctx.ledger.event(
      'network-heal',
      null,
      null,
      {
        ...(target ? { target: [target] } : {}),
        ...(peer ? { peer: [peer] } : {}),
        ...(report.error ? { reason: report.error } : {})
      },
      atAbs
    )
    return
  }
  const mbit = num('mbit')
  ctx.ledger.event(
    'network-fault',
    null,
    null,
    {
      action: String(fault.action),
      target: target ? [target] : [],
      ...(peer ? { peer: [peer] } : {}),
      ...(num('latencyMs') !== undefined ? { delayMs: num('latencyMs')! } : {}),
      ...(num('jitterMs') !== undefined ? { jitterMs: num('jitterMs')! } : {}),
      ...(num('lossPct') !== undefined ? { lossPercent: num('lossPct')! } : {}),
      ...(mbit !== undefined ? { bandwidthKbit: mbit * 1000 } : {}),
      ok: report.ok,
      ...(report.error ? { error: report.error } : {})
    },
    atAbs
  )
}
