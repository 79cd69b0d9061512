import { k8sName, NODE_LABEL, ROOM_LABEL } from '../kubernetes/names'
import type { PairChaos } from './link-merge'
import type { ChaosWindow, IsolateChaos } from './timeline-windows'

// Chaos Mesh 2.8 specs (api/v1alpha1 networkchaos_types.go, podchaos_types.go) as plain objects.

export interface PodSelectorSpec {
  namespaces: string[]
  labelSelectors?: Record<string, string>
  expressionSelectors?: { key: string; operator: 'In' | 'NotIn'; values: string[] }[]
}

export interface NetworkChaosSpec {
  action: 'partition' | 'netem' | 'delay' | 'loss' | 'bandwidth'
  mode: 'all'
  selector: PodSelectorSpec
  direction: 'to' | 'from' | 'both'
  target?: { mode: 'all'; selector: PodSelectorSpec }
  delay?: { latency: string; jitter?: string }
  loss?: { loss: string }
  bandwidth?: { rate: string; limit: number; buffer: number }
}

export interface PodChaosSpec {
  /** The export writes pod-failure and pod-kill; container-kill is here for the webhook rules. */
  action: 'pod-failure' | 'pod-kill' | 'container-kill'
  mode: 'all'
  selector: PodSelectorSpec
  gracePeriod?: number
  containerNames?: string[]
}

export type ChaosSpec =
  | { templateType: 'NetworkChaos'; networkChaos: NetworkChaosSpec }
  | { templateType: 'PodChaos'; podChaos: PodChaosSpec }

/** Endpoint ids resolve to rooms or nodes by the export's labels (export --target kubernetes). */
export interface SelectorContext {
  namespace: string
  rooms: ReadonlySet<string>
}

/** Go duration text (time.ParseDuration) for a number of milliseconds. */
export function goDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${Math.round(ms)}ms`
}

/** A tc rate Chaos Mesh accepts (an integer and a unit): 0.2 Mbit/s → 200kbit. */
export function tcRate(mbit: number): string {
  const kbit = Math.max(1, Math.round(mbit * 1000))
  return kbit % 1000 === 0 ? `${kbit / 1000}mbit` : `${kbit}kbit`
}

/**
 * tbf's queue and burst for a rate: a queue of 100 ms of traffic (10 full frames at least) and a
 * burst of 10 ms (two frames at least), so the limit shapes instead of dropping at once.
 */
export function tbfSizes(mbit: number): { limit: number; buffer: number } {
  const bytesPerS = (mbit * 1_000_000) / 8
  return {
    limit: Math.max(15_140, Math.round(bytesPerS / 10)),
    buffer: Math.max(3_028, Math.round(bytesPerS / 100))
  }
}

function labelOf(ctx: SelectorContext, id: string): string {
  return ctx.rooms.has(id) ? ROOM_LABEL : NODE_LABEL
}

/** Pods of one room or one node. */
export function endpointSelector(ctx: SelectorContext, id: string): PodSelectorSpec {
  return { namespaces: [ctx.namespace], labelSelectors: { [labelOf(ctx, id)]: k8sName(id) } }
}

/** Pods of several nodes. */
export function nodesSelector(ctx: SelectorContext, ids: readonly string[]): PodSelectorSpec {
  if (ids.length === 1) return endpointSelector(ctx, ids[0]!)
  return {
    namespaces: [ctx.namespace],
    expressionSelectors: [{ key: NODE_LABEL, operator: 'In', values: ids.map(k8sName) }]
  }
}

function isolateSpec(ctx: SelectorContext, c: IsolateChaos): NetworkChaosSpec {
  const label = labelOf(ctx, c.target)
  return {
    action: 'partition',
    mode: 'all',
    selector: endpointSelector(ctx, c.target),
    direction: 'both',
    target: {
      mode: 'all',
      selector: {
        namespaces: [ctx.namespace],
        expressionSelectors: [{ key: label, operator: 'NotIn', values: [k8sName(c.target)] }]
      }
    }
  }
}

function shaping(c: Exclude<PairChaos, { action: 'partition' }>): {
  action: NetworkChaosSpec['action']
  params: Pick<NetworkChaosSpec, 'delay' | 'loss' | 'bandwidth'>
} {
  if (c.action === 'bandwidth') {
    return {
      action: 'bandwidth',
      params: { bandwidth: { rate: tcRate(c.mbit), ...tbfSizes(c.mbit) } }
    }
  }
  const delay = c.delay && {
    latency: goDuration(c.delay.latencyMs),
    ...(c.delay.jitterMs > 0 ? { jitter: goDuration(c.delay.jitterMs) } : {})
  }
  const loss = c.lossPct !== undefined ? { loss: String(c.lossPct) } : undefined
  // One netem object when both are set: two objects on the same pods would overwrite each other.
  const action = delay && loss ? 'netem' : delay ? 'delay' : 'loss'
  return { action, params: { ...(delay ? { delay } : {}), ...(loss ? { loss } : {}) } }
}

/** The NetworkChaos spec of a merged pair state or an isolation. */
export function networkSpec(ctx: SelectorContext, c: PairChaos | IsolateChaos): NetworkChaosSpec {
  if (c.action === 'isolate') return isolateSpec(ctx, c)
  const base = {
    mode: 'all' as const,
    selector: endpointSelector(ctx, c.from),
    direction: c.direction,
    target: { mode: 'all' as const, selector: endpointSelector(ctx, c.to) }
  }
  if (c.action === 'partition') return { action: 'partition', ...base }
  const { action, params } = shaping(c)
  return { action, ...base, ...params }
}

/** The chaos a window stands for, as a Workflow template's embedded spec. */
export function chaosSpec(ctx: SelectorContext, w: ChaosWindow): ChaosSpec {
  switch (w.kind) {
    case 'network':
      return { templateType: 'NetworkChaos', networkChaos: networkSpec(ctx, w.chaos) }
    case 'pod-failure':
      return {
        templateType: 'PodChaos',
        podChaos: { action: 'pod-failure', mode: 'all', selector: nodesSelector(ctx, w.nodes) }
      }
    case 'pod-kill':
      return {
        templateType: 'PodChaos',
        podChaos: {
          action: 'pod-kill',
          mode: 'all',
          selector: nodesSelector(ctx, w.nodes),
          gracePeriod: 0
        }
      }
  }
}

/** A short, readable template name for a window (DNS-1123, room for -wait/-run suffixes). */
export function windowLabel(w: ChaosWindow): string {
  const ids = (list: readonly string[]) =>
    list.length > 1 ? `${k8sName(list[0]!)}-and-${list.length - 1}` : k8sName(list[0]!)
  switch (w.kind) {
    case 'network': {
      const c = w.chaos
      if (c.action === 'isolate') return `isolate-${k8sName(c.target)}`
      return `${c.action}-${k8sName(c.from)}-${k8sName(c.to)}`
    }
    case 'pod-failure':
      return `down-${ids(w.nodes)}`
    case 'pod-kill':
      return `restart-${ids(w.nodes)}`
  }
}
