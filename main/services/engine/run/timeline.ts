import type {
  AnyTimelineStep,
  FaultAction,
  NetworkAction,
  NetworkStep,
  TimelineStep
} from '../../../../common/scenario/schema'
import { isNetworkStep } from '../../../../common/scenario/schema'
import { resolveTarget } from '../../../../common/scenario/selectors'
import { targetNodes } from '../../scenario/plan'
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

/**
 * Records a fault (timeline step or operator action) in the ledger and in the run's list.
 * `t0` is the workload start when known; operator actions before it are re-based at report time.
 */
export function recordFault(
  ctx: RunContext,
  input: {
    action: FaultAction | NetworkAction | 'observed-down' | 'observed-up'
    target: string[]
    nodes: string[]
    kinds: string[]
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
    nodeKinds: input.kinds,
    report: {
      atMs: atAbs - t0,
      action: input.action,
      target: input.target,
      nodes: input.nodes,
      ok: input.error === undefined,
      ...(input.error !== undefined ? { error: input.error } : {})
    }
  }
  ctx.applied.push(applied)
  ctx.onFault?.(applied.report)
  ctx.ledger.event(
    'fault',
    null,
    null,
    {
      action: input.action,
      target: input.target,
      nodes: input.nodes,
      ok: applied.report.ok,
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

/** Kill / stop / start / restart of one of the run's clients, through its worker. */
export async function actOnClient(ctx: RunContext, id: string, action: FaultAction): Promise<void> {
  const fleet = ctx.fleet
  const startBudget = Math.max(15_000, ctx.loaded.scenario.workload.settleTimeout)
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
      throw new Error(
        `${id} is a client; it can be killed, stopped, started or restarted, not ${action}d`
      )
  }
}

/** Applies one timeline step (node action or network fault); failures are reported, not thrown. */
export async function applyStep(
  ctx: RunContext,
  step: AnyTimelineStep,
  t0: number
): Promise<AppliedStep> {
  return isNetworkStep(step) ? applyNetworkStep(ctx, step, t0) : applyNodeStep(ctx, step, t0)
}

/** Cuts, slows or heals links through the cluster's network lab, and records it like any fault. */
export async function applyNetworkStep(
  ctx: RunContext,
  step: NetworkStep,
  t0: number
): Promise<AppliedStep> {
  const { at: _at, note: _note, ...fault } = step
  const named = [
    ...('target' in fault && fault.target ? [fault.target] : []),
    ...('peer' in fault && fault.peer ? [fault.peer] : [])
  ]
  const rooms = new Set(ctx.loaded.topology.rooms.map((r) => r.id))
  const atAbs = ctx.clock.now()
  const hit =
    fault.action === 'heal'
      ? []
      : mastersHit(ctx, { nodes: named, rooms: named.filter((n) => rooms.has(n)) })
  let error: string | undefined
  try {
    if (!ctx.cluster.applyNetworkFault) {
      throw new Error('this deployment has no network lab (network faults need the sandbox)')
    }
    await ctx.cluster.applyNetworkFault(fault)
  } catch (e) {
    error = (e as Error).message
  }
  const applied = recordFault(
    ctx,
    {
      action: fault.action,
      target: named,
      nodes: named,
      kinds: named.map((id) => (rooms.has(id) ? 'room' : 'node')),
      network: fault as Record<string, unknown>,
      atAbs,
      ...(error !== undefined ? { error } : {})
    },
    t0
  )
  const what = named.length ? `${fault.action} ${named.join(' ~ ')}` : fault.action
  ctx.progress('workload', `${what}${error ? ` failed: ${error}` : ''}`)
  // After the fault is on record: the sample may wait on replicas that do not answer.
  if (error === undefined) await sampleAfterFault(ctx, hit).catch(() => undefined)
  return applied
}

async function applyNodeStep(
  ctx: RunContext,
  step: TimelineStep,
  t0: number
): Promise<AppliedStep> {
  const targets = typeof step.target === 'string' ? [step.target] : step.target
  const roles = resolveControllerTargets(ctx, targets)
  const resolved = roles.ok
    ? resolveTarget(roles.targets, targetNodes(ctx.loaded.topology, ctx.plans))
    : roles
  if (!resolved.ok) {
    return recordFault(
      ctx,
      { action: step.action, target: targets, nodes: [], kinds: [], error: resolved.error },
      t0
    )
  }
  const errors: string[] = []
  const atAbs = ctx.clock.now()
  const hit = FAULT_ACTIONS.has(step.action)
    ? mastersHit(ctx, { nodes: resolved.nodes.map((n) => n.id), rooms: [] })
    : []
  await Promise.all(
    resolved.nodes.map(async (n) => {
      try {
        if (n.kind === 'producer' || n.kind === 'consumer')
          await actOnClient(ctx, n.id, step.action)
        else await ctx.cluster.act(n.id, step.action)
      } catch (e) {
        errors.push(`${n.id}: ${(e as Error).message}`)
      }
    })
  )
  const applied = recordFault(
    ctx,
    {
      action: step.action,
      target: targets,
      nodes: resolved.nodes.map((n) => n.id),
      kinds: resolved.nodes.map((n) => n.kind),
      atAbs,
      ...(errors.length ? { error: errors.join('; ') } : {})
    },
    t0
  )
  const r = applied.report
  ctx.progress('workload', `${r.action} ${r.nodes.join(', ')}${r.ok ? '' : ` failed: ${r.error}`}`)
  // After the fault is on record: the sample may wait on replicas that do not answer.
  await sampleAfterFault(ctx, hit).catch(() => undefined)
  return applied
}
