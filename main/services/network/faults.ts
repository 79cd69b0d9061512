import type { Direction, NetworkFault } from '../../../common/scenario/schema'
import type { NetworkPlan, NodePlan, RoomPlan } from './plan'

/** A fault that stays until healed (every network action but `heal`). */
export type LastingFault = Exclude<NetworkFault, { action: 'heal' }>
export type HealSelector = { id?: string; target?: string; peer?: string }

/**
 * Room faults are rules in the core's forward path (one room pair, every node of both rooms);
 * node faults are rules inside the nodes' own namespaces (one node, partial cuts).
 */
export type FaultScope = 'room' | 'node'

/** What `apply` returns and `activeFaults` lists. */
export interface ActiveFault {
  id: string
  fault: LastingFault
  scope: FaultScope
  /** Epoch ms. */
  appliedAt: number
}

export type Endpoint =
  { kind: 'room'; room: RoomPlan } | { kind: 'node'; node: NodePlan; room: RoomPlan }

export type ResolveResult = { ok: true; scope: FaultScope } | { ok: false; error: string }

function list(ids: readonly string[]): string {
  return ids.length > 8 ? `${ids.slice(0, 8).join(', ')}, ...` : ids.join(', ') || '(none)'
}

export function endpointOf(plan: NetworkPlan, id: string): Endpoint | null {
  const room = plan.rooms.find((r) => r.id === id)
  if (room) return { kind: 'room', room }
  const node = plan.nodes.find((n) => n.id === id)
  if (node) return { kind: 'node', node, room: plan.rooms.find((r) => r.id === node.room)! }
  return null
}

function unknown(plan: NetworkPlan, field: string, id: string): string {
  return (
    `${field} "${id}" is neither a room nor a node of this lab ` +
    `(rooms: ${list(plan.rooms.map((r) => r.id))}; nodes: ${list(plan.nodes.map((n) => n.id))})`
  )
}

/** Checks a fault against the plan and says where its rules go; errors name the id and the fix. */
export function resolveFault(plan: NetworkPlan, fault: LastingFault): ResolveResult {
  const target = endpointOf(plan, fault.target)
  if (!target) return { ok: false, error: unknown(plan, `${fault.action} target`, fault.target) }
  if (fault.action === 'isolate') return { ok: true, scope: target.kind }
  const peer = endpointOf(plan, fault.peer)
  if (!peer) return { ok: false, error: unknown(plan, `${fault.action} peer`, fault.peer) }
  if (fault.target === fault.peer) {
    return {
      ok: false,
      error: `${fault.action} target and peer are both "${fault.target}"; name two different rooms or nodes`
    }
  }
  const both = target.kind === 'room' && peer.kind === 'room'
  if (fault.action === 'delay' || fault.action === 'bandwidth') {
    if (both) return { ok: true, scope: 'room' }
    const node = target.kind === 'node' ? target : (peer as Extract<Endpoint, { kind: 'node' }>)
    return {
      ok: false,
      error:
        `${fault.action} acts on the link between two rooms, and "${node.node.id}" is a node; ` +
        `target its room "${node.room.id}" (node-level faults are isolate, partition and loss)`
    }
  }
  return { ok: true, scope: both ? 'room' : 'node' }
}

/** The directed (source, destination) pairs a direction covers, from the target's point of view. */
export function directedPairs(
  target: string,
  peer: string,
  direction: Direction
): [string, string][] {
  switch (direction) {
    case 'to':
      return [[target, peer]]
    case 'from':
      return [[peer, target]]
    case 'both':
      return [
        [target, peer],
        [peer, target]
      ]
  }
}

/** Which active faults a heal selector removes: none given = all; ids match exactly; pairs in either order. */
export function matchesHeal(fault: ActiveFault, selector: HealSelector | undefined): boolean {
  if (
    !selector ||
    (selector.id === undefined && selector.target === undefined && selector.peer === undefined)
  ) {
    return true
  }
  if (selector.id !== undefined && fault.id !== selector.id) return false
  const f = fault.fault
  const ends = f.action === 'isolate' ? [f.target] : [f.target, f.peer]
  if (selector.target !== undefined && !ends.includes(selector.target)) return false
  if (selector.peer !== undefined) {
    if (f.action === 'isolate' || !ends.includes(selector.peer)) return false
  }
  return true
}

/** One nft rule inside a node's namespace. `cidr` null = everything except the engine (isolate). */
export interface NodeRule {
  chain: 'input' | 'output'
  cidr: string | null
  verdict: { kind: 'block'; mode: 'drop' | 'reject' } | { kind: 'loss'; pct: number }
  faultId: string
}

function cidrOf(e: Endpoint): string {
  return e.kind === 'room' ? e.room.subnet : `${e.node.ip}/32`
}

/**
 * Node faults as rules per node namespace. A directed cut src→dst goes in the source node's output
 * chain when the source is a node, else in the destination node's input chain; so `both` between
 * two nodes puts one rule in each, and a room→node cut sits in the node.
 */
export function nodeRules(
  plan: NetworkPlan,
  faults: readonly ActiveFault[]
): Map<string, NodeRule[]> {
  const out = new Map<string, NodeRule[]>()
  const add = (nodeId: string, rule: NodeRule): void => {
    const rules = out.get(nodeId) ?? []
    rules.push(rule)
    out.set(nodeId, rules)
  }
  for (const active of faults) {
    if (active.scope !== 'node') continue
    const f = active.fault
    if (f.action === 'isolate') {
      const verdict = { kind: 'block', mode: f.mode } as const
      add(f.target, { chain: 'output', cidr: null, verdict, faultId: active.id })
      add(f.target, { chain: 'input', cidr: null, verdict, faultId: active.id })
      continue
    }
    if (f.action !== 'partition' && f.action !== 'loss') continue
    const verdict: NodeRule['verdict'] =
      f.action === 'partition' ? { kind: 'block', mode: f.mode } : { kind: 'loss', pct: f.lossPct }
    for (const [src, dst] of directedPairs(f.target, f.peer, f.direction)) {
      const s = endpointOf(plan, src)!
      const d = endpointOf(plan, dst)!
      if (s.kind === 'node')
        add(s.node.id, { chain: 'output', cidr: cidrOf(d), verdict, faultId: active.id })
      else if (d.kind === 'node')
        add(d.node.id, { chain: 'input', cidr: cidrOf(s), verdict, faultId: active.id })
    }
  }
  return out
}

/** `partition room1→room2 (both, drop)`: for errors and logs. */
export function describeFault(f: LastingFault): string {
  if (f.action === 'isolate') return `isolate ${f.target} (${f.mode})`
  const arrow = f.direction === 'to' ? '→' : f.direction === 'from' ? '←' : '↔'
  const detail =
    f.action === 'partition'
      ? f.mode
      : f.action === 'delay'
        ? `${f.latencyMs} ms ± ${f.jitterMs}`
        : f.action === 'loss'
          ? `${f.lossPct} %`
          : `${f.mbit} Mbit/s`
  return `${f.action} ${f.target}${arrow}${f.peer} (${detail})`
}
