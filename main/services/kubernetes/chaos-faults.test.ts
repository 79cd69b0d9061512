import { readdirSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import type { ChaosWindow } from '../export/chaos-mesh/timeline-windows'
import { planTimeline } from '../export/chaos-mesh/timeline-windows'
import { kubernetesObjectFiles } from '../export/kubernetes/render-kubernetes'
import { namespaceOf } from '../export/kubernetes/names'
import { createManifestChecker } from '../export/manifest-schemas'
import { loadScenarioFile } from '../scenario/load-scenario'
import { ChaosFaults, injectionState, liveChaosName, liveChaosObject } from './chaos-faults'
import { ClusterDeployment } from './cluster-deployment'
import { ApiServerStandIn } from './fixtures/api-server-stand-in'
import type { KubeObject } from './kube-api'
import { KubeHttp } from './kube-http'

// Live faults against the API-server STAND-IN and its toy Chaos Mesh controller: proves the
// objects, their labels, the waits and timings, the refusals and the cleanup; not Chaos Mesh's
// injection into real pods.

const SCENARIOS = readdirSync('resources/scenarios').filter((f) => f.endsWith('.yaml'))
const check = createManifestChecker()
const { topology } = loadScenarioFile('resources/scenarios/room1-isolated.yaml')
const namespace = namespaceOf(topology)
const ctx = { namespace, rooms: new Set(topology.rooms.map((r) => r.id)) }
const isolate: ChaosWindow = {
  kind: 'network',
  chaos: { action: 'isolate', target: 'room1' },
  startMs: 0,
  endMs: 5000
}

let standIn: ApiServerStandIn | undefined
afterEach(async () => {
  await standIn?.stop()
  standIn = undefined
})

async function deployed(chaos = { injectMs: 60, recoverMs: 80 }) {
  standIn = new ApiServerStandIn({ zones: topology.rooms.map((r) => r.id), autoReady: true, chaos })
  const api = new KubeHttp({ server: await standIn.start() })
  const clock = {
    now: () => Date.now(),
    sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms))
  }
  const deployment = new ClusterDeployment({
    api,
    engine: 'h/1',
    isEngineAlive: () => true,
    ...clock,
    pollMs: 10
  })
  const objects = kubernetesObjectFiles(topology).files.flatMap((f) => f.objects as KubeObject[])
  await deployment.deploy({
    runId: 'r1',
    namespace,
    objects,
    readyTimeoutMs: 2000,
    onProgress: () => {}
  })
  return { api, deployment, faults: new ChaosFaults({ api, engine: 'h/1', ...clock, pollMs: 10 }) }
}

describe('liveChaosObject', () => {
  it.each(SCENARIOS)(
    '%s: every fault as a standalone object passes the vendored 2.8.x schema',
    (file) => {
      const loaded = loadScenarioFile(`resources/scenarios/${file}`)
      const ns = namespaceOf(loaded.topology)
      const c = { namespace: ns, rooms: new Set(loaded.topology.rooms.map((r) => r.id)) }
      planTimeline(loaded.scenario, loaded.topology).windows.forEach((w, i) => {
        const o = liveChaosObject(c, w, liveChaosName('r1', i, w), 'r1')
        expect(check(o), `${o.kind}/${o.metadata.name}`).toEqual([])
        expect(o.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/)
      })
    }
  )

  it('refuses what the webhook would refuse, naming the field', () => {
    // Unreachable from a valid scenario (its schema refuses negative latencies): a last guard.
    const negative: ChaosWindow = {
      kind: 'network',
      chaos: {
        action: 'netem',
        from: 'room1',
        to: 'room2',
        direction: 'both',
        delay: { latencyMs: -5, jitterMs: 0 }
      },
      startMs: 0,
      endMs: 1000
    }
    expect(() => liveChaosObject(ctx, negative, 'x', 'r1')).toThrow(
      'Chaos Mesh would refuse netem-room1-room2: spec.delay.latency: "-5ms" is not a Go duration'
    )
  })
})

