import type { KubeObject, KubeRunPorts } from './kube-api'
import { describeRef, ENGINE_ANNOTATION, MANAGED_BY_LABEL, refOf, RUN_LABEL } from './kube-api'
import { listIfServed, othersIn } from './namespace-inventory'
import { readinessOf } from './readiness'
import { claimNames, createOrder, stampRun } from './run-labels'

export interface DeployProgress {
  phase: 'check' | 'create' | 'ready' | 'teardown' | 'sweep'
  message: string
}

/** Readiness and deletion are polled every second unless `pollMs` says otherwise. */
export interface ClusterDeploymentDeps extends KubeRunPorts {
  /** Whether the engine a run's objects name still runs; another machine's counts as alive. */
  isEngineAlive(engine: string): boolean
}

const WORKLOAD_KINDS = [
  { apiVersion: 'apps/v1', kind: 'Deployment' },
  { apiVersion: 'apps/v1', kind: 'StatefulSet' }
]
/** What a run creates besides its namespace, in the order teardown deletes it: faults first. */
const RUN_KINDS = [
  { apiVersion: 'chaos-mesh.org/v1alpha1', kind: 'NetworkChaos' },
  { apiVersion: 'chaos-mesh.org/v1alpha1', kind: 'PodChaos' },
  ...WORKLOAD_KINDS,
  { apiVersion: 'v1', kind: 'Service' },
  { apiVersion: 'v1', kind: 'ConfigMap' },
  { apiVersion: 'v1', kind: 'PersistentVolumeClaim' }
]
/** What teardown waits to see gone. */
const LINGERING_KINDS = [
  { apiVersion: 'v1', kind: 'Pod' },
  { apiVersion: 'v1', kind: 'PersistentVolumeClaim' }
]
/** Objects of any DR Studio run. */
const OWNED_RUNS = `${MANAGED_BY_LABEL}=drstudio,${RUN_LABEL}`
const POD = { apiVersion: 'v1', kind: 'Pod' }
const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' }

/**
 * Puts a topology's objects on a cluster for one run and takes them off again. It creates only
 * objects that do not exist (one that does, ours or not, stops the run before anything is
 * written; one created meanwhile makes the create fail), labels each with the run, and deletes
 * only objects carrying that run's label.
 */
export class ClusterDeployment {
  constructor(private readonly deps: ClusterDeploymentDeps) {}

  private get pollMs(): number {
    return this.deps.pollMs ?? 1000
  }

  /** Checks, creates and waits until every workload is ready; throws naming what is not. */
  async deploy(input: {
    runId: string
    namespace: string
    objects: KubeObject[]
    readyTimeoutMs: number
    signal?: AbortSignal
    onProgress(p: DeployProgress): void
  }): Promise<{ created: number; readyMs: number }> {
    const t0 = this.deps.now()
    const stamped = createOrder(input.objects).map((o) =>
      stampRun(o, input.runId, this.deps.engine)
    )
    const toCreate = await this.check(input.namespace, stamped, input.onProgress)
    let created = 0
    for (const object of toCreate) {
      input.signal?.throwIfAborted()
      await this.deps.api.create(object)
      created++
      input.onProgress({
        phase: 'create',
        message: `created ${created}/${toCreate.length} ${describeRef(refOf(object))}`
      })
    }
    const workloads = toCreate.filter((o) => WORKLOAD_KINDS.some((k) => k.kind === o.kind)).length
    await this.waitReady({ ...input, workloads })
    return { created, readyMs: this.deps.now() - t0 }
  }

