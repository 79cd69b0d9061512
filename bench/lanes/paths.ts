// Path-for-path healthy throughput and tail latency: each client measured the way runs measure
// it (in its worker, open-loop schedule, latency from each send's scheduled time), on the same
// path as its counterpart. Our remoting producer and the stock Java producer both go straight to
// room 1's broker; the gRPC lane and rocketmq-client-nodejs both go through room 1's zone-pinned
// proxy. The topic lives on room 1's broker only, so no client can take another path.
// Hygiene: every lane is warmed up (unrecorded sends, then a discarded round) before anything is
// measured, and rounds are interleaved in a balanced order (round-order.ts) with a second between
// rounds, so a slow minute of the machine, or one lane's aftermath, lands on every lane alike.
import type { WireRow } from '../../main/services/worker-wire/protocol'
import type { ClientSpec } from '../../main/services/worker-wire/protocol'
import type { WorkerFactory } from '../../main/services/workers/client-fleet'
import { ClientFleet } from '../../main/services/workers/client-fleet'
import { RemotingRpc } from '../../main/services/remoting/remoting-rpc'
import type { Sandbox } from '../../main/services/sandbox/sandbox'
import { pause } from '../../main/services/clients/room-aware/ports'
import type { SendRow } from './stats'
import { rankPercentile } from './stats'
import { roundOrder } from './round-order'

export interface PathClient {
  id: string
  label: string
  /** Which comparison it belongs to. */
  path: 'direct to broker-1' | 'through proxy-1'
  spec: ClientSpec
}

export interface RoundFigures {
  p50Ms: number | null
  p99Ms: number | null
  maxMs: number | null
  /** Where the wait was spent, p99: before the send began (schedule/event loop), and after. */
  lagP99Ms: number | null
  serviceP99Ms: number | null
  acked: number
  failed: number
}

export interface PathResult {
  id: string
  label: string
  path: PathClient['path']
  fixed: RoundFigures[]
  /** All fixed-rate rounds pooled (each round's sends are a sample of the same process). */
  fixedPooled: RoundFigures
  max: { msgPerSec: number; p50Ms: number | null; p99Ms: number | null }[]
}

export interface PathOptions {
  sandbox: Sandbox
  workers: WorkerFactory
  rounds: number
  rate: number
  roundMs: number
  maxInflight: number
  log: (m: string) => void
}

const TAG = 'dr'
const ROUND_GAP_MS = 1000

async function topicOnBroker1(sandbox: Sandbox, topic: string): Promise<void> {
  const broker = sandbox.status().nodes.find((n) => n.nodeId === 'broker-1')!
  const nameServers = sandbox.status().nodes.filter((n) => n.kind === 'nameserver' && n.address)
  const admin = new RemotingRpc({ connectTimeoutMs: 1000, requestTimeoutMs: 3000 })
  try {
    await admin.updateAndCreateTopic(
      broker.address!,
      { topic, brokerName: 'broker-a', readQueueNums: 4, writeQueueNums: 4 },
      { timeoutMs: 3000 }
    )
    const deadline = Date.now() + 30_000
    for (;;) {
      const routed = await Promise.all(
        nameServers.map((ns) =>
          admin
            .getRouteInfoByTopic(ns.address!, topic, { timeoutMs: 2000 })
            .then((r) => r.brokerDatas.some((b) => b.brokerName === 'broker-a'))
            .catch(() => false)
        )
      )
      if (routed.every(Boolean)) return
      if (Date.now() > deadline) throw new Error(`topic ${topic} not routed by every name server`)
      await pause(250)
    }
  } finally {
    admin.close()
  }
}

/** The four clients, all in room 1, on a topic only broker-1 has. */
export function pathClients(sandbox: Sandbox, topic: string): PathClient[] {
  const nodes = sandbox.status().nodes
  const managementNodes = nodes
    .filter((n) => n.kind === 'management' && n.address)
    .map((n) => ({ id: n.nodeId, room: n.room, url: `http://${n.address}` }))
    .sort((a, b) => Number(b.room === 'room1') - Number(a.room === 'room1'))
  const proxy1 = nodes.find((n) => n.nodeId === 'proxy-1')?.address
  if (!proxy1) throw new Error('the path comparison needs proxy-1 (two-rooms-proxies topology)')
  const base = (id: string, lane: ClientSpec['lane']): ClientSpec => ({
    id,
    role: 'producer',
    room: 'room1',
    lane,
    topic,
    group: `${id}-group`,
    roomOrder: ['room1', 'room2'],
    managementNodes,
    nameServers: [],
    tag: TAG,
    tuning: { sendTimeoutMs: 3000, requestTimeoutMs: 400, probeIntervalMs: 200 },
    brokerRooms: { 'broker-a': 'room1', 'broker-b': 'room2' }
  })
  return [
    {
      id: 'path-remoting',
      label: 'remoting (ours)',
      path: 'direct to broker-1',
      spec: base('path-remoting', 'remoting')
    },
    {
      id: 'path-java',
      label: 'Java DefaultMQProducer 5.3.3 (stock)',
      path: 'direct to broker-1',
      spec: base('path-java', 'java')
    },
    {
      id: 'path-grpc',
      label: 'grpc lane (ours, on rocketmq-client-nodejs)',
      path: 'through proxy-1',
      spec: base('path-grpc', 'grpc')
    },
    {
      id: 'path-official',
      label: 'rocketmq-client-nodejs 1.0.8 (stock)',
      path: 'through proxy-1',
      spec: { ...base('path-official', 'baseline'), extra: { endpoints: proxy1 } }
    }
  ]
}

