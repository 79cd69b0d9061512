import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Topology } from '../../common/topology'
import { isAttached, listNodes, parseTopologyText, validateTopology } from '../../common/topology'
import { runDiscoverCommand } from '../../main/cli/discover-command'
import type { ConnectRequest, ObservedChange } from '../../main/services/attach'
import {
  AttachedProber,
  connectToCluster,
  probeTargets,
  remotingDiscoveryPort,
  remotingProbePort
} from '../../main/services/attach'
import { RemotingRpc } from '../../main/services/remoting'
import {
  createTopic,
  HAND_CLUSTER_NAME,
  startHandCluster,
  waitForRegistration,
  type HandCluster
} from './helpers/hand-cluster'
import {
  assertJars,
  freePort,
  makeRunDir,
  removeRunDir,
  runningJvmPids,
  stopAllJvms
} from './helpers/jvm'

// Issue 11: DR Studio reads a cluster it did not start. The test is the operator here: it starts
// two name servers and two brokers by hand (plain config files, a static namesrvAddr, no sandbox),
// once with ROCKETMQ_ZONE per room and once without, and creates the topics itself.

const PAYMENTS = 'payments'
const ORDERS_R1 = 'orders-r1'
const MISSING = 'payments-r1'

let root: string
const rpc = new RemotingRpc()

beforeAll(async () => {
  assertJars()
  root = await makeRunDir('attach')
})

afterAll(async () => {
  rpc.close()
  await stopAllJvms()
  expect(runningJvmPids()).toEqual([])
  if (root) await removeRunDir(root)
})

function nsMap(cluster: HandCluster): string {
  return `${cluster.nameServers[0].address}: room1\n${cluster.nameServers[1].address}: room2\n`
}

function connect(cluster: HandCluster, extra: Partial<ConnectRequest>, deadNs?: string) {
  return connectToCluster(
    {
      namesrv: [...cluster.nameServers.map((n) => n.address), ...(deadNs ? [deadNs] : [])],
      clients: false,
      createTopic: false,
      timeoutMs: 2000,
      ...extra
    },
    remotingDiscoveryPort(rpc)
  )
}

/** The rooms as `room → [kind id host:port]`, for one readable assertion. */
function layout(t: Topology): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (const n of listNodes(t)) {
    const spec = n.spec as { host?: string; port?: number }
    ;(out[n.room] ??= []).push(`${n.kind} ${n.id} ${spec.host}:${spec.port}`)
  }
  return out
}

function expectedLayout(c: HandCluster): Record<string, string[]> {
  return {
    room1: [
      `nameserver ns-1 ${c.nameServers[0].address}`,
      `broker broker-a ${c.brokers[0].address}`
    ],
    room2: [
      `nameserver ns-2 ${c.nameServers[1].address}`,
      `broker broker-b ${c.brokers[1].address}`
    ]
  }
}

async function expectProberSeesKill(cluster: HandCluster, topology: Topology): Promise<void> {
  const probeRpc = new RemotingRpc({ connectTimeoutMs: 1000 })
  const prober = new AttachedProber({
    targets: probeTargets(topology),
    port: remotingProbePort(probeRpc),
    intervalMs: 60_000,
    timeoutMs: 2000,
    slowMs: 1500
  })
  const changes: ObservedChange[] = []
  prober.on('change', (c) => changes.push(c))
  try {
    await prober.probeOnce()
    expect(prober.states()).toEqual({
      'ns-1': 'up',
      'broker-a': 'up',
      'ns-2': 'up',
      'broker-b': 'up'
    })
    await cluster.brokers[1].stop('SIGKILL')
    await prober.probeOnce()
    expect(changes.slice(4)).toEqual([
      expect.objectContaining({
        nodeId: 'broker-b',
        from: 'up',
        to: 'down',
        address: cluster.brokers[1].address,
        reason: expect.stringMatching(/closed|cannot connect|ECONNREFUSED|ECONNRESET/)
      })
    ])
    expect(prober.states()['broker-a']).toBe('up')
  } finally {
    prober.stop()
    probeRpc.close()
  }
}

