import { planClients, targetNodes } from '../../../../common/scenario/client-plan'
import type {
  AnyTimelineStep,
  NetworkFault,
  NetworkStep,
  Scenario
} from '../../../../common/scenario/schema'
import { isNetworkStep } from '../../../../common/scenario/schema'
import type { TargetNode } from '../../../../common/scenario/selectors'
import { parseRoleSelector, resolveSelector } from '../../../../common/scenario/selectors'
import { listNodes } from '../../../../common/topology/model'
import { configuredLink } from '../../../../common/topology/network'
import type { Topology } from '../../../../common/topology/schema'
import type { ActiveFault, LastingFault } from '../../network/faults'
import { matchesHeal } from '../../network/faults'
import type { PairBase, PairChaos, PairFault } from './link-merge'
import { mergeFaults, pairKey } from './link-merge'

/** A room (or node) cut from everything else, both ways. */
export interface IsolateChaos {
  action: 'isolate'
  target: string
}

/** One Chaos Mesh object over a stretch of the timeline (ms from the workload start). */
export type ChaosWindow =
  | { kind: 'network'; chaos: PairChaos | IsolateChaos; startMs: number; endMs: number }
  | { kind: 'pod-failure'; nodes: string[]; startMs: number; endMs: number }
  | { kind: 'pod-kill'; nodes: string[]; startMs: number }

/** A step (or part of one) Chaos Mesh cannot express, and what the export does instead. */
export interface ExportNote {
  atMs: number
  step: string
  instead: string
}

export interface TimelinePlan {
  windows: ChaosWindow[]
  notes: ExportNote[]
  /** The workload's end (or the last step, if later): open faults end there, as a run heals them. */
  endMs: number
}

/** Thrown for a step the export cannot map at all (an id that is neither room nor node). */
export class ChaosExportError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ChaosExportError'
  }
}

export function describeStep(step: AnyTimelineStep): string {
  const { at: _at, note: _note, ...rest } = step
  return Object.entries(rest)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`)
    .join(', ')
}

interface WalkState {
  topology: Topology
  nodes: TargetNode[]
  active: ActiveFault[]
  down: Map<string, number>
  /** Nodes a step that was not exported may have killed (a run-time role): state unknown. */
  uncertain: Set<string>
  windows: ChaosWindow[]
  notes: ExportNote[]
}

function checkEndpoint(s: WalkState, id: string, step: NetworkStep, at: number): boolean {
  if (s.topology.rooms.some((r) => r.id === id)) return true
  const node = s.nodes.find((n) => n.id === id)
  if (node && node.kind !== 'producer' && node.kind !== 'consumer') return true
  if (node) {
    s.notes.push({
      atMs: at,
      step: describeStep(step),
      instead: `not exported: client ${id} shares its room worker pod with the room's other clients of its lane; target its room instead`
    })
    return false
  }
  throw new ChaosExportError(
    `timeline step at ${at} ms (${describeStep(step)}): "${id}" is neither a room nor a server node of ${s.topology.name}; name a room (${s.topology.rooms.map((r) => r.id).join(', ')}) or a node id`
  )
}

/**
 * The network faults in effect after one more: a heal ends those it matches (all, without a
 * target), any other fault is added. One home for the export's walk and a live Kubernetes run.
 */
export function afterNetworkFault(
  active: readonly ActiveFault[],
  fault: NetworkFault,
  id: string,
  appliedAt: number
): ActiveFault[] {
  if (fault.action === 'heal') {
    const selector = { target: fault.target, peer: fault.peer }
    return active.filter((f) => !matchesHeal(f, selector))
  }
  return [...active, { id, fault, scope: 'room', appliedAt }]
}

/** The ends a network fault names: its target, and its peer unless it isolates. */
export function networkEnds(fault: LastingFault): string[] {
  return fault.action === 'isolate' ? [fault.target] : [fault.target, fault.peer]
}

function applyNetworkStep(s: WalkState, step: NetworkStep, at: number): void {
  const { at: _at, note: _note, ...fault } = step
  if (fault.action !== 'heal' && !networkEnds(fault).every((id) => checkEndpoint(s, id, step, at)))
    return
  if ('mode' in fault && fault.mode === 'reject') {
    s.notes.push({
      atMs: at,
      step: describeStep(step),
      instead:
        'exported as a drop: Chaos Mesh partitions always DROP, so callers wait out timeouts instead of failing fast'
    })
  }
  s.active = afterNetworkFault(s.active, fault, `f${s.active.length}-${at}`, at)
}

