import type { NodeState } from '../../../common/contract'
import { listNodes } from '../../../common/topology'
import type { RawBridge } from '../lib/bridge'
import { getFlowInstance } from '../lib/flow-instance'
import { FrameBatcher } from '../lib/frame-batcher'
import { useLiveStore } from '../stores/live-store'
import type { FrameStats } from './frame-stats'
import { summarize } from './frame-stats'
import { generateTopology } from './generate'

/** What `window.__drstudioBench` offers to the benchmark driver. */
export interface BenchApi {
  config: { nodes: number; rooms: number; eventsPerSecond: number }
  /** Frame stats since the last reset, plus event throughput. */
  stats(): FrameStats & { events: number; eventsPerSecond: number; seconds: number }
  reset(): void
  startEvents(eventsPerSecond?: number): void
  stopEvents(): void
  /** Pans and zooms the canvas continuously for `ms`, then resolves with the stats of that period. */
  panZoom(ms?: number): Promise<ReturnType<BenchApi['stats']>>
}

declare global {
  interface Window {
    __drstudioBench?: BenchApi
  }
}

const listeners = new Map<string, Set<(p: unknown) => void>>()
let topology = generateTopology()

function emit(channel: string, payload: unknown): void {
  for (const l of listeners.get(channel) ?? []) l(payload)
}

/** A transport with no engine: canned answers, and events emitted by the synthesiser. */
export function createBenchBridge(params: URLSearchParams): RawBridge {
  const nodes = Number(params.get('nodes') ?? 300)
  const rooms = Number(params.get('rooms') ?? 6)
  topology = generateTopology(nodes, rooms)
  const status = () => ({
    running: true,
    runId: 1,
    startedAt: Date.now(),
    nodes: listNodes(topology).map((n) => ({
      nodeId: n.id,
      kind: n.kind,
      room: n.room,
      state: 'up' as const
    }))
  })
  return {
    transport: 'offline',
    connection: 'open',
    async invoke(channel) {
      switch (channel) {
        case 'topology:default':
          return { path: null, name: topology.name, document: topology, problems: [] }
        case 'sandbox:status':
          return status()
        case 'recent:list':
          return []
        default:
          throw new Error(`"${channel}" is not available in bench mode`)
      }
    },
    on(channel, listener) {
      let set = listeners.get(channel)
      if (!set) listeners.set(channel, (set = new Set()))
      set.add(listener)
      return () => set.delete(listener)
    },
    onConnection: () => () => {}
  }
}

const STATES: NodeState[] = ['up', 'up', 'up', 'paused', 'starting', 'killed', 'down']

