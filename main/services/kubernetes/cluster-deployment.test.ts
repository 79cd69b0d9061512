import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { topologySchema } from '../../../common/topology/schema'
import { kubernetesObjectFiles } from '../export/kubernetes/render-kubernetes'
import { ClusterDeployment, type DeployProgress } from './cluster-deployment'
import { engineAliveOn, engineIdentity, stampRun } from './run-labels'
import { ApiServerStandIn } from './fixtures/api-server-stand-in'
import type { KubeObject } from './kube-api'
import { KubeHttp } from './kube-http'

// Driver tests against the API-server STAND-IN (fixtures/api-server-stand-in.ts): they prove the
// requests, their order, the labels and the waits, not a real scheduler or kubelet.

const topology = topologySchema.parse(
  JSON.parse(readFileSync('resources/topologies/three-rooms.json', 'utf8'))
)
const { namespace, files } = kubernetesObjectFiles(topology)
const objects = files.flatMap((f) => f.objects as KubeObject[])
const ZONES = ['room1', 'room2', 'room3']

let standIn: ApiServerStandIn | undefined
afterEach(async () => {
  await standIn?.stop()
  standIn = undefined
})

async function setUp(
  options: Partial<ConstructorParameters<typeof ApiServerStandIn>[0]> = {},
  engineAlive: (engine: string) => boolean = () => true
) {
  standIn = new ApiServerStandIn({ token: 't0ken', zones: ZONES, autoReady: true, ...options })
  const server = await standIn.start()
  const api = new KubeHttp({ server, token: 't0ken' })
  const progress: DeployProgress[] = []
  const deployment = new ClusterDeployment({
    api,
    engine: 'host-a/4242',
    isEngineAlive: engineAlive,
    now: () => Date.now(),
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    pollMs: 10
  })
  return { api, deployment, progress, onProgress: (p: DeployProgress) => progress.push(p) }
}

