import type { PodSelectorSpec, SelectorContext } from '../export/chaos-mesh/chaos-objects'
import { chaosSpec, windowLabel } from '../export/chaos-mesh/chaos-objects'
import type { ChaosWindow } from '../export/chaos-mesh/timeline-windows'
import { chaosSpecProblems } from '../export/chaos-mesh/webhook-rules'
import { stampRun } from './run-labels'
import type { KubeObject, KubeRunPorts } from './kube-api'
import { describeRef, refOf, RUN_LABEL } from './kube-api'

export const CHAOS_API = 'chaos-mesh.org/v1alpha1'

/**
 * One fault of a live run as a standalone Chaos Mesh object (the export's mapping, without a
 * Workflow: the engine applies it at the fault's time and deletes it to heal). Refuses what the
 * admission webhook would refuse, naming the field.
 */
export function liveChaosObject(
  ctx: SelectorContext,
  window: ChaosWindow,
  name: string,
  runId: string
): KubeObject {
  const spec = chaosSpec(ctx, window)
  const problems = chaosSpecProblems(spec)
  if (problems.length) {
    throw new Error(`Chaos Mesh would refuse ${windowLabel(window)}: ${problems.join('; ')}`)
  }
  const body = structuredClone(
    spec.templateType === 'NetworkChaos' ? spec.networkChaos : spec.podChaos
  ) as { selector: PodSelectorSpec; target?: { selector: PodSelectorSpec } }
  // Only the run's pods: in a namespace the operator shares, `NotIn room1` would match theirs too.
  for (const selector of [body.selector, ...(body.target ? [body.target.selector] : [])]) {
    selector.labelSelectors = { ...selector.labelSelectors, [RUN_LABEL]: runId }
  }
  return {
    apiVersion: CHAOS_API,
    kind: spec.templateType,
    metadata: { name, namespace: ctx.namespace },
    spec: body as unknown as Record<string, unknown>
  }
}

/** `drs-<run>-<n>-<what>`, cut to a DNS label: unique per run by the step number. */
export function liveChaosName(runId: string, seq: number, window: ChaosWindow): string {
  return `drs-${runId}-${seq}-${windowLabel(window)}`.slice(0, 63).replace(/-+$/, '')
}

interface ChaosStatus {
  conditions?: { type: string; status: string; reason?: string }[]
  experiment?: {
    containerRecords?: {
      id?: string
      phase?: string
      events?: { type: string; operation: string; timestamp: string; message?: string }[]
    }[]
  }
}

export type InjectionState =
  | { kind: 'injected'; chaosMeshAt?: string }
  | { kind: 'pending'; detail: string }
  | { kind: 'gone' }

/**
 * Where Chaos Mesh stands with an object: injected when its `AllInjected` condition is True (with
 * the controller's own time of the last successful apply), else pending with what it shows. Chaos
 * Mesh writes `Selected=False` on its first pass, before it selects anything, and retries a failed
 * apply, so neither is final: the caller gives up at its deadline, with the detail.
 */
export function injectionState(object: KubeObject | null): InjectionState {
  if (!object) return { kind: 'gone' }
  const status = (object.status ?? {}) as ChaosStatus
  const records = status.experiment?.containerRecords ?? []
  if (status.conditions?.some((c) => c.type === 'AllInjected' && c.status === 'True')) {
    const applied = records
      .flatMap((r) => r.events ?? [])
      .filter((e) => e.type === 'Succeeded' && e.operation === 'Apply')
      .map((e) => e.timestamp)
      .sort()
    return { kind: 'injected', ...(applied.length ? { chaosMeshAt: applied.at(-1)! } : {}) }
  }
  // A record whose latest event is a failed apply says why (it may still be retried).
  const failing = records.flatMap((r) => {
    const last = r.events?.at(-1)
    return last?.type === 'Failed' && last.operation === 'Apply'
      ? [`${r.id ?? 'a record'}: ${last.message ?? 'apply failed'}`]
      : []
  })
  const shown = (status.conditions ?? []).map((c) => `${c.type}=${c.status}`)
  const detail = [...shown, ...(records.length ? [] : ['no pod selected yet']), ...failing]
  return { kind: 'pending', detail: status.conditions ? detail.join(', ') : 'no status yet' }
}

