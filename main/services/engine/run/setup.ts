import { checkTopic, formatTopicCheck } from '../../attach/topic-check'
import type { NameServerRoute } from '../../attach/route-agreement'
import { decideTopicRoute } from '../../attach/route-agreement'
import type { QueueData } from '../../remoting/types'
import { ResponseCode } from '../../remoting/codes'
import { RemoteError } from '../../remoting/errors'
import type { ClusterNode } from './cluster-port'
import { restoreAction } from './cluster-port'
import type { ClientPlan } from '../../../../common/scenario/client-plan'
import { brokerGroupRooms, topicsOf } from '../../../../common/topology/model'
import { laneRequestTimeoutMs } from '../../../../common/topology/lanes'
import type { Topology } from '../../../../common/topology/schema'
import type { ClientSpec } from '../../worker-wire/protocol'
import type { RunContext, RunEndpoints } from './run-context'
import { pause } from './run-context'
import { prepareFifoGroups } from './fifo-groups'
import type { MasterBroker } from './every-master'
import { createOnEveryMaster } from './every-master'

/** Workload messages carry this tag; warm-up messages carry another, which consumers never see. */
export const WORKLOAD_TAG = 'dr'
export const WARMUP_TAG = 'warmup'

/**
 * States in which a node serves: ours when up, an operator's while it answers. A controller-mode
 * replica whose group is electing or syncing answers too (topics must reach it).
 */
const SERVING = new Set(['up', 'electing', 'syncing', 'attached', 'slow'])
export const isServing = (n: ClusterNode): boolean => SERVING.has(n.state) && !!n.address

/**
 * What a restore waits out. `ready` (before a workload): no node booting and every controller-mode
 * group ready, so clients start on a settled cluster. `answering` (before the drain): every node's
 * JVM answers; a replica that rejoins its SyncStateSet 20-30 s later serves reads meanwhile, and
 * the drain only needs the messages it stored to be readable.
 */
export type RestoreWait = 'ready' | 'answering'

/** Node states each wait sits out (sandbox states; an operator's nodes are never in them). */
const NOT_YET: Record<RestoreWait, ReadonlySet<string>> = {
  ready: new Set(['starting', 'electing', 'syncing']),
  answering: new Set(['starting'])
}

/** Brings paused nodes back and starts stopped or killed ones; returns problems as notes. */
export async function restoreNodes(
  ctx: RunContext,
  wait: RestoreWait = 'ready'
): Promise<string[]> {
  const { cluster } = ctx
  const notes: string[] = []
  // Links first: a node restarted behind a cut would fail to register and look broken.
  if (cluster.applyNetworkFault && (cluster.network?.().faults.length ?? 0) > 0) {
    await cluster.applyNetworkFault({ action: 'heal' }).catch((e: Error) => {
      notes.push(`could not heal the network: ${e.message}`)
    })
  }
  // A node still booting from an earlier restart (a proxy takes 30-60 s on a busy host) is not up
  // yet: clients started now would pick another room and count as cross-room while healthy.
  await waitOut(ctx, NOT_YET[wait], notes)
  let acted = false
  await Promise.all(
    cluster.status().nodes.map(async (n) => {
      // An operator's node is brought back only from what DR Studio did to it.
      if (n.attached && !n.restorable) return
      const action = restoreAction(n.state)
      if (!action) return
      acted = true
      try {
        await cluster.act(n.nodeId, action)
      } catch (e) {
        notes.push(`could not ${action} ${n.nodeId}: ${(e as Error).message}`)
      }
    })
  )
  // A replica started just now: `ready` waits until its group took it back into the
  // SyncStateSet, `answering` until its JVM answers.
  if (acted) await waitOut(ctx, NOT_YET[wait], notes)
  return notes
}

/** Waits (up to the ready timeout) until no node is in one of `states`. */
async function waitOut(
  ctx: RunContext,
  states: ReadonlySet<string>,
  notes: string[]
): Promise<void> {
  const { cluster, clock, signal } = ctx
  const deadline = clock.now() + ctx.readyTimeoutMs
  const slow = (): ClusterNode[] => cluster.status().nodes.filter((n) => states.has(n.state))
  while (slow().length > 0 && !signal.aborted) {
    if (clock.now() > deadline) {
      const list = slow().map((n) => `${n.nodeId} (${n.state})`)
      notes.push(`still not ready after the ready timeout: ${list.join(', ')}`)
      return
    }
    await pause(200, signal)
  }
}