/** The nodes a run-time role may turn out to be: the group's replicas, or the controller quorum. */
function roleCandidates(
  topology: Topology,
  role: NonNullable<ReturnType<typeof parseRoleSelector>>
): string[] {
  return listNodes(topology)
    .filter((n) =>
      role.role === 'master'
        ? n.kind === 'broker' && n.spec.role === 'replica' && n.spec.brokerName === role.group
        : n.kind === 'controller' || (n.kind === 'nameserver' && n.spec.controller !== undefined)
    )
    .map((n) => n.id)
}

/** The server nodes a node step names; clients, role selectors and pause/resume become notes. */
function stepNodes(
  s: WalkState,
  step: AnyTimelineStep & { target: string | string[] },
  at: number
): string[] {
  const out: string[] = []
  const note = (instead: string) => s.notes.push({ atMs: at, step: describeStep(step), instead })
  for (const selector of typeof step.target === 'string' ? [step.target] : step.target) {
    const role = parseRoleSelector(selector)
    if (role) {
      note(
        `not exported: "${selector}" is decided by the controllers at run time; no label selects it ahead of time`
      )
      for (const id of roleCandidates(s.topology, role)) s.uncertain.add(id)
      continue
    }
    const r = resolveSelector(selector, s.nodes)
    if (!r.ok) throw new ChaosExportError(`timeline step at ${at} ms: ${r.error}`)
    const clients = r.nodes.filter((n) => n.kind === 'producer' || n.kind === 'consumer')
    if (clients.length) {
      note(
        `not exported for ${clients.map((c) => c.id).join(', ')}: clients share a room worker pod per room and lane`
      )
    }
    out.push(...r.nodes.filter((n) => !clients.includes(n)).map((n) => n.id))
  }
  return [...new Set(out)]
}

function applyNodeStep(s: WalkState, step: AnyTimelineStep, at: number): void {
  if (isNetworkStep(step)) return
  if (step.action === 'pause' || step.action === 'resume') {
    s.notes.push({
      atMs: at,
      step: describeStep(step),
      instead:
        'not exported: Chaos Mesh cannot pause a pod (SIGSTOP exists only for chaosd hosts); PodChaos container-kill is NOT the same (the process dies, connections close at once, kubelet restarts it)'
    })
    return
  }
  const ids = stepNodes(s, step, at)
  const restarted: string[] = []
  for (const id of ids) {
    if (s.uncertain.delete(id) && step.action !== 'kill' && step.action !== 'stop') {
      s.notes.push({
        atMs: at,
        step: describeStep(step),
        instead: `not exported for ${id}: an earlier step that was not exported may have taken it down, so its state here is unknown`
      })
      continue
    }
    const since = s.down.get(id)
    if (step.action === 'kill' || step.action === 'stop') {
      if (since === undefined) s.down.set(id, at)
    } else if (since !== undefined) {
      if (at > since)
        s.windows.push({ kind: 'pod-failure', nodes: [id], startMs: since, endMs: at })
      s.down.delete(id)
    } else if (step.action === 'restart') restarted.push(id)
  }
  if (restarted.length) s.windows.push({ kind: 'pod-kill', nodes: restarted, startMs: at })
}

/** The topology's configured room links that shape traffic (network.links), keyed by pairKey. */
export function configuredBase(topology: Topology): Map<string, PairBase> {
  const out = new Map<string, PairBase>()
  const rooms = topology.rooms.map((r) => r.id)
  rooms.forEach((a, i) =>
    rooms.slice(i + 1).forEach((b) => {
      const l = configuredLink(topology.network, a, b)
      if (!l.latencyMs && !l.jitterMs && !l.lossPct && l.bandwidthMbit === null) return
      const d = {
        blocked: false,
        latencyMs: l.latencyMs,
        jitterMs: l.jitterMs,
        lossPct: l.lossPct,
        ...(l.bandwidthMbit !== null ? { bandwidthMbit: l.bandwidthMbit } : {})
      }
      out.set(pairKey(a, b), { ab: { ...d }, ba: { ...d } })
    })
  )
  return out
}

