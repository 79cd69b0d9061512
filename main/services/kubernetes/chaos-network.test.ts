import { afterEach, describe, expect, it } from 'vitest'
import type { NetworkFaultInput } from '../../../common/scenario/schema'
import { networkFaultSchema } from '../../../common/scenario/schema'
import type { PairBase } from '../export/chaos-mesh/link-merge'
import { pairKey } from '../export/chaos-mesh/link-merge'
import { ChaosFaults } from './chaos-faults'
import type { ChaosEvent } from './chaos-network'
import { ChaosNetwork } from './chaos-network'
import { ApiServerStandIn } from './fixtures/api-server-stand-in'
import { KubeHttp } from './kube-http'

// Live network faults against the API-server STAND-IN and its toy Chaos Mesh controller: proves
// which objects exist after each fault and heal, their order (the old object gone before the new
// one on the same pods), timings and refusals; not Chaos Mesh's injection into real pods.

const NAMESPACE = 'drs-net'
let standIn: ApiServerStandIn | undefined
afterEach(async () => {
  await standIn?.stop()
  standIn = undefined
})

async function network(
  base: ReadonlyMap<string, PairBase> = new Map(),
  chaos = { injectMs: 30, recoverMs: 40 },
  timeoutMs = 2000
) {
  standIn = new ApiServerStandIn({ zones: ['room1', 'room2'], chaos })
  const api = new KubeHttp({ server: await standIn.start() })
  standIn.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } })
  for (const room of ['room1', 'room2']) {
    const labels = { 'drstudio.io/room': room, 'drstudio.io/run': 'r7' }
    standIn.seed({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `broker-${room}-0`, namespace: NAMESPACE, labels }
    })
  }
  const clock = {
    now: () => Date.now(),
    sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms))
  }
  const events: ChaosEvent[] = []
  const net = new ChaosNetwork({
    faults: new ChaosFaults({ api, engine: 'h/1', ...clock, pollMs: 10 }),
    selector: { namespace: NAMESPACE, rooms: new Set(['room1', 'room2']) },
    runId: 'r7',
    base,
    serverNodes: new Set(['broker-a', 'ns-1']),
    timeoutMs,
    now: clock.now
  })
  net.listen((e) => events.push(e))
  const live = () =>
    standIn!
      .all('NetworkChaos')
      .filter((o) => !o.metadata.deletionTimestamp)
      .map((o) => {
        const spec = o.spec as {
          action: string
          delay?: { latency: string }
          loss?: { loss: string }
        }
        return [spec.action, spec.delay?.latency, spec.loss?.loss].filter(Boolean).join(' ')
      })
  return { net, events, live }
}

/** As the run hands it over: parsed, defaults filled (direction both, no jitter). */
const apply = (net: ChaosNetwork, fault: NetworkFaultInput) =>
  net.apply(networkFaultSchema.parse(fault))

describe('ChaosNetwork: a run’s network faults as Chaos Mesh objects (stand-in)', () => {
  it('keeps one object per room pair with the combined state, replacing it only once the old one is gone', async () => {
    const { net, events, live } = await network()
    await apply(net, { action: 'delay', target: 'room1', peer: 'room2', latencyMs: 20 })
    expect(live()).toEqual(['delay 20ms'])
    // A loss on the same pair: one object with both (netem), never two on the same pods.
    await apply(net, { action: 'loss', target: 'room1', peer: 'room2', lossPct: 5 })
    expect(live()).toEqual(['netem 20ms 5'])
    expect(net.faults().map((f) => f.fault.action)).toEqual(['delay', 'loss'])
    // The old object healed (gone) before the new one was created.
    const order = events.map((e) => `${e.phase} ${e.label}`)
    expect(order).toEqual([
      'injected netem-room1-room2',
      'healed netem-room1-room2',
      'injected netem-room1-room2'
    ])
    for (const e of events) {
      expect(e.timing.observedAt).toBeGreaterThanOrEqual(e.timing.requestedAt)
      expect(e.timing.boundMs).toBeGreaterThanOrEqual(0)
    }
    // Healing the loss alone leaves the delay.
    await apply(net, { action: 'heal', target: 'room1', peer: 'room2' })
    expect(live()).toEqual([])
    expect(net.faults()).toEqual([])
  })

  it('keeps the configured links in place across faults and heals, and removes them at close', async () => {
    const d = { blocked: false, latencyMs: 20, jitterMs: 0, lossPct: 0 }
    const { net, live } = await network(new Map([[pairKey('room1', 'room2'), { ab: d, ba: d }]]))
    await net.start()
    expect(live()).toEqual(['delay 20ms'])
    await apply(net, { action: 'isolate', target: 'room1' })
    // An isolated room's shaping is dropped: its packets are cut anyway.
    expect(live()).toEqual(['partition'])
    await apply(net, { action: 'heal' })
    expect(live()).toEqual(['delay 20ms'])
    await net.close()
    expect(standIn!.all('NetworkChaos')).toEqual([])
  })

  it('a fault Chaos Mesh does not put in effect leaves the faults as they were, its object deleted', async () => {
    const { net, live } = await network(new Map(), { injectMs: 60_000, recoverMs: 10 }, 150)
    await expect(apply(net, { action: 'isolate', target: 'room1' })).rejects.toThrow(
      /not in effect after 150 ms/
    )
    expect(net.faults()).toEqual([])
    expect(live()).toEqual([])
  })

  it('refuses a client or an unknown id as an end, before anything is created', async () => {
    const { net } = await network()
    await expect(apply(net, { action: 'isolate', target: 'producer-1' })).rejects.toThrow(
      /"producer-1" is neither a room nor a server node: on Kubernetes a network fault names a room \(room1, room2\) or a server node/
    )
    expect(standIn!.all('NetworkChaos')).toEqual([])
    expect(net.faults()).toEqual([])
  })
})