describe('ClusterDeployment against the API-server stand-in', { timeout: 30_000 }, () => {
  it('applies every object once, namespace first and workloads last, labelled with the run, and waits until all are ready', async () => {
    const { deployment, progress, onProgress } = await setUp({ autoReady: false })
    const deployed = deployment.deploy({
      runId: 'r1',
      namespace,
      objects,
      readyTimeoutMs: 5000,
      onProgress
    })
    // Nothing is ready until the stand-in's "kubelet" says so; the deploy waits for the last one.
    await expect.poll(() => progress.some((p) => p.phase === 'ready'), { timeout: 2000 }).toBe(true)
    const workloads = [...standIn!.all('StatefulSet'), ...standIn!.all('Deployment')]
    for (const w of workloads) standIn!.makeReady(w.metadata.name)
    const result = await deployed
    expect(result.created).toBe(objects.length)

    const applies = standIn!.requests.filter((r) => r.method === 'POST')
    expect(applies).toHaveLength(objects.length)
    expect(applies.every((r) => r.path.includes('fieldManager=drstudio'))).toBe(true)
    expect(applies[0]!.path).toBe(`/api/v1/namespaces?fieldManager=drstudio`)
    const firstWorkload = applies.findIndex((r) => /statefulsets|deployments/.test(r.path))
    expect(applies.slice(firstWorkload).every((r) => /statefulsets|deployments/.test(r.path))).toBe(
      true
    )

    const kinds = [
      'Namespace',
      'ConfigMap',
      'Service',
      'StatefulSet',
      'Deployment',
      'Pod',
      'PersistentVolumeClaim'
    ]
    expect(standIn!.all('PersistentVolumeClaim').length).toBeGreaterThan(0)
    for (const kind of kinds) {
      for (const o of standIn!.all(kind).filter((c) => c.metadata.name !== 'kube-root-ca.crt')) {
        expect(o.metadata.labels?.['drstudio.io/run'], `${kind}/${o.metadata.name}`).toBe('r1')
        expect(o.metadata.labels?.['app.kubernetes.io/managed-by']).toBe('drstudio')
      }
    }
    expect(
      standIn!.all('ConfigMap').find((c) => c.metadata.name !== 'kube-root-ca.crt')!.metadata
        .annotations?.['drstudio.io/engine']
    ).toBe('host-a/4242')
    const ready = progress.filter((p) => p.phase === 'ready')
    // The deploy polls every 10 ms: it saw the pods being created before the test made them ready.
    expect(ready[0]!.message).toMatch(/^ready 0\/\d+; waiting for (Deployment|StatefulSet)\//)
    expect(ready.some((p) => /: pod \S+ container main: ContainerCreating/.test(p.message))).toBe(
      true
    )
    expect(ready.at(-1)!.message).toBe(`ready ${workloads.length}/${workloads.length}`)
  })

  it("names the workloads that never became ready, with the scheduler's reason", async () => {
    // No node carries room3's zone: its pods cannot be scheduled.
    const { deployment, onProgress } = await setUp({ zones: ['room1', 'room2'] })
    const error = await deployment
      .deploy({ runId: 'r2', namespace, objects, readyTimeoutMs: 200, onProgress })
      .then(
        () => null,
        (e: Error) => e
      )
    expect(error?.message).toMatch(/workloads not ready after 0 s: /)
    expect(error?.message).toMatch(
      /StatefulSet\/ns-3a: pod ns-3a-0 not scheduled: 0\/2 nodes are available: 2 node\(s\) didn't match Pod's node affinity\/selector/
    )
    expect(error?.message).not.toMatch(/ns-1a:/)
  })

  it('refuses, before applying anything, an object that exists already, ours or not', async () => {
    const { deployment, onProgress } = await setUp()
    standIn!.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })
    standIn!.seed({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'broker-1m-config', namespace, labels: { team: 'payments' } }
    })
    const error = await deployment
      .deploy({ runId: 'r3', namespace, objects, readyTimeoutMs: 1000, onProgress })
      .then(
        () => null,
        (e: Error) => e
      )
    expect(error?.message).toMatch(
      /^1 object\(s\) already exist and DR Studio does not overwrite what this run did not create: ConfigMap\/broker-1m-config in namespace drs-[\w-]+; delete them or choose another namespace with --namespace$/
    )
    expect(standIn!.requests.filter((r) => r.method === 'POST')).toEqual([])
  })

  it("uses an existing namespace that is not a run's without applying or deleting it", async () => {
    const { deployment, onProgress } = await setUp()
    standIn!.seed({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespace, labels: { owner: 'sre' } }
    })
    await deployment.deploy({ runId: 'r4', namespace, objects, readyTimeoutMs: 2000, onProgress })
    expect(
      standIn!.requests.some((r) => r.method === 'POST' && r.path.startsWith('/api/v1/namespaces?'))
    ).toBe(false)
    const { left } = await deployment.teardown({
      runId: 'r4',
      namespace,
      timeoutMs: 2000,
      onProgress
    })
    expect(left).toEqual([])
    expect(standIn!.all('Namespace').map((n) => n.metadata.labels)).toEqual([{ owner: 'sre' }])
    expect(standIn!.all('ConfigMap')).toEqual([])
    expect(standIn!.all('Pod')).toEqual([])
  })

  it("tears down only its own run: another run's and unlabelled objects in the namespace stay", async () => {
    const { deployment, onProgress, progress } = await setUp({ podGraceMs: 50 })
    await deployment.deploy({ runId: 'r5', namespace, objects, readyTimeoutMs: 2000, onProgress })
    standIn!.seed(
      stampRun(
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other', namespace } },
        'r9',
        'host-b/1'
      )
    )
    standIn!.seed({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'operators', namespace }
    })
    const { removed, left } = await deployment.teardown({
      runId: 'r5',
      namespace,
      timeoutMs: 3000,
      onProgress
    })
    expect(left).toEqual([])
    // The namespace is the run's, but deleting it would delete the others' objects: it stays.
    expect(removed).toBe(objects.length - 1)
    expect(
      standIn!
        .all('ConfigMap')
        .map((c) => c.metadata.name)
        .filter((n) => n !== 'kube-root-ca.crt')
        .sort()
    ).toEqual(['operators', 'other'])
    expect(standIn!.all('Namespace')).toHaveLength(1)
    expect(standIn!.all('Pod')).toEqual([])
    expect(
      progress.some(
        (p) =>
          p.message ===
          `namespace ${namespace} kept: it also holds ConfigMap/other, ConfigMap/operators`
      )
    ).toBe(true)
  })

  it('deletes the namespace it created once nothing else is in it', async () => {
    const { deployment, onProgress } = await setUp()
    await deployment.deploy({ runId: 'r11', namespace, objects, readyTimeoutMs: 2000, onProgress })
    const { removed, left } = await deployment.teardown({
      runId: 'r11',
      namespace,
      timeoutMs: 3000,
      onProgress
    })
    expect(left).toEqual([])
    expect(removed).toBe(objects.length)
    const deletes = standIn!.requests.filter((r) => r.method === 'DELETE').map((r) => r.path)
    expect(deletes.at(-1)).toBe(`/api/v1/namespaces/${namespace}`)
    expect(standIn!.all('Namespace')).toEqual([])
  })

  it("keeps the namespace it created while someone else's Secret lives there", async () => {
    const { deployment, onProgress, progress } = await setUp()
    await deployment.deploy({ runId: 'r12', namespace, objects, readyTimeoutMs: 2000, onProgress })
    standIn!.seed({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db-password', namespace }
    })
    await deployment.teardown({ runId: 'r12', namespace, timeoutMs: 2000, onProgress })
    expect(standIn!.all('Namespace')).toHaveLength(1)
    expect(progress.some((p) => p.message.includes('it also holds Secret/db-password'))).toBe(true)
  })

  it("gives each run its own volume claims: refuses an old one, and removes the run's", async () => {
    const { deployment, onProgress } = await setUp()
    await deployment.deploy({ runId: 'r13', namespace, objects, readyTimeoutMs: 2000, onProgress })
    const claims = standIn!.all('PersistentVolumeClaim')
    expect(claims.map((c) => c.metadata.name)).toContain('store-broker-1m-0')
    expect(claims.every((c) => c.metadata.labels?.['drstudio.io/run'] === 'r13')).toBe(true)
    const sts = standIn!.all('StatefulSet').find((o) => o.metadata.name === 'broker-1m')!
    expect(sts.spec?.persistentVolumeClaimRetentionPolicy).toEqual({
      whenDeleted: 'Delete',
      whenScaled: 'Delete'
    })
    await deployment.teardown({ runId: 'r13', namespace, timeoutMs: 2000, onProgress })
    expect(standIn!.all('PersistentVolumeClaim')).toEqual([])
    // A claim left by someone would hand a new broker an old store: refused up front.
    standIn!.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })
    standIn!.seed({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'store-broker-1m-0', namespace }
    })
    await expect(
      deployment.deploy({ runId: 'r14', namespace, objects, readyTimeoutMs: 2000, onProgress })
    ).rejects.toThrow(/PersistentVolumeClaim\/store-broker-1m-0 in namespace/)
  })

  it('create refuses an object that appeared after the check (409), never adopting it', async () => {
    const { api } = await setUp()
    standIn!.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } })
    standIn!.seed({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'x' } })
    await expect(
      api.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'x' } })
    ).rejects.toThrow(
      /could not create ConfigMap\/c in namespace x: HTTP 409: configmaps "c" already exists/
    )
    expect(standIn!.all('ConfigMap')[0]!.metadata.labels).toBeUndefined()
  })

  it('teardown waits for terminating pods and reports what outlived its deadline', async () => {
    const { deployment, onProgress, progress } = await setUp({ podGraceMs: 10_000 })
    await deployment.deploy({
      runId: 'r6',
      namespace: namespace,
      objects,
      readyTimeoutMs: 2000,
      onProgress
    })
    const { left } = await deployment.teardown({
      runId: 'r6',
      namespace,
      timeoutMs: 100,
      onProgress
    })
    expect(left.length).toBeGreaterThan(0)
    expect(left.some((l) => l.startsWith('Pod/'))).toBe(true)
    expect(progress.at(-1)!.message).toMatch(/^still there after 0 s: Pod\//)
  })

  it('sweeps the runs of an engine that died on this host and keeps live or foreign ones', async () => {
    const alive = engineAliveOn('host-a', (pid) => pid !== 4242)
    const { deployment, onProgress } = await setUp({}, alive)
    await deployment.deploy({ runId: 'r7', namespace, objects, readyTimeoutMs: 2000, onProgress })
    standIn!.seed(
      stampRun(
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace } },
        'r8',
        'host-b/4242'
      )
    )
    standIn!.seed(
      stampRun(
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace } },
        'r10',
        'host-a/1'
      )
    )
    const { swept, kept } = await deployment.sweep({ namespace, timeoutMs: 2000, onProgress })
    expect(swept).toEqual(['r7'])
    expect(kept.sort()).toEqual([
      'r10 (engine host-a/1 still runs)',
      'r8 (engine host-b/4242 still runs)'
    ])
    expect(
      standIn!
        .all('ConfigMap')
        .map((c) => c.metadata.name)
        .filter((n) => n !== 'kube-root-ca.crt')
        .sort()
    ).toEqual(['b', 'c'])
    expect(standIn!.all('StatefulSet')).toEqual([])
    expect(standIn!.all('Namespace')).toHaveLength(1)
  })

  it('says which server refused the token', async () => {
    standIn = new ApiServerStandIn({ token: 'right', zones: ZONES })
    const server = await standIn.start()
    const api = new KubeHttp({ server, token: 'wrong' })
    await expect(api.get({ apiVersion: 'v1', kind: 'Namespace', name: 'x' })).rejects.toThrow(
      `${server}: could not read Namespace/x: HTTP 401: Unauthorized`
    )
  })
})

describe('engineIdentity', () => {
  it('adds the machine id, so two hosts of one name stay apart', () => {
    expect(engineIdentity('localhost', 5, 'abcdef0123456789')).toBe('localhost-abcdef012345/5')
    expect(engineIdentity('h', 5, '')).toBe('h/5')
  })
})

describe('engineAliveOn', () => {
  it('checks pids on this host only', () => {
    const alive = engineAliveOn('h', (pid) => pid === 1)
    expect(alive('h/1')).toBe(true)
    expect(alive('h/2')).toBe(false)
    expect(alive('other/2')).toBe(true)
    expect(alive('garbage')).toBe(true)
  })
})