/**
 * The network objects needed right now: isolations, then every pair's merged state on top of the
 * configured links; shaping of an isolated endpoint is dropped (its packets are cut anyway).
 */
export function desiredNetwork(
  active: readonly ActiveFault[],
  base: ReadonlyMap<string, PairBase>
): (PairChaos | IsolateChaos)[] {
  const isolated = [
    ...new Set(active.flatMap((f) => (f.fault.action === 'isolate' ? [f.fault.target] : [])))
  ]
  const pairs = active.flatMap((f) => (f.fault.action === 'isolate' ? [] : [f.fault as PairFault]))
  const merged = mergeFaults(pairs, base).filter(
    (c) => c.action === 'partition' || !(isolated.includes(c.from) || isolated.includes(c.to))
  )
  return [...isolated.map((target): IsolateChaos => ({ action: 'isolate', target })), ...merged]
}

/** Closes objects no longer wanted and opens new ones; an unchanged object runs on. */
function diffNetwork(
  open: Map<string, { chaos: PairChaos | IsolateChaos; startMs: number }>,
  wanted: (PairChaos | IsolateChaos)[],
  at: number,
  windows: ChaosWindow[]
): void {
  const keys = new Set(wanted.map((c) => JSON.stringify(c)))
  for (const [key, o] of open) {
    if (keys.has(key)) continue
    if (at > o.startMs)
      windows.push({ kind: 'network', chaos: o.chaos, startMs: o.startMs, endMs: at })
    open.delete(key)
  }
  for (const chaos of wanted) {
    const key = JSON.stringify(chaos)
    if (!open.has(key)) open.set(key, { chaos, startMs: at })
  }
}

/** Pod-failure windows of several nodes with the same start and end become one object. */
function groupPodWindows(windows: ChaosWindow[]): ChaosWindow[] {
  const out: ChaosWindow[] = []
  for (const w of windows) {
    const same = out.find(
      (o) =>
        o.kind === w.kind &&
        o.startMs === w.startMs &&
        (o.kind !== 'pod-failure' || (w.kind === 'pod-failure' && o.endMs === w.endMs))
    )
    if (same && same.kind !== 'network' && w.kind !== 'network') same.nodes.push(...w.nodes)
    else out.push(w.kind === 'network' ? w : { ...w, nodes: [...w.nodes] })
  }
  return out
}

/**
 * Folds a scenario's timeline into Chaos Mesh objects with start and end times: network faults as
 * merged per-pair states (link-merge.ts), kill/stop until start/restart as pod-failure, restart of a
 * running node as pod-kill, and notes for what has no Chaos Mesh form. Pure.
 */
export function planTimeline(scenario: Scenario, topology: Topology): TimelinePlan {
  const s: WalkState = {
    topology,
    nodes: targetNodes(topology, planClients(scenario, topology)),
    active: [],
    down: new Map(),
    uncertain: new Set(),
    windows: [],
    notes: []
  }
  const steps = [...scenario.timeline].sort((a, b) => a.at - b.at)
  const endMs = Math.max(scenario.workload.duration, ...steps.map((x) => x.at))
  const base = configuredBase(topology)
  const open = new Map<string, { chaos: PairChaos | IsolateChaos; startMs: number }>()
  diffNetwork(open, desiredNetwork([], base), 0, s.windows)
  for (const at of [...new Set(steps.map((x) => x.at))]) {
    for (const step of steps.filter((x) => x.at === at)) {
      if (isNetworkStep(step)) applyNetworkStep(s, step, at)
      else applyNodeStep(s, step, at)
    }
    diffNetwork(open, desiredNetwork(s.active, base), at, s.windows)
  }
  diffNetwork(open, [], endMs, s.windows)
  for (const [id, since] of s.down) {
    if (endMs > since) s.windows.push({ kind: 'pod-failure', nodes: [id], startMs: since, endMs })
  }
  const windows = groupPodWindows(s.windows).sort((a, b) => a.startMs - b.startMs)
  return { windows, notes: s.notes, endMs }
}