  /**
   * The objects to create: all of them, less the namespace when it exists already and is not a DR
   * Studio run's (the operator's own: used, never deleted). Anything else that exists is refused,
   * volume claims a StatefulSet would reuse included.
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
    if (existingNs && otherRun) {
      throw new Error(
        `namespace ${namespace} belongs to DR Studio run ${otherRun} (engine ${existingNs.metadata.annotations?.[ENGINE_ANNOTATION] ?? 'unknown'}); stop that run or remove it with \`drstudio kubernetes sweep\`, or choose another namespace with --namespace`
      )
    }
    const rest = objects.filter((o) => o.kind !== 'Namespace' || !existingNs)
    const refs = rest.flatMap((o) => [
      ...(o.kind === 'Namespace' ? [] : [refOf(o)]),
      ...claimNames(o).map((name) => ({
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        name,
        namespace
      }))
    ])
    const clashes: string[] = []
    for (const ref of refs) {
      const found = await api.get(ref)
      const owner = found?.metadata.labels?.[RUN_LABEL]
      if (found) clashes.push(`${describeRef(ref)}${owner ? ` (DR Studio run ${owner})` : ''}`)
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
    workloads: number
    readyTimeoutMs: number
    signal?: AbortSignal
    onProgress(p: DeployProgress): void
  }): Promise<void> {
    const selector = `${RUN_LABEL}=${input.runId}`
    const deadline = this.deps.now() + input.readyTimeoutMs
    let last = ''
    for (;;) {
      input.signal?.throwIfAborted()
      const listed = (
        await Promise.all(
          WORKLOAD_KINDS.map((k) => this.deps.api.list(k, input.namespace, selector))
        )
      ).flat()
      const pods = await this.deps.api.list(POD, input.namespace, selector)
      const { ready, waiting } = readinessOf(listed, pods)
      // A workload the API does not list yet is not ready either.
      const unlisted = input.workloads - listed.length
      if (unlisted > 0) waiting.push({ name: `${unlisted} workload(s)`, reason: 'not listed yet' })
      const total = Math.max(input.workloads, ready.length + waiting.length)
      const why = waiting.map((w) => `${w.name}: ${w.reason}`).join('; ')
      const message = waiting.length
        ? `ready ${ready.length}/${total}; waiting for ${why}`
        : `ready ${total}/${total}`
      if (message !== last) input.onProgress({ phase: 'ready', message })
      last = message
      if (!waiting.length) return
      if (this.deps.now() >= deadline) {
        throw new Error(
          `${total - ready.length} of ${total} workloads not ready after ${Math.round(input.readyTimeoutMs / 1000)} s: ${why}`
        )
      }
      await this.deps.sleep(this.pollMs, input.signal)
    }
  }

  /**
   * Deletes every object labelled with the run in the namespace (and the namespace when the run
   * created it and nothing else lives there), then waits until the run's pods and volume claims
   * are gone. Returns what was still there at the deadline.
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
      for (const o of await listIfServed(api, kind, input.namespace, selector)) {
        await api.remove({ ...refOf(o), namespace: input.namespace })
        removed++
      }
    }
    const ownNamespace = await this.removeOwnNamespace(input)
    if (ownNamespace) removed++
    input.onProgress({
      phase: 'teardown',
      message: `deleting ${removed} objects of run ${input.runId}`
    })
    const deadline = this.deps.now() + input.timeoutMs
    for (;;) {
      const left = [
        ...(
          await Promise.all(
            LINGERING_KINDS.map((k) => listIfServed(api, k, input.namespace, selector))
          )
        )
          .flat()
          .map((o) => `${o.kind}/${o.metadata.name}`),
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

  /** Deletes the namespace if the run created it and holds nothing else; whether it did. */
  private async removeOwnNamespace(input: {
    runId: string
    namespace: string
    onProgress(p: DeployProgress): void
  }): Promise<boolean> {
    const { api } = this.deps
    const ns = await api.get({ ...NAMESPACE, name: input.namespace })
    if (ns?.metadata.labels?.[RUN_LABEL] !== input.runId) return false
    const others = await othersIn(api, input.namespace, input.runId)
    if (others.length) {
      input.onProgress({
        phase: 'teardown',
        message: `namespace ${input.namespace} kept: it also holds ${others.slice(0, 3).join(', ')}${others.length > 3 ? ', …' : ''}`
      })
      return false
    }
    await api.remove({ ...NAMESPACE, name: input.namespace })
    return true
  }

  /**
   * Removes the runs in a namespace whose engine died on this machine (a crash, a kill -9): found
   * by their labels, told apart by the engine annotation. Another machine's runs, and objects
   * naming no engine, are left and named.
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
      ;(await listIfServed(this.deps.api, kind, input.namespace, OWNED_RUNS)).forEach(add)
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
        message: `run ${runId} of engine ${engine} is gone; removing its objects`
      })
      await this.teardown({ ...input, runId })
      swept.push(runId)
    }
    return { swept, kept }
  }
}
