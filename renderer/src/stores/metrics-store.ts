import { create } from 'zustand'
import type { LiveMetrics } from '../../../common/contract'

/** Points a client's sparkline keeps (one per snapshot: 30 s at the engine's 500 ms). */
export const SPARK_POINTS = 60

export interface ClientFigures {
  rate: number
  p99Ms: number | null
  failures: number
  /** Recent rates, oldest first, for the sparkline. */
  history: readonly number[]
  /** Recent failures per snapshot, aligned with `history`. */
  failHistory: readonly number[]
}

export interface RoomLinkFigures {
  fromRoom: string
  toRoom: string
  messages: number
  bytes: number
  rate: number
  bytesPerSecond: number
}

export interface MetricsState {
  runId: number | null
  atMs: number | null
  /** Client node id → its figures; an object is replaced only when its figures change. */
  clients: Readonly<Record<string, ClientFigures>>
  /** Broker master node id → messages stored per second. */
  brokerTps: Readonly<Record<string, number>>
  /** `${clientId}→${brokerNodeId}` → messages per second on that client edge. */
  edgeRates: Readonly<Record<string, number>>
  roomLinks: readonly RoomLinkFigures[]
  /** `live:metrics` (wired in engine-events). */
  apply(snapshot: LiveMetrics): void
  reset(): void
}

export const edgeKey = (clientId: string, brokerId: string): string => `${clientId}→${brokerId}`

function push(list: readonly number[], v: number): number[] {
  const out = list.length >= SPARK_POINTS ? list.slice(1) : [...list]
  out.push(v)
  return out
}

function sameRecord(a: Readonly<Record<string, number>>, b: Record<string, number>): boolean {
  const ka = Object.keys(a)
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k])
}

/** Live figures of the run: per client rate, p99 and failures with history; broker TPS; edges; room links. */
export const useMetricsStore = create<MetricsState>()((set, get) => ({
  runId: null,
  atMs: null,
  clients: {},
  brokerTps: {},
  edgeRates: {},
  roomLinks: [],

  apply(snapshot) {
    const s = get()
    // A new run starts the sparklines afresh.
    const prevClients = snapshot.runId === s.runId ? s.clients : {}
    const clients: Record<string, ClientFigures> = {}
    for (const c of snapshot.clients) {
      const prev = prevClients[c.clientId]
      clients[c.clientId] = {
        rate: c.rate,
        p99Ms: c.p99Ms,
        failures: c.failures,
        history: push(prev?.history ?? [], c.rate),
        failHistory: push(prev?.failHistory ?? [], c.failures)
      }
    }
    const brokerTps: Record<string, number> = {}
    for (const b of snapshot.brokers) if (b.brokerId) brokerTps[b.brokerId] = b.tps
    const edgeRates: Record<string, number> = {}
    for (const e of snapshot.edges)
      if (e.brokerId) edgeRates[edgeKey(e.clientId, e.brokerId)] = e.rate
    set({
      runId: snapshot.runId,
      atMs: snapshot.atMs,
      clients,
      brokerTps: sameRecord(s.brokerTps, brokerTps) ? s.brokerTps : brokerTps,
      edgeRates: sameRecord(s.edgeRates, edgeRates) ? s.edgeRates : edgeRates,
      roomLinks: snapshot.roomLinks
    })
  },

  reset() {
    set({ runId: null, atMs: null, clients: {}, brokerTps: {}, edgeRates: {}, roomLinks: [] })
  }
}))

/** "1.2 kB", "3.4 MB": bytes for room-link labels. */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${Math.round(bytes)} B`
  const units = ['kB', 'MB', 'GB', 'TB']
  let v = bytes
  let i = -1
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000
    i++
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`
}

/** "12/s", "1.5/s", "0/s": a message rate for a label. */
export function formatRate(rate: number): string {
  return `${rate >= 10 || rate === 0 ? Math.round(rate) : rate.toFixed(1)}/s`
}