describe('ChaosFaults against the stand-in', { timeout: 30_000 }, () => {
  it('isolates room 1 until it is healed, timing both on the engine clock, labelled with the run', async () => {
    const { faults } = await deployed()
    const object = liveChaosObject(ctx, isolate, liveChaosName('r1', 0, isolate), 'r1')
    const injected = await faults.inject({ runId: 'r1', object, timeoutMs: 2000 })
    expect(injected.observedAt - injected.requestedAt).toBeGreaterThanOrEqual(60)
    expect(injected.boundMs).toBeLessThanOrEqual(injected.observedAt - injected.requestedAt)
    expect(injected.chaosMeshAt).toMatch(/^\d{4}-\d\d-\d\dT/)
    const stored = standIn!.all('NetworkChaos')[0]!
    expect(stored.metadata.labels?.['drstudio.io/run']).toBe('r1')
    expect(stored.spec).toMatchObject({ action: 'partition', direction: 'both' })
    const healed = await faults.heal({ object, timeoutMs: 2000 })
    expect(healed.observedAt - healed.requestedAt).toBeGreaterThanOrEqual(80)
    expect(standIn!.all('NetworkChaos')).toEqual([])
  })

  it("selects only the run's pods, in a namespace it shares", async () => {
    const { faults } = await deployed()
    // Someone else's pod in the namespace, in no room: `NotIn room1` alone would select it.
    standIn!.seed({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'theirs', namespace, labels: { app: 'x' } }
    })
    const object = liveChaosObject(ctx, isolate, liveChaosName('r1', 5, isolate), 'r1')
    expect(object.spec).toMatchObject({
      selector: { labelSelectors: { 'drstudio.io/room': 'room1', 'drstudio.io/run': 'r1' } },
      target: { selector: { labelSelectors: { 'drstudio.io/run': 'r1' } } }
    })
    await faults.inject({ runId: 'r1', object, timeoutMs: 2000 })
    const records = (
      standIn!.all('NetworkChaos')[0]!.status as {
        experiment: { containerRecords: { id: string }[] }
      }
    ).experiment.containerRecords.map((r) => r.id)
    expect(records.length).toBeGreaterThan(0)
    expect(records.some((id) => id.endsWith('/theirs'))).toBe(false)
  })

  it('a stopped wait heals the fault before it returns', async () => {
    const { faults } = await deployed({ injectMs: 60_000, recoverMs: 30 })
    const object = liveChaosObject(ctx, isolate, liveChaosName('r1', 6, isolate), 'r1')
    const stop = new AbortController()
    setTimeout(() => stop.abort(), 50)
    await expect(
      faults.inject({ runId: 'r1', object, timeoutMs: 5000, signal: stop.signal })
    ).rejects.toThrow(/: the run was stopped; deleted it$/)
    // Healed means gone: the finalizer's delay was waited out.
    expect(standIn!.all('NetworkChaos')).toEqual([])
  })

  it('deletes an object that selects no pod and says so', async () => {
    const { faults } = await deployed()
    const ghost: ChaosWindow = {
      kind: 'pod-failure',
      nodes: ['no-such-node'],
      startMs: 0,
      endMs: 1000
    }
    const object = liveChaosObject(ctx, ghost, liveChaosName('r1', 1, ghost), 'r1')
    await expect(faults.inject({ runId: 'r1', object, timeoutMs: 300 })).rejects.toThrow(
      /^PodChaos\/drs-r1-1-down-no-such-node in namespace drs-[\w-]+: not in effect after 300 ms \(Selected=False, AllInjected=False, no pod selected yet\); is Chaos Mesh running, do the run's pods match, and is netem in the nodes' kernels\?; deleted it$/
    )
    await expect.poll(() => standIn!.all('PodChaos')).toEqual([])
  })

  it('gives up on an object never injected, deletes it and names the likely cause', async () => {
    const { faults } = await deployed({ injectMs: 60_000, recoverMs: 10 })
    const object = liveChaosObject(ctx, isolate, liveChaosName('r1', 2, isolate), 'r1')
    await expect(faults.inject({ runId: 'r1', object, timeoutMs: 150 })).rejects.toThrow(
      /not in effect after 150 ms \(Selected=False, AllInjected=False, no pod selected yet\); is Chaos Mesh running, do the run's pods match, and is netem in the nodes' kernels\?; deleted it$/
    )
    await expect.poll(() => standIn!.all('NetworkChaos')).toEqual([])
  })

  it("names the finalizer when recovery outlasts the heal's deadline", async () => {
    const { faults } = await deployed({ injectMs: 10, recoverMs: 60_000 })
    const object = liveChaosObject(ctx, isolate, liveChaosName('r1', 3, isolate), 'r1')
    await faults.inject({ runId: 'r1', object, timeoutMs: 2000 })
    await expect(faults.heal({ object, timeoutMs: 100 })).rejects.toThrow(
      /still there 100 ms after its deletion: Chaos Mesh has not recovered every pod \(finalizers \["chaos-mesh\/records"\]\)/
    )
  })

  it("teardown deletes the run's faults first, and copes with a cluster without Chaos Mesh", async () => {
    const { faults, deployment } = await deployed({ injectMs: 10, recoverMs: 10 })
    const object = liveChaosObject(ctx, isolate, liveChaosName('r1', 4, isolate), 'r1')
    await faults.inject({ runId: 'r1', object, timeoutMs: 2000 })
    const deletes: string[] = []
    const before = standIn!.requests.length
    await deployment.teardown({ runId: 'r1', namespace, timeoutMs: 2000, onProgress: () => {} })
    for (const r of standIn!.requests.slice(before)) if (r.method === 'DELETE') deletes.push(r.path)
    expect(deletes[0]).toMatch(/\/networkchaos\/drs-r1-4-isolate-room1$/)
    await standIn!.stop()
    // Without the chaos kinds (404 on their lists) a teardown still removes everything else.
    const plain = await deployed(undefined as never)
    const { left } = await plain.deployment.teardown({
      runId: 'r1',
      namespace,
      timeoutMs: 2000,
      onProgress: () => {}
    })
    expect(left).toEqual([])
    expect(standIn!.all('StatefulSet')).toEqual([])
  })
})