describe('attach: a hand-started two-room cluster with ROCKETMQ_ZONE', () => {
  let cluster: HandCluster
  let dead: string

  beforeAll(async () => {
    cluster = await startHandCluster(join(root, 'zoned'), { zones: true })
    await waitForRegistration(cluster, rpc)
    await createTopic(cluster, rpc, PAYMENTS, ['broker-a', 'broker-b'])
    await createTopic(cluster, rpc, ORDERS_R1, ['broker-a'], 8)
    dead = `127.0.0.1:${await freePort()}`
  })

  it('puts brokers in rooms by zone and lists the name servers it cannot place, with the fix', async () => {
    const r = await connect(cluster, {})
    expect(r.ok).toBe(false)
    expect(r.placement.mode).toBe('zone')
    expect(
      Object.values(r.placement.brokers)
        .map((p) => p.by)
        .sort()
    ).toEqual(['zone room1', 'zone room2'])
    // Both rooms run on 127.0.0.1, so the host says nothing about a name server's room.
    expect(r.problems).toEqual(
      cluster.nameServers.map((ns) => ({
        code: 'namesrv-unplaced',
        subject: `name server ${ns.address}`,
        message: 'its host 127.0.0.1 also runs brokers of room1 and room2',
        fix: `add "${ns.address}: <room>" to the rooms map (--rooms-map FILE), or use --namesrv-rooms-by-host REGEX`
      }))
    )
  })

  it('discovers rooms, brokers, addresses and topics; says which name server did not answer', async () => {
    const r = await connect(
      cluster,
      { mode: 'zone', roomMap: { text: nsMap(cluster), source: 'rooms.yaml' } },
      dead
    )
    expect(r.problems).toEqual([])
    const t = r.topology!
    expect(validateTopology(t).ok).toBe(true)
    expect(layout(t)).toEqual(expectedLayout(cluster))
    expect(listNodes(t).every(isAttached)).toBe(true)
    expect(t.rooms[0]?.brokers[0]).toMatchObject({
      cluster: HAND_CLUSTER_NAME,
      brokerName: 'broker-a',
      role: 'master',
      brokerId: 0
    })
    expect(t.settings.namesrvDiscovery).toBe('static')
    expect(t.source).toMatchObject({
      kind: 'discovered',
      rooms: 'zone',
      createTopic: false,
      namesrv: cluster.namesrvAddr
    })
    expect(t.topics).toEqual([
      { name: ORDERS_R1, queues: 8 },
      { name: PAYMENTS, queues: 4 }
    ])
    expect(r.discovery.systemTopicsSkipped).toBeGreaterThan(0)
    expect(r.discovery.brokerSets.map((s) => [s.brokerName, s.zone])).toEqual([
      ['broker-a', 'room1'],
      ['broker-b', 'room2']
    ])
    const answers = r.discovery.nameServers.map((n) => [n.address, n.ok])
    expect(answers).toEqual([
      [cluster.nameServers[0].address, true],
      [cluster.nameServers[1].address, true],
      [dead, false]
    ])
    expect(r.discovery.nameServers[2]?.error).toMatch(/cannot connect to 127\.0\.0\.1:\d+/)
    expect(r.warnings.some((w) => w.startsWith(`name server ${dead} did not answer`))).toBe(true)
  })

  it('checks the run topic: fine, missing in room2, or missing with both fixes', async () => {
    const ok = await connect(cluster, {
      mode: 'zone',
      roomMap: { text: nsMap(cluster), source: 'm' },
      topic: PAYMENTS
    })
    expect(ok.topic).toMatchObject({
      ok: true,
      rooms: [
        { room: 'room1', writeQueues: 4 },
        { room: 'room2', writeQueues: 4 }
      ]
    })

    const partial = await connect(cluster, {
      mode: 'zone',
      roomMap: { text: nsMap(cluster), source: 'm' },
      topic: ORDERS_R1
    })
    expect(partial.topic).toMatchObject({
      ok: false,
      missing: false,
      roomsWithoutQueues: ['room2'],
      fixes: [
        `create its queues yourself: mqadmin updateTopic -n '${cluster.namesrvAddr}' -b ${cluster.brokers[1].address} -t ${ORDERS_R1} -r 8 -w 8`,
        'or let DR Studio create it on this cluster: pass --create-topic'
      ]
    })

    const missing = await connect(cluster, {
      mode: 'zone',
      roomMap: { text: nsMap(cluster), source: 'm' },
      topic: MISSING,
      clients: true
    })
    expect(missing.ok).toBe(true)
    expect(missing.topic).toEqual({
      ok: false,
      topic: MISSING,
      missing: true,
      roomsWithoutQueues: ['room1', 'room2'],
      rooms: [
        { room: 'room1', brokers: [], writeQueues: 0 },
        { room: 'room2', brokers: [], writeQueues: 0 }
      ],
      message: `topic "${MISSING}" does not exist on this cluster (name servers ${cluster.namesrvAddr})`,
      fixes: [
        `create it yourself: mqadmin updateTopic -n '${cluster.namesrvAddr}' -c ${HAND_CLUSTER_NAME} -t ${MISSING} -r 4 -w 4`,
        'or let DR Studio create it on this cluster: pass --create-topic'
      ],
      notes: []
    })
    // DR Studio only read: the missing topic is still missing.
    await expect(
      rpc.getRouteInfoByTopic(cluster.nameServers[0].address, MISSING)
    ).rejects.toMatchObject({ responseCode: 17 })
  })

  it('drstudio discover writes the topology file', async () => {
    const map = join(root, 'zoned-rooms.yaml')
    writeFileSync(map, nsMap(cluster))
    const out = join(root, 'zoned-topology.json')
    let stderr = ''
    const code = await runDiscoverCommand(
      {
        namesrv: cluster.namesrvAddr,
        rooms: 'zone',
        roomsMap: map,
        out,
        topic: PAYMENTS,
        clients: true
      },
      { stdout: { write: () => true }, stderr: { write: (s: string) => (stderr += s) } }
    )
    expect(code).toBe(0)
    expect(stderr).toContain('topic check: topic "payments": room1 4 queue(s), room2 4 queue(s)')
    const parsed = parseTopologyText(readFileSync(out, 'utf8'))
    expect(parsed.ok).toBe(true)
    if (!parsed.ok) return
    expect(layout(parsed.topology)).toEqual({
      room1: [
        ...expectedLayout(cluster).room1!,
        'producer producer-room1 undefined:undefined',
        'consumer consumer-room1 undefined:undefined'
      ],
      room2: [
        ...expectedLayout(cluster).room2!,
        'producer producer-room2 undefined:undefined',
        'consumer consumer-room2 undefined:undefined'
      ]
    })
  })

  it('re-probes every attached node with real requests and sees a broker killed out of band', async () => {
    const r = await connect(cluster, {
      mode: 'zone',
      roomMap: { text: nsMap(cluster), source: 'm' }
    })
    await expectProberSeesKill(cluster, r.topology!)
  })
})