/** Management nodes and name servers as clients reach them, own room first per client later. */
export function resolveEndpoints(ctx: RunContext): RunEndpoints {
  const nodes = ctx.cluster.status().nodes
  return {
    managementNodes: nodes
      .filter((n) => n.kind === 'management' && n.address)
      .map((n) => ({ id: n.nodeId, room: n.room, url: `http://${n.address}` })),
    nameServers: nodes
      .filter((n) => n.kind === 'nameserver' && n.address)
      .map((n) => ({ id: n.nodeId, room: n.room, address: n.address! }))
  }
}

/**
 * The group a client joins. A transactional producer is a group of its own: the broker sends a
 * check-back to one connection of the half message's group, picked by a broker-wide counter, and
 * our producers (like the Java worker's) keep their local transactions in memory, so a sibling
 * could never answer and the transaction would wait out transactionCheckMax rounds. An
 * application that keeps them in a shared database can share one group.
 */
export function groupOfClient(plan: ClientPlan, ctx: RunContext): string {
  const group = ctx.plan.names.groupOf(plan.group)
  const transactional =
    plan.role === 'producer' && ctx.plan.loaded.scenario.workload.messages === 'transactional'
  return transactional ? `${group}-${plan.id}` : group
}

/** The spec a worker builds a plan's client from. */
export function specOf(plan: ClientPlan, ctx: RunContext): ClientSpec {
  const { topology, scenario } = ctx.plan.loaded
  const { names } = ctx.plan
  const t = { ...scenario.client, ...plan.tuning }
  const own = <T extends { room: string }>(list: T[]): T[] => [
    ...list.filter((x) => x.room === plan.room),
    ...list.filter((x) => x.room !== plan.room)
  ]
  return {
    id: plan.id,
    role: plan.role,
    room: plan.room,
    lane: plan.lane,
    ...(plan.laneName && plan.laneName !== plan.lane ? { variant: plan.laneName } : {}),
    topic: names.topicOf(plan.topic),
    group: groupOfClient(plan, ctx),
    roomOrder: ctx.plan.rooms,
    managementNodes: own(ctx.endpoints.managementNodes),
    nameServers: own(ctx.endpoints.nameServers),
    brokerRooms: brokerGroupRooms(topology),
    tag: WORKLOAD_TAG,
    ...(plan.role === 'consumer' && ctx.startOffsets.has(names.topicOf(plan.topic))
      ? { startOffsets: ctx.startOffsets.get(names.topicOf(plan.topic))! }
      : {}),
    tuning: {
      policy: t.policy ?? topology.settings.selectionPolicy,
      routeRefreshMs: t.routeRefresh ?? topology.settings.routeRefreshMs,
      sendTimeoutMs: t.sendTimeout,
      requestTimeoutMs: t.requestTimeout ?? laneRequestTimeoutMs(plan.lane),
      ...(t.maxRequestTimeout !== undefined ? { maxRequestTimeoutMs: t.maxRequestTimeout } : {}),
      probeIntervalMs: t.probeInterval,
      managementRefreshMs: t.managementRefresh,
      heartbeatIntervalMs: t.heartbeatInterval,
      rebalanceIntervalMs: t.rebalanceInterval,
      pollTimeoutMs: t.pollTimeout,
      hedge: t.hedge,
      keepOffsets: t.keepOffsets,
      orderPolicy: t.orderPolicy,
      freeDepartedLocks: t.freeDepartedLocks
    },
    ...(plan.role === 'consumer' && scenario.workload.messages === 'ordered'
      ? { orderly: true }
      : {}),
    ...(plan.role === 'producer' && scenario.workload.messages === 'transactional'
      ? { transactional: true }
      : {})
  }
}

/**
 * Makes every topic of the run usable. With `create`, creates it on every serving master and waits
 * until every serving name server routes it. With `require-existing`, checks it is routed with
 * queues in every room that has clients, and says what to do when it is not.
 */
export async function prepareTopics(ctx: RunContext): Promise<void> {
  // One topic per lane in a side-by-side run: create them at once, each waits for its own route.
  await Promise.all(
    ctx.plan.topics.map(async ({ name: topic, queues, attributes }) => {
      if (ctx.plan.topicPolicy === 'create') {
        return createTopic(
          { ...ctx, topology: ctx.plan.loaded.topology },
          topic,
          queues,
          attributes
        )
      }
      await requireTopic(ctx, topic)
      // Someone else's topic holds messages of other runs and of production: read only ours.
      ctx.startOffsets.set(topic, await queueEnds(ctx, topic))
    })
  )
  if (ctx.plan.fifoGroups.length > 0) {
    await prepareFifoGroups(ctx, servingMasters({ ...ctx, topology: ctx.plan.loaded.topology }))
  }
}

/** What creating a topic needs: a run's, or a command's that boots a cluster for its user. */
export type TopicContext = Pick<
  RunContext,
  'clock' | 'admin' | 'signal' | 'cluster' | 'readyTimeoutMs'
> & { topology: Topology }

