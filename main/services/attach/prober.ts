import { EventEmitter } from 'node:events'
import type { Topology } from '../../../common/topology'
import { isAttached, listNodes } from '../../../common/topology'

/** What DR Studio last saw of an attached node; `unprobed` = nothing it can ask (no remoting port). */
export type ObservedState = 'up' | 'slow' | 'down' | 'unprobed'

export type ProbeKind = 'nameserver' | 'broker' | 'proxy' | 'management' | 'controller'

export interface ProbeTarget {
  nodeId: string
  kind: ProbeKind
  room: string
  /** host:port the probe goes to; absent when the node offers nothing to probe. */
  address?: string
  /** Why there is no address. */
  unprobedReason?: string
}

/** One real request to a node; resolves on any answer (with a note), rejects on error or timeout. */
export interface ProbePort {
  probe(target: ProbeTarget, timeoutMs: number): Promise<{ detail?: string }>
  /** Closes the connections the probes opened (probes still out fail); the opener calls it. */
  close?(): void
}

/** Time and timers, injected so tests drive the prober without waiting. */
export interface ProberClock {
  now(): number
  setTimeout(fn: () => void, ms: number): () => void
}

export const systemClock: ProberClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms)
    t.unref?.()
    return () => clearTimeout(t)
  }
}

/** A state change of one node; the engine records it as node-observed-down / node-observed-up. */
export interface ObservedChange {
  nodeId: string
  kind: ProbeKind
  room: string
  address: string | undefined
  from: ObservedState | null
  to: ObservedState
  latencyMs: number | null
  reason: string
  at: number
}

export type ProbeOutcome =
  | { ok: true; latencyMs: number; detail?: string }
  | { ok: false; latencyMs: number; error: string; timedOut: boolean; timeoutMs?: number }

/** up / slow / down for one probe; slow is an answer that took longer than `slowMs`. */
export function classifyProbe(
  outcome: ProbeOutcome,
  slowMs: number
): { state: ObservedState; reason: string } {
  const ms = Math.round(outcome.latencyMs)
  if (!outcome.ok) {
    return {
      state: 'down',
      reason: outcome.timedOut ? `no answer within ${outcome.timeoutMs ?? ms} ms` : outcome.error
    }
  }
  const note = outcome.detail ? ` (${outcome.detail})` : ''
  if (outcome.latencyMs > slowMs)
    return { state: 'slow', reason: `answered in ${ms} ms, over ${slowMs} ms${note}` }
  return { state: 'up', reason: `answered in ${ms} ms${note}` }
}

/** Per-node memory between probes. */
export interface NodeWatch {
  state: ObservedState | null
  failures: number
}

/**
 * Folds one classified probe into a node's state: down only after `failuresBeforeDown` failed
 * probes in a row (1 = at once), so one lost packet need not count as an outage when asked.
 */
export function nextWatch(
  prev: NodeWatch,
  classified: { state: ObservedState },
  failuresBeforeDown: number
): { watch: NodeWatch; changed: boolean } {
  if (classified.state === 'down') {
    const failures = prev.failures + 1
    const state = failures >= failuresBeforeDown ? 'down' : prev.state
    return { watch: { state, failures }, changed: state !== prev.state }
  }
  return {
    watch: { state: classified.state, failures: 0 },
    changed: classified.state !== prev.state
  }
}

/** The probe targets of a topology: every attached node, with the address to ask. */
export function probeTargets(topology: Topology): ProbeTarget[] {
  const out: ProbeTarget[] = []
  for (const node of listNodes(topology)) {
    if (node.kind === 'producer' || node.kind === 'consumer' || !isAttached(node)) continue
    const base = { nodeId: node.id, kind: node.kind, room: node.room }
    if (node.kind === 'proxy') {
      if (node.spec.remotingPort === undefined) {
        out.push({
          ...base,
          unprobedReason:
            'the proxy has no remotingPort in the topology, and its gRPC port takes no remoting request; set remotingPort to watch it'
        })
      } else out.push({ ...base, address: `${node.spec.host}:${node.spec.remotingPort}` })
      continue
    }
    out.push({ ...base, address: `${node.spec.host}:${node.spec.port}` })
  }
  return out
}

export interface ProberOptions {
  targets: ProbeTarget[]
  port: ProbePort
  clock?: ProberClock
  intervalMs: number
  timeoutMs: number
  /** Answers slower than this are `slow`; default half the timeout. */
  slowMs?: number
  failuresBeforeDown?: number
}

interface ProberEvents {
  change: [ObservedChange]
}

/**
 * Watches attached nodes: every interval one real request per node, a `change` event only when a
 * node's observed state changes. A node whose last probe is still out is not asked again.
 */