/** When a fault took effect, by the engine's clock, and how precisely that is known. */
export interface ChaosTiming {
  name: string
  requestedAt: number
  /** The first poll that saw it in effect (injected) or gone (healed). */
  observedAt: number
  /** It took effect after the previous poll: observedAt - boundMs is the earliest it can have. */
  boundMs: number
  /** Chaos Mesh's own time of the last apply (its controller's clock, whole seconds). */
  chaosMeshAt?: string
}

/** Chaos Mesh's state is polled every 200 ms unless `pollMs` says otherwise. */
export type ChaosFaultsDeps = KubeRunPorts

/**
 * Applies a run's faults as Chaos Mesh objects and heals them by deletion, timing both on the
 * engine's clock: the injection when `AllInjected` turns True, the heal when the object is gone
 * (Chaos Mesh's finalizer holds it until every pod is recovered).
 */
export class ChaosFaults {
  constructor(private readonly deps: ChaosFaultsDeps) {}

  private get pollMs(): number {
    return this.deps.pollMs ?? 200
  }

  /**
   * Creates the object and waits until it is in effect. One that is not in effect by the
   * deadline, or whose wait fails or is stopped, is healed (deleted and waited for) before the
   * error is thrown, so no fault outlives its step.
   */
  async inject(input: {
    runId: string
    object: KubeObject
    timeoutMs: number
    signal?: AbortSignal
  }): Promise<ChaosTiming> {
    const ref = refOf(input.object)
    const requestedAt = this.deps.now()
    await this.deps.api.create(stampRun(input.object, input.runId, this.deps.engine))
    try {
      return await this.waitInjected(input, requestedAt)
    } catch (e) {
      await this.heal({ object: input.object, timeoutMs: input.timeoutMs }).catch(() => undefined)
      throw new Error(`${describeRef(ref)}: ${(e as Error).message}; deleted it`)
    }
  }

  private async waitInjected(
    input: { object: KubeObject; timeoutMs: number; signal?: AbortSignal },
    requestedAt: number
  ): Promise<ChaosTiming> {
    const ref = refOf(input.object)
    let previous = requestedAt
    for (;;) {
      const state = injectionState(await this.deps.api.get(ref))
      const at = this.deps.now()
      if (state.kind === 'injected') {
        return {
          name: ref.name,
          requestedAt,
          observedAt: at,
          boundMs: at - previous,
          ...(state.chaosMeshAt ? { chaosMeshAt: state.chaosMeshAt } : {})
        }
      }
      if (state.kind === 'gone') throw new Error('someone deleted it before it took effect')
      if (input.signal?.aborted) throw new Error('the run was stopped')
      if (at - requestedAt >= input.timeoutMs) {
        throw new Error(
          `not in effect after ${input.timeoutMs} ms (${state.detail}); is Chaos Mesh running, do the run's pods match, and is netem in the nodes' kernels?`
        )
      }
      previous = at
      await this.deps.sleep(this.pollMs, input.signal)
    }
  }

  /** Deletes the object and waits until Chaos Mesh has recovered every pod and let it go. */
  async heal(input: { object: KubeObject; timeoutMs: number }): Promise<ChaosTiming> {
    const { api } = this.deps
    const ref = refOf(input.object)
    const requestedAt = this.deps.now()
    await api.remove(ref)
    let previous = requestedAt
    for (;;) {
      const left = await api.get(ref)
      const at = this.deps.now()
      if (!left) return { name: ref.name, requestedAt, observedAt: at, boundMs: at - previous }
      if (at - requestedAt >= input.timeoutMs) {
        throw new Error(
          `${describeRef(ref)} still there ${input.timeoutMs} ms after its deletion: Chaos Mesh has not recovered every pod (finalizers ${JSON.stringify((left.metadata as { finalizers?: string[] }).finalizers ?? [])})`
        )
      }
      previous = at
      await this.deps.sleep(this.pollMs)
    }
  }
}