/** Creates a topic on every serving master and waits until every serving name server routes it. */
export async function createTopic(
  ctx: TopicContext,
  topic: string,
  queues: number,
  attributes?: string
): Promise<void> {
  const masters = servingMasters(ctx)
  await createOnEveryMaster(ctx, masters, `topic ${topic}`, (m) =>
    ctx.admin.updateAndCreateTopic(
      m.address,
      {
        topic,
        brokerName: m.brokerName,
        readQueueNums: queues,
        writeQueueNums: queues,
        ...(attributes !== undefined ? { attributes } : {})
      },
      { timeoutMs: 3000 }
    )
  )
  await waitRouted(ctx, topic, new Set(masters.map((m) => m.brokerName)))
}

/**
 * The brokers a run's topics and groups are created on: every serving master, and controller-mode
 * replicas too (whichever is elected next must already serve them).
 */
export function servingMasters(ctx: Pick<TopicContext, 'cluster' | 'topology'>): MasterBroker[] {
  const specs = new Map(ctx.topology.rooms.flatMap((r) => r.brokers.map((b) => [b.id, b] as const)))
  return ctx.cluster
    .status()
    .nodes.filter((n) => {
      const role = specs.get(n.nodeId)?.role
      return n.kind === 'broker' && isServing(n) && (role === 'master' || role === 'replica')
    })
    .map((n) => ({ address: n.address!, brokerName: specs.get(n.nodeId)!.brokerName }))
}

/**
 * The topology's own topics on a deployment that just booted (`drstudio sandbox up`: a cluster
 * for the user's own applications). Runs create the topics they use themselves.
 */
export async function createTopologyTopics(ctx: TopicContext): Promise<string[]> {
  const topics = topicsOf(ctx.topology)
  await Promise.all(topics.map((t) => createTopic(ctx, t.name, t.queues)))
  return topics.map((t) => t.name)
}

async function waitRouted(ctx: TopicContext, topic: string, want: Set<string>): Promise<void> {
  const { clock, admin, signal } = ctx
  const deadline = clock.now() + ctx.readyTimeoutMs
  const nameServers = ctx.cluster
    .status()
    .nodes.filter((n) => n.kind === 'nameserver' && isServing(n))
  for (;;) {
    const missing: string[] = []
    await Promise.all(
      nameServers.map(async (ns) => {
        try {
          const route = await admin.getRouteInfoByTopic(ns.address!, topic, { timeoutMs: 2000 })
          const have = new Set(
            route.brokerDatas.filter((b) => b.brokerAddrs['0']).map((b) => b.brokerName)
          )
          for (const b of want) if (!have.has(b)) missing.push(`${ns.nodeId} lacks ${b}`)
        } catch (e) {
          missing.push(`${ns.nodeId}: ${(e as Error).message}`)
        }
      })
    )
    if (missing.length === 0) return
    if (clock.now() > deadline || signal.aborted) {
      throw new Error(`topic ${topic} is not routed everywhere in time: ${missing.join('; ')}`)
    }
    await pause(250, signal)
  }
}

/** Each queue's current end offset (`brokerName#queueId` → offset) on every serving master. */
async function queueEnds(ctx: RunContext, topic: string): Promise<Record<string, number>> {
  const ns = ctx.cluster.status().nodes.find((n) => n.kind === 'nameserver' && isServing(n))
  const getMaxOffset = ctx.admin.getMaxOffset?.bind(ctx.admin)
  if (!ns || !getMaxOffset) return {}
  const route = await ctx.admin.getRouteInfoByTopic(ns.address!, topic, { timeoutMs: 3000 })
  const ends: Record<string, number> = {}
  await Promise.all(
    route.queueDatas.flatMap((q) => {
      const addr = route.brokerDatas.find((b) => b.brokerName === q.brokerName)?.brokerAddrs['0']
      if (!addr) return []
      return Array.from({ length: q.readQueueNums }, async (_, queueId) => {
        ends[`${q.brokerName}#${queueId}`] = await getMaxOffset(
          addr,
          { brokerName: q.brokerName, topic, queueId },
          { timeoutMs: 3000 }
        )
      })
    })
  )
  return ends
}

/** How long a topic that exists but lacks a room's queues is waited for (a broker re-registering). */
const PARTIAL_ROUTE_WAIT_MS = 20_000
/** How long name servers that route it differently are waited for: one registration period, 30 s. */
const AGREEMENT_WAIT_MS = 35_000

/**
 * An attached cluster's topic must exist with writable queues in every room that has a master.
 * A missing topic is refused at once; one routed without some room's broker is waited for a
 * little (that broker may be restarting), then refused. Either way nothing is created. When the
 * name servers route it differently (a restarted broker registered with one of them only), the run
 * waits for them to agree, and notes which still lag if they do not.
 */