/** Starts the frame recorder and the synthetic event stream (500 events/s by default). */
export function startBench(params: URLSearchParams): void {
  const eventsPerSecond = Number(params.get('eps') ?? 500)
  // Event mix: share of node-state events and of client reroutes; the rest are rate updates.
  const stateShare = Number(params.get('states') ?? 0.4)
  const rerouteShare = Number(params.get('reroutes') ?? 0.015)
  const all = listNodes(topology)
  const servers = all.filter((n) => n.kind !== 'producer' && n.kind !== 'consumer')
  const clients = all.filter((n) => n.kind === 'producer' || n.kind === 'consumer')
  const brokersByRoom = new Map<string, string[]>()
  const nsByRoom = new Map<string, string[]>()
  for (const n of all) {
    if (n.kind === 'broker' && n.spec.role === 'master')
      brokersByRoom.set(n.room, [...(brokersByRoom.get(n.room) ?? []), n.id])
    if (n.kind === 'nameserver') nsByRoom.set(n.room, [...(nsByRoom.get(n.room) ?? []), n.id])
  }
  const roomIds = topology.rooms.map((r) => r.id)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!
  // Live-edge channels are not in the contract yet; the bench batches them as engine-events will.
  const live = new FrameBatcher<unknown>((b) => useLiveStore.getState().applyChoices(b))
  const liveListeners = new Set<(p: unknown) => void>([(p) => live.push(p)])
  const current = new Map<string, { brokerId: string; room: string; brokerRoom: string }>()
  const choose = (clientId: string, room: string, cross: boolean) => {
    const r = cross ? pick(roomIds.filter((x) => x !== room)) : room
    const brokerId = pick(brokersByRoom.get(r) ?? [])
    current.set(clientId, { brokerId, room, brokerRoom: r })
    return {
      clientId,
      namesrvId: pick(nsByRoom.get(room) ?? []),
      brokerId,
      room
    }
  }
  for (const c of clients)
    for (const l of liveListeners) l({ ...choose(c.id, c.room, false), rate: 50 })

  let durations: number[] = []
  let last = performance.now()
  let since = performance.now()
  let events = 0
  const frame = (t: number) => {
    durations.push(t - last)
    if (durations.length > 20_000) durations = durations.slice(-10_000)
    last = t
    requestAnimationFrame(frame)
  }
  requestAnimationFrame((t) => {
    last = t
    requestAnimationFrame(frame)
  })

  let timer: ReturnType<typeof setInterval> | null = null
  let carry = 0
  const TICK_MS = 10
  const startEvents = (eps = eventsPerSecond) => {
    if (timer) clearInterval(timer)
    let lastTick = performance.now()
    timer = setInterval(() => {
      const now = performance.now()
      carry += ((now - lastTick) * eps) / 1000
      lastTick = now
      const n = Math.floor(carry)
      carry -= n
      for (let i = 0; i < n; i++) {
        events++
        const roll = Math.random()
        if (roll < stateShare) {
          const s = pick(servers)
          emit('sandbox:node-state', {
            nodeId: s.id,
            kind: s.kind,
            room: s.room,
            state: pick(STATES)
          })
        } else if (roll < 1 - rerouteShare) {
          const c = pick(clients)
          for (const l of liveListeners)
            l({ clientId: c.id, rate: Math.round(Math.random() * 200) })
        } else {
          const c = pick(clients)
          for (const l of liveListeners)
            l({
              ...choose(c.id, c.room, Math.random() < 0.5),
              failoverMs: Math.round(Math.random() * 80)
            })
        }
      }
    }, TICK_MS)
  }
  const stopEvents = () => {
    if (timer) clearInterval(timer)
    timer = null
  }
  const stats = () => {
    const seconds = (performance.now() - since) / 1000
    return {
      ...summarize(durations),
      events,
      eventsPerSecond: Math.round(events / Math.max(seconds, 0.001)),
      seconds: Math.round(seconds * 10) / 10
    }
  }
  const reset = () => {
    durations = []
    events = 0
    since = performance.now()
  }
  const panZoom = (ms = 5000) =>
    new Promise<ReturnType<typeof stats>>((resolve) => {
      const flow = getFlowInstance()
      reset()
      const start = performance.now()
      const base = flow?.getViewport() ?? { x: 0, y: 0, zoom: 1 }
      const step = (t: number) => {
        const k = (t - start) / 1000
        void flow?.setViewport({
          x: base.x + Math.sin(k * 1.3) * 300,
          y: base.y + Math.cos(k * 0.9) * 200,
          zoom: Math.max(0.15, base.zoom * (1 + 0.5 * Math.sin(k * 0.7)))
        })
        if (t - start < ms) requestAnimationFrame(step)
        else resolve(stats())
      }
      requestAnimationFrame(step)
    })

  if (params.get('metrics') === '1') startMetrics(clients, current)

  window.__drstudioBench = {
    config: { nodes: all.length, rooms: roomIds.length, eventsPerSecond },
    stats,
    reset,
    startEvents,
    stopEvents,
    panZoom
  }
  if (params.get('events') !== '0') startEvents()
}

/**
 * `&metrics=1`: a `live:metrics` snapshot every 500 ms for every client, broker, client edge and
 * room pair, shaped as the engine's aggregator sends it, through the same bridge channel.
 */
function startMetrics(
  clients: readonly { id: string; kind: string; room: string }[],
  current: ReadonlyMap<string, { brokerId: string; room: string; brokerRoom: string }>
): void {
  const totals = new Map<string, { messages: number; bytes: number }>()
  setInterval(() => {
    const rate = () => Math.round(Math.random() * 2000) / 10
    const brokers = new Map<string, number>()
    const edges: { clientId: string; brokerName: string; brokerId: string; rate: number }[] = []
    const links = new Map<string, number>()
    const rows = clients.map((c) => {
      const r = rate()
      const cur = current.get(c.id)
      if (cur) {
        edges.push({ clientId: c.id, brokerName: cur.brokerId, brokerId: cur.brokerId, rate: r })
        brokers.set(cur.brokerId, (brokers.get(cur.brokerId) ?? 0) + r)
        if (cur.brokerRoom !== cur.room) {
          const k = `${cur.room}\u0000${cur.brokerRoom}`
          links.set(k, (links.get(k) ?? 0) + r)
        }
      }
      return {
        clientId: c.id,
        room: c.room,
        role: c.kind as 'producer' | 'consumer',
        rate: r,
        p99Ms: Math.round(Math.random() * 500) / 10,
        failures: Math.random() < 0.05 ? Math.ceil(Math.random() * 5) : 0
      }
    })
    const roomLinks = [...links].map(([k, r]) => {
      const [fromRoom, toRoom] = k.split('\u0000') as [string, string]
      const t = totals.get(k) ?? { messages: 0, bytes: 0 }
      t.messages += Math.round(r / 2)
      t.bytes += Math.round(r / 2) * 256
      totals.set(k, t)
      return { fromRoom, toRoom, ...t, rate: r, bytesPerSecond: r * 256 }
    })
    emit('live:metrics', {
      runId: 1,
      atMs: Date.now(),
      windowMs: 2000,
      clients: rows,
      brokers: [...brokers].map(([id, tps]) => ({
        brokerName: id,
        brokerId: id,
        room: null,
        tps,
        deliveredPerSecond: 0
      })),
      edges,
      roomLinks
    })
  }, 500)
}