describe('injectionState', () => {
  it('reads injected, pending (with what it shows: no pod yet, the latest failed apply of a record) and gone', () => {
    const o = (status: unknown): KubeObject => ({
      apiVersion: 'x',
      kind: 'NetworkChaos',
      metadata: { name: 'n' },
      status: status as Record<string, unknown>
    })
    expect(injectionState(o({ conditions: [{ type: 'AllInjected', status: 'True' }] }))).toEqual({
      kind: 'injected'
    })
    expect(
      injectionState(
        o({
          conditions: [
            { type: 'AllInjected', status: 'False' },
            { type: 'Selected', status: 'True' }
          ]
        })
      )
    ).toEqual({
      kind: 'pending',
      detail: 'AllInjected=False, Selected=True, no pod selected yet'
    })
    expect(
      injectionState(
        o({
          experiment: {
            containerRecords: [
              {
                id: 'ns/p',
                events: [
                  {
                    type: 'Failed',
                    operation: 'Apply',
                    timestamp: 't1',
                    message: 'Specified qdisc not found'
                  }
                ]
              },
              {
                id: 'ns/q',
                // Failed once, then applied: Chaos Mesh retried it.
                events: [
                  { type: 'Failed', operation: 'Apply', timestamp: 't1', message: 'busy' },
                  { type: 'Succeeded', operation: 'Apply', timestamp: 't2' }
                ]
              }
            ]
          },
          conditions: [{ type: 'AllInjected', status: 'False' }]
        })
      )
    ).toEqual({
      kind: 'pending',
      detail: 'AllInjected=False, ns/p: Specified qdisc not found'
    })
    expect(injectionState(null)).toEqual({ kind: 'gone' })
  })
})