async function requireTopic(ctx: RunContext, topic: string): Promise<void> {
  const { clock, signal } = ctx
  const started = clock.now()
  let told = ''
  for (;;) {
    const routes = await nameServerRoutes(ctx, topic)
    const waits = { partialMs: PARTIAL_ROUTE_WAIT_MS, agreementMs: AGREEMENT_WAIT_MS }
    const d = decideTopicRoute(routes, clock.now() - started, waits)
    if (d.kind === 'ready') return
    if (d.kind === 'go') {
      ctx.notes.push(d.note)
      return
    }
    if (d.kind === 'refuse' || signal.aborted) {
      const lines = d.kind === 'refuse' && d.check ? formatTopicCheck(d.check) : [d.reason]
      throw new TopicNotReadyError(topic, lines)
    }
    if (d.reason !== told) ctx.progress('setup', (told = d.reason))
    await pause(500, signal)
  }
}

/** Every serving name server's route of the topic, checked against the topology's rooms. */
async function nameServerRoutes(ctx: RunContext, topic: string): Promise<NameServerRoute[]> {
  const nameServers = ctx.cluster
    .status()
    .nodes.filter((n) => n.kind === 'nameserver' && isServing(n))
  return Promise.all(
    nameServers.map(async (ns): Promise<NameServerRoute> => {
      const at = { nameServer: ns.nodeId, room: ns.room }
      let queues: QueueData[] | null
      try {
        queues = (await ctx.admin.getRouteInfoByTopic(ns.address!, topic, { timeoutMs: 3000 }))
          .queueDatas
      } catch (e) {
        // TOPIC_NOT_EXIST: the name server answered, and the topic is not there.
        if (!(e instanceof RemoteError && e.responseCode === ResponseCode.TOPIC_NOT_EXIST)) {
          return { ...at, check: null, error: (e as Error).message }
        }
        queues = null
      }
      return { ...at, check: checkTopic({ topic, queues, topology: ctx.plan.loaded.topology }) }
    })
  )
}

/** An attached cluster lacks the run's topic, or its queues in some rooms: what and the two fixes. */
export class TopicNotReadyError extends Error {
  constructor(
    readonly topic: string,
    readonly lines: string[]
  ) {
    super(lines.join('\n'))
    this.name = 'TopicNotReadyError'
  }
}

/** Waits until every management node reports every serving name server (and proxy) available. */
export async function waitManagement(ctx: RunContext): Promise<void> {
  const { cluster, clock, signal } = ctx
  const refs = ctx.endpoints.managementNodes
  if (refs.length === 0) return
  const deadline = clock.now() + ctx.readyTimeoutMs
  const upOf = (kind: string): Set<string> =>
    new Set(
      cluster
        .status()
        .nodes.filter((n) => n.kind === kind && isServing(n))
        .map((n) => n.nodeId)
    )
  const up = upOf('nameserver')
  // The gRPC lanes choose among the proxies the management nodes report available.
  const upProxies = upOf('proxy')
  for (;;) {
    const ok = await Promise.all(
      refs.map(async (m) => {
        try {
          const a = await ctx.management.fetchNameServers(m, 1000)
          const avail = new Set(a.nameServers.filter((n) => n.available !== false).map((n) => n.id))
          const proxies = new Set(
            (a.proxies ?? []).filter((p) => p.available !== false).map((p) => p.id)
          )
          return (
            [...up].every((id) => avail.has(id)) && [...upProxies].every((id) => proxies.has(id))
          )
        } catch {
          return false
        }
      })
    )
    if (ok.every(Boolean)) return
    if (clock.now() > deadline || signal.aborted) {
      throw new Error(
        'management nodes do not report every name server (and proxy) available; check their logs'
      )
    }
    await pause(200, signal)
  }
}

/**
 * Creates every planned client in its worker (not started). All at once: each worker (a JVM per
 * Java lane) boots while the others do, rather than one after another.
 */
export async function createClients(ctx: RunContext): Promise<void> {
  await Promise.all(ctx.plan.clients.map((plan) => ctx.fleet.create(specOf(plan, ctx))))
}

/** Starts every client of a role; a client that cannot start fails the run with its reason. */
export async function startClients(ctx: RunContext, role: 'producer' | 'consumer'): Promise<void> {
  const timeoutMs = Math.max(15_000, ctx.plan.loaded.scenario.workload.settleTimeout)
  await Promise.all(
    ctx.plan.clients
      .filter((p) => p.role === role)
      .map(async (p) => {
        try {
          await ctx.fleet.start(p.id, timeoutMs)
        } catch (e) {
          throw new Error(`${p.id}: ${(e as Error).message}`)
        }
      })
  )
}
