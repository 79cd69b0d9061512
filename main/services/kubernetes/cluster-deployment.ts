import type { KubeApi, KubeObject } from './kube-api'
import {
  describeRef,
  ENGINE_ANNOTATION,
  KubeApiError,
  MANAGED_BY_LABEL,
  refOf,
  RUN_LABEL
} from './kube-api'
import { readinessOf } from './readiness'

export interface DeployProgress {
  phase: 'check' | 'apply' | 'ready' | 'teardown' | 'sweep'
  message: string
}

export interface ClusterDeploymentDeps {
  api: KubeApi
  /** `<host>/<pid>` of this engine, written on everything it creates. */
  engine: string
  /** Whether the engine a run's objects name still runs; another host's counts as alive. */
  isEngineAlive(engine: string): boolean
  now(): number
  sleep(ms: number, signal?: AbortSignal): Promise<void>
  /** How often readiness and deletion are polled (default 1 s). */
  pollMs?: number
}

const APPS = 'apps/v1'
const WORKLOAD_KINDS = [
  { apiVersion: APPS, kind: 'Deployment' },
  { apiVersion: APPS, kind: 'StatefulSet' }
]
/** What a run creates besides its namespace, in the order teardown deletes it. */
const RUN_KINDS = [
  ...WORKLOAD_KINDS,
  { apiVersion: 'v1', kind: 'Service' },
  { apiVersion: 'v1', kind: 'ConfigMap' }
]
/** Objects of any DR Studio run. */
const OWNED_RUNS = `${MANAGED_BY_LABEL}=drstudio,${RUN_LABEL}`
const POD = { apiVersion: 'v1', kind: 'Pod' }
const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' }
const APPLY_RANK: Record<string, number> = { Namespace: 0, ConfigMap: 1, Service: 2 }

/**
 * A copy of the object labelled with the run (its pods too, so faults and sweeps can select them)
 * and annotated with the engine that created it.
 */
export function stampRun(object: KubeObject, runId: string, engine: string): KubeObject {
  const copy = structuredClone(object)
  copy.metadata.labels = {
    ...copy.metadata.labels,
    [MANAGED_BY_LABEL]: 'drstudio',
    [RUN_LABEL]: runId
  }
  copy.metadata.annotations = { ...copy.metadata.annotations, [ENGINE_ANNOTATION]: engine }
  const template = (copy.spec as { template?: { metadata?: { labels?: Record<string, string> } } })
    ?.template
  if (template)
    template.metadata = {
      ...template.metadata,
      labels: { ...template.metadata?.labels, [RUN_LABEL]: runId }
    }
  return copy
}

/** Namespace first, then configuration, Services, and the workloads last (stable otherwise). */
export function applyOrder(objects: KubeObject[]): KubeObject[] {
  return objects
    .map((o, i) => ({ o, i }))
    .sort((a, b) => (APPLY_RANK[a.o.kind] ?? 3) - (APPLY_RANK[b.o.kind] ?? 3) || a.i - b.i)
    .map(({ o }) => o)
}

/**
 * Puts a topology's objects on a cluster for one run and takes them off again. It creates only
 * objects that do not exist yet (an existing one, ours or not, stops the run before anything is
 * applied), labels each with the run, and deletes only objects carrying that run's label.
 */
export class ClusterDeployment {
  constructor(private readonly deps: ClusterDeploymentDeps) {}

  private get pollMs(): number {
    return this.deps.pollMs ?? 1000
  }

  /** Checks, applies and waits until every workload is ready; throws naming what is not. */
  async deploy(input: {
    runId: string
    namespace: string
    objects: KubeObject[]
    readyTimeoutMs: number
    signal?: AbortSignal
    onProgress(p: DeployProgress): void
  }): Promise<{ applied: number; readyMs: number }> {
    const { api } = this.deps
    const t0 = this.deps.now()
    const stamped = applyOrder(input.objects).map((o) => stampRun(o, input.runId, this.deps.engine))
    const toApply = await this.check(input.namespace, stamped, input.onProgress)
    let applied = 0
    for (const object of toApply) {
      input.signal?.throwIfAborted()
      await api.apply(object)
      applied++
      input.onProgress({
        phase: 'apply',
        message: `applied ${applied}/${toApply.length} ${describeRef(refOf(object))}`
      })
    }
    await this.waitReady(input)
    return { applied, readyMs: this.deps.now() - t0 }
  }