describe('attach: the same cluster without zones, rooms from a map', () => {
  let cluster: HandCluster

  beforeAll(async () => {
    cluster = await startHandCluster(join(root, 'bare'), { zones: false })
    await waitForRegistration(cluster, rpc)
    await createTopic(cluster, rpc, PAYMENTS, ['broker-a', 'broker-b'])
  })

  it('by zone lists every broker without a zone with the fixes, and builds nothing', async () => {
    const r = await connect(cluster, {})
    expect(r.topology).toBeNull()
    const brokers = r.problems.filter((p) => p.code === 'broker-unplaced')
    expect(brokers.map((p) => [p.subject, p.message])).toEqual([
      [
        `broker-a brokerId 0 (${cluster.brokers[0].address})`,
        'broker-a has no zone (it was started without ROCKETMQ_ZONE)'
      ],
      [
        `broker-b brokerId 0 (${cluster.brokers[1].address})`,
        'broker-b has no zone (it was started without ROCKETMQ_ZONE)'
      ]
    ])
    expect(brokers[0]?.fix).toBe(
      `restart it with ROCKETMQ_ZONE=<room>, or add "broker-a: <room>" (or "${cluster.brokers[0].address}: <room>" for this node only) ` +
        'to the rooms map (--rooms-map FILE), or use --rooms-by-name REGEX'
    )
  })

  it('places every node from a YAML room map (broker names and name-server addresses)', async () => {
    const map = `room1:\n  - broker-a\n  - "${cluster.nameServers[0].address}"\nroom2:\n  - broker-b\n  - "${cluster.nameServers[1].address}"\n`
    const r = await connect(cluster, {
      roomMap: { text: map, source: 'rooms.yaml' },
      topic: PAYMENTS
    })
    expect(r.problems).toEqual([])
    expect(r.placement.mode).toBe('map')
    expect(r.discovery.brokerSets.map((s) => s.zone)).toEqual([undefined, undefined])
    const t = r.topology!
    expect(layout(t)).toEqual(expectedLayout(cluster))
    expect(t.source?.rooms).toBe('map')
    expect(r.topic?.ok).toBe(true)
  })

  it('places brokers by a name pattern', async () => {
    const r = await connect(cluster, {
      brokerPattern: '^broker-(a|b)$',
      roomMap: { text: nsMap(cluster).replace(/room1/, 'a').replace(/room2/, 'b'), source: 'm' }
    })
    expect(r.problems).toEqual([])
    expect(r.topology?.rooms.map((x) => [x.id, x.brokers.map((b) => b.id)])).toEqual([
      ['a', ['broker-a']],
      ['b', ['broker-b']]
    ])
  })

  it('re-probes every attached node and sees a broker killed out of band', async () => {
    const map = `room1: [broker-a, "${cluster.nameServers[0].address}"]\nroom2: [broker-b, "${cluster.nameServers[1].address}"]\n`
    const r = await connect(cluster, { roomMap: { text: map, source: 'm' } })
    await expectProberSeesKill(cluster, r.topology!)
  })
})