export class AttachedProber extends EventEmitter<ProberEvents> {
  private readonly clock: ProberClock
  private readonly slowMs: number
  private readonly failuresBeforeDown: number
  private readonly watches = new Map<string, NodeWatch>()
  private readonly inFlight = new Set<string>()
  /** Settles each probe still out, with its deadline timer cleared; stop() calls them. */
  private readonly abandons = new Set<() => void>()
  private cancelTimer: (() => void) | null = null
  private running = false
  private stopped = false

  constructor(private readonly opts: ProberOptions) {
    super()
    this.clock = opts.clock ?? systemClock
    this.slowMs = opts.slowMs ?? Math.round(opts.timeoutMs / 2)
    this.failuresBeforeDown = Math.max(1, opts.failuresBeforeDown ?? 1)
    for (const t of opts.targets) this.watches.set(t.nodeId, { state: null, failures: 0 })
  }

  /** Last observed state per node id (null = not probed yet). */
  states(): Record<string, ObservedState | null> {
    return Object.fromEntries([...this.watches].map(([id, w]) => [id, w.state]))
  }

  /** Probes now, then every interval until stop(); resolves when the first round has settled. */
  start(): Promise<void> {
    if (this.running) return Promise.resolve()
    this.running = true
    this.stopped = false
    let first: Promise<void> | undefined
    const tick = (): void => {
      if (!this.running) return
      const round = this.probeOnce()
      first ??= round
      this.cancelTimer = this.clock.setTimeout(tick, this.opts.intervalMs)
    }
    tick()
    return first ?? Promise.resolve()
  }

  /** Stops the interval and settles every probe still out, so no timer of the prober is left. */
  stop(): void {
    this.running = false
    this.stopped = true
    this.cancelTimer?.()
    this.cancelTimer = null
    for (const abandon of [...this.abandons]) abandon()
  }

  /** One round over every target; resolves when each probe of the round has settled. */
  async probeOnce(): Promise<void> {
    await Promise.all(this.opts.targets.map((t) => this.probeTarget(t)))
  }

  private async probeTarget(target: ProbeTarget): Promise<void> {
    if (this.stopped) return
    if (!target.address) {
      this.apply(
        target,
        { state: 'unprobed', reason: target.unprobedReason ?? 'nothing to probe' },
        null
      )
      return
    }
    if (this.inFlight.has(target.nodeId)) return
    this.inFlight.add(target.nodeId)
    const outcome = await this.timedProbe(target)
    this.inFlight.delete(target.nodeId)
    // An answer that arrives after stop() describes a watch nobody listens to any more.
    if (this.stopped) return
    this.apply(target, classifyProbe(outcome, this.slowMs), outcome.latencyMs)
  }

  private timedProbe(target: ProbeTarget): Promise<ProbeOutcome> {
    const started = this.clock.now()
    const elapsed = (): number => this.clock.now() - started
    return new Promise<ProbeOutcome>((resolve) => {
      let settled = false
      const settle = (): boolean => {
        if (settled) return false
        settled = true
        this.abandons.delete(abandon)
        return true
      }
      const abandon = (): void => {
        if (!settle()) return
        cancel()
        resolve({ ok: false, latencyMs: elapsed(), error: 'the prober stopped', timedOut: false })
      }
      const cancel = this.clock.setTimeout(() => {
        if (!settle()) return
        resolve({
          ok: false,
          latencyMs: elapsed(),
          error: `no answer within ${this.opts.timeoutMs} ms`,
          timedOut: true,
          timeoutMs: this.opts.timeoutMs
        })
      }, this.opts.timeoutMs)
      this.abandons.add(abandon)
      this.opts.port.probe(target, this.opts.timeoutMs).then(
        (r) => {
          if (!settle()) return
          cancel()
          resolve({ ok: true, latencyMs: elapsed(), ...(r.detail ? { detail: r.detail } : {}) })
        },
        (e: unknown) => {
          if (!settle()) return
          cancel()
          const message = e instanceof Error ? e.message : String(e)
          const timedOut = (e as { code?: string } | null)?.code === 'timeout'
          resolve({
            ok: false,
            latencyMs: elapsed(),
            error: message,
            timedOut,
            timeoutMs: this.opts.timeoutMs
          })
        }
      )
    })
  }

  private apply(
    target: ProbeTarget,
    classified: { state: ObservedState; reason: string },
    latencyMs: number | null
  ): void {
    const prev = this.watches.get(target.nodeId) ?? { state: null, failures: 0 }
    const { watch, changed } = nextWatch(prev, classified, this.failuresBeforeDown)
    this.watches.set(target.nodeId, watch)
    if (!changed || watch.state === null) return
    this.emit('change', {
      nodeId: target.nodeId,
      kind: target.kind,
      room: target.room,
      address: target.address,
      from: prev.state,
      to: watch.state,
      latencyMs: latencyMs === null ? null : Math.round(latencyMs),
      reason: classified.reason,
      at: this.clock.now()
    })
  }
}