  /**
   * The objects to apply: all of them, less the namespace when it exists already and is not a DR
   * Studio run's (the operator's own: used, never deleted). Anything else that exists is refused.
   */
  private async check(
    namespace: string,
    objects: KubeObject[],
    onProgress: (p: DeployProgress) => void
  ): Promise<KubeObject[]> {
    const { api } = this.deps
    onProgress({
      phase: 'check',
      message: `checking that none of ${objects.length} objects exists in namespace ${namespace}`
    })
    const existingNs = await api.get({ ...NAMESPACE, name: namespace })
    const otherRun = existingNs?.metadata.labels?.[RUN_LABEL]
    if (otherRun) {
      throw new Error(
        `namespace ${namespace} belongs to DR Studio run ${otherRun} (engine ${existingNs.metadata.annotations?.[ENGINE_ANNOTATION] ?? 'unknown'}); stop that run or remove it with \`drstudio kubernetes sweep\`, or choose another namespace with --namespace`
      )
    }
    const rest = objects.filter((o) => o.kind !== 'Namespace' || !existingNs)
    const clashes: string[] = []
    for (const o of rest) {
      if (o.kind === 'Namespace') continue
      const found = await api.get(refOf(o))
      if (found) {
        const owner = found.metadata.labels?.[RUN_LABEL]
        clashes.push(`${describeRef(refOf(o))}${owner ? ` (DR Studio run ${owner})` : ''}`)
      }
    }
    if (clashes.length) {
      throw new Error(
        `${clashes.length} object(s) already exist and DR Studio does not overwrite what this run did not create: ${clashes.slice(0, 5).join(', ')}${clashes.length > 5 ? ', …' : ''}; delete them or choose another namespace with --namespace`
      )
    }
    return rest
  }

  private async waitReady(input: {
    runId: string
    namespace: string
    readyTimeoutMs: number
    signal?: AbortSignal
    onProgress(p: DeployProgress): void
  }): Promise<void> {
    const selector = `${RUN_LABEL}=${input.runId}`
    const deadline = this.deps.now() + input.readyTimeoutMs
    let last = ''
    for (;;) {
      input.signal?.throwIfAborted()
      const workloads = (
        await Promise.all(
          WORKLOAD_KINDS.map((k) => this.deps.api.list(k, input.namespace, selector))
        )
      ).flat()
      const pods = await this.deps.api.list(POD, input.namespace, selector)
      const { ready, waiting } = readinessOf(workloads, pods)
      const total = ready.length + waiting.length
      const message = waiting.length
        ? `ready ${ready.length}/${total}; waiting for ${waiting.map((w) => `${w.name}: ${w.reason}`).join('; ')}`
        : `ready ${total}/${total}`
      if (message !== last) input.onProgress({ phase: 'ready', message })
      last = message
      if (!waiting.length) return
      if (this.deps.now() >= deadline) {
        throw new Error(
          `${waiting.length} of ${total} workloads not ready after ${Math.round(input.readyTimeoutMs / 1000)} s: ${waiting.map((w) => `${w.name}: ${w.reason}`).join('; ')}`
        )
      }
      await this.deps.sleep(this.pollMs, input.signal)
    }
  }