function figures(rows: SendRow[]): RoundFigures {
  const acked = rows.filter((r) => r.status === 'acked')
  const wait = acked.map((r) => r.endedAt - (r.scheduledAt ?? r.startedAt))
  const r1 = (x: number | null): number | null => (x === null ? null : Math.round(x * 10) / 10)
  return {
    p50Ms: r1(rankPercentile(wait, 50)),
    p99Ms: r1(rankPercentile(wait, 99)),
    maxMs: r1(wait.length ? Math.max(...wait) : null),
    lagP99Ms: r1(
      rankPercentile(
        acked.map((r) => r.startedAt - (r.scheduledAt ?? r.startedAt)),
        99
      )
    ),
    serviceP99Ms: r1(
      rankPercentile(
        acked.map((r) => r.endedAt - r.startedAt),
        99
      )
    ),
    acked: acked.length,
    failed: rows.length - acked.length
  }
}

/** Runs one lane's schedule for `ms` and returns its send rows. */
async function round(
  fleet: ClientFleet,
  rows: WireRow[],
  id: string,
  rate: number,
  ms: number,
  maxInflight: number
): Promise<SendRow[]> {
  const from = rows.length
  const t0 = Date.now() + 50
  await fleet.startWorkload({
    t0,
    end: t0 + ms,
    producers: [{ id, rate, messageSize: 256, offsetMs: 0 }],
    maxInflight,
    tag: TAG
  })
  await pause(t0 + ms - Date.now() + 20)
  await fleet.stopWorkload(5000)
  return rows
    .slice(from)
    .filter((r): r is Extract<WireRow, { k: 's' }> => r.k === 's' && r.clientId === id)
    .map((r) => ({
      key: r.key,
      clientId: r.clientId,
      clientRoom: r.clientRoom,
      brokerRoom: r.brokerRoom,
      scheduledAt: r.scheduledAt ?? null,
      startedAt: r.startedAt,
      endedAt: r.endedAt,
      status: r.status
    }))
}

/** Warm-up, then interleaved fixed-rate and max-rate rounds per client. */
export async function measurePaths(opts: PathOptions): Promise<PathResult[]> {
  const topic = `bench-paths-${Date.now()}`
  await topicOnBroker1(opts.sandbox, topic)
  const clients = pathClients(opts.sandbox, topic)
  const fleet = new ClientFleet(opts.workers)
  const rows: WireRow[] = []
  fleet.on('rows', (r) => rows.push(...r))
  const results = new Map<string, PathResult>(
    clients.map((c) => [
      c.id,
      { id: c.id, label: c.label, path: c.path, fixed: [], fixedPooled: figures([]), max: [] }
    ])
  )
  const pooled = new Map<string, SendRow[]>(clients.map((c) => [c.id, []]))
  try {
    for (const c of clients) await fleet.create(c.spec)
    await Promise.all(clients.map((c) => fleet.start(c.id, 60_000)))
    const warmed = await fleet.warmup(
      clients.map((c) => c.id),
      { timeoutMs: 60_000, fastMs: 50, streak: 100, tag: 'warmup' }
    )
    opts.log(`paths: warmed ${JSON.stringify(warmed)}`)
    // A discarded round per client at the measured rate, then one at max rate: JITs, connection
    // pools and the brokers' page cache are warm for every client before the first measured round.
    for (const c of clients) {
      await round(fleet, rows, c.id, opts.rate, 2000, 5000)
      await round(fleet, rows, c.id, 20_000, 1000, opts.maxInflight)
    }
    for (let r = 0; r < opts.rounds; r++) {
      const order = roundOrder(clients.length, r).map((i) => clients[i]!)
      for (const c of order) {
        // A second between rounds, so the previous lane's aftermath lands on no one.
        await pause(ROUND_GAP_MS)
        const fixed = await round(fleet, rows, c.id, opts.rate, opts.roundMs, 5000)
        pooled.get(c.id)!.push(...fixed)
        const f = figures(fixed)
        results.get(c.id)!.fixed.push(f)
        opts.log(`paths round ${r + 1} ${c.id} fixed ${opts.rate}/s: ${JSON.stringify(f)}`)
      }
      for (const c of order) {
        await pause(ROUND_GAP_MS)
        const max = await round(fleet, rows, c.id, 20_000, opts.roundMs, opts.maxInflight)
        const f = figures(max.map((s) => ({ ...s, scheduledAt: null })))
        const m = {
          msgPerSec: Math.round(f.acked / (opts.roundMs / 1000)),
          p50Ms: f.p50Ms,
          p99Ms: f.p99Ms
        }
        results.get(c.id)!.max.push(m)
        opts.log(`paths round ${r + 1} ${c.id} max: ${JSON.stringify(m)}`)
      }
      rows.length = 0
    }
  } finally {
    await fleet.close()
  }
  for (const [id, r] of results) r.fixedPooled = figures(pooled.get(id)!)
  return [...results.values()]
}