  /**
   * Deletes every object labelled with the run in the namespace (and the namespace when the run
   * created it), then waits until the run's pods are gone. Returns what was still there at the
   * deadline.
   */
  async teardown(input: {
    runId: string
    namespace: string
    timeoutMs: number
    onProgress(p: DeployProgress): void
  }): Promise<{ removed: number; left: string[] }> {
    const { api } = this.deps
    const selector = `${RUN_LABEL}=${input.runId}`
    let removed = 0
    for (const kind of RUN_KINDS) {
      for (const o of await api.list(kind, input.namespace, selector)) {
        await api.remove({ ...refOf(o), namespace: input.namespace })
        removed++
      }
    }
    const ns = await api.get({ ...NAMESPACE, name: input.namespace })
    let ownNamespace = ns?.metadata.labels?.[RUN_LABEL] === input.runId
    // Deleting a namespace deletes all it holds: keep it while anything else lives there.
    const others = ownNamespace ? await this.othersIn(input.namespace, input.runId) : []
    if (others.length) {
      ownNamespace = false
      input.onProgress({
        phase: 'teardown',
        message: `namespace ${input.namespace} kept: it also holds ${others.slice(0, 3).join(', ')}${others.length > 3 ? ', …' : ''}`
      })
    } else if (ownNamespace) {
      await api.remove({ ...NAMESPACE, name: input.namespace })
      removed++
    }
    input.onProgress({
      phase: 'teardown',
      message: `deleting ${removed} objects of run ${input.runId}`
    })
    const deadline = this.deps.now() + input.timeoutMs
    for (;;) {
      const left = [
        ...(await api.list(POD, input.namespace, selector)).map((p) => `Pod/${p.metadata.name}`),
        ...(ownNamespace && (await api.get({ ...NAMESPACE, name: input.namespace }))
          ? [`Namespace/${input.namespace}`]
          : [])
      ]
      if (!left.length || this.deps.now() >= deadline) {
        input.onProgress({
          phase: 'teardown',
          message: left.length
            ? `still there after ${Math.round(input.timeoutMs / 1000)} s: ${left.join(', ')}`
            : `run ${input.runId} removed`
        })
        return { removed, left }
      }
      await this.deps.sleep(this.pollMs)
    }
  }

  /** Objects in the namespace that are not the run's (another run's, or anyone's). */
  private async othersIn(namespace: string, runId: string): Promise<string[]> {
    const all = (
      await Promise.all(RUN_KINDS.map((k) => this.deps.api.list(k, namespace, '')))
    ).flat()
    return all
      .filter((o) => o.metadata.labels?.[RUN_LABEL] !== runId && !o.metadata.deletionTimestamp)
      .map((o) => `${o.kind}/${o.metadata.name}`)
  }

  /**
   * Removes the runs in a namespace whose engine died on this host (a crash, a kill -9): found by
   * their labels, told apart by the engine annotation. Another host's runs are left and named.
   */
  async sweep(input: {
    namespace: string
    timeoutMs: number
    onProgress(p: DeployProgress): void
  }): Promise<{ swept: string[]; kept: string[] }> {
    const runs = new Map<string, string>()
    const add = (o: KubeObject) => {
      const run = o.metadata.labels?.[RUN_LABEL]
      if (run && !runs.has(run)) runs.set(run, o.metadata.annotations?.[ENGINE_ANNOTATION] ?? '')
    }
    const ns = await this.deps.api.get({ ...NAMESPACE, name: input.namespace })
    if (!ns) return { swept: [], kept: [] }
    add(ns)
    for (const kind of RUN_KINDS) {
      try {
        ;(await this.deps.api.list(kind, input.namespace, OWNED_RUNS)).forEach(add)
      } catch (e) {
        if (!(e instanceof KubeApiError && e.status === 404)) throw e
      }
    }
    const swept: string[] = []
    const kept: string[] = []
    for (const [runId, engine] of runs) {
      if (!engine || this.deps.isEngineAlive(engine)) {
        kept.push(`${runId} (${engine ? `engine ${engine} still runs` : 'no engine recorded'})`)
        continue
      }
      input.onProgress({
        phase: 'sweep',
        message: `run ${runId} of engine ${engine || 'unknown'} is gone; removing its objects`
      })
      await this.teardown({
        runId,
        namespace: input.namespace,
        timeoutMs: input.timeoutMs,
        onProgress: input.onProgress
      })
      swept.push(runId)
    }
    return { swept, kept }
  }
}

/** Whether an engine annotation names a live process: this host's by pid, any other host's yes. */
export function engineAliveOnHost(
  host: string,
  isPidAlive: (pid: number) => boolean
): (engine: string) => boolean {
  return (engine) => {
    const m = /^(.*)\/(\d+)$/.exec(engine)
    if (!m || m[1] !== host) return true
    return isPidAlive(Number(m[2]))
  }
}
