import { stringify } from 'yaml'
import type { LaneEntry } from '../../common/scenario/schema'

/** One fault case of the lane benchmark; every lane of a run sees it at the same instant. */
export interface LaneCase {
  id: string
  label: string
  /**
   * Workload length. A restarted broker's JVM served again 17-23 s after the restart while every
   * lane ran on this 2-core host, and clients need time after that to come home: 34 s for the cases
   * that kill JVMs.
   */
  duration: string
  timeline: Record<string, unknown>[]
  /** Producers and consumers per room and lane; `fault`: faultRooms() for the case's lane count. */
  rooms: Record<string, { producers: number; consumers: number }> | 'fault'
  /** The figure this case is about, beside the common ones. */
  focus: 'healthy' | 'rto' | 'takeover'
  /**
   * Variants of our client run beside the lanes where their difference can show: hedging where a
   * send can be slow (and on the healthy path, for its cost), keepOffsets where queues move or a
   * broker forgets offsets. One variant per case at most: every extra lane is 5 more clients on a
   * 2-core machine that already runs 7 server JVMs and 6 Java client JVMs.
   */
  variants: VariantName[]
}

export type VariantName = 'remoting-hedged' | 'remoting-nokeep'

/**
 * Fault cases: per lane, as many room-1 producers as keep the whole benchmark near 30 room-1
 * producers (10 per lane for 3 lanes, 4 for 7; at least 2), and 2 in room 2, at FAULT_RATE.
 * Every producer on a hit broker is one failover episode, so 3 runs of 3 lanes give each lane 30.
 * Ten per lane with all 7 lanes at once (84 producers) drove the load average to 49-64 on this
 * 2-core host and failed 70 % of every lane's sends in a room loss: a measure of the host.
 */
export function faultRooms(
  lanes: number
): Record<string, { producers: number; consumers: number }> {
  const room1 = Math.max(2, Math.min(10, Math.floor(30 / Math.max(1, lanes))))
  return { room1: { producers: room1, consumers: 1 }, room2: { producers: 2, consumers: 1 } }
}
/** Per producer in the fault cases, messages per second (a send due every 200 ms). */
export const FAULT_RATE = 5
const kill = (target: string | string[], at = '3s') => ({ at, action: 'kill', target })
const restart = (target: string | string[], at = '6s') => ({ at, action: 'restart', target })

export const CASES: LaneCase[] = [
  {
    id: 'healthy',
    label: 'healthy (room-1 producers only)',
    duration: '8s',
    timeline: [],
    rooms: { room1: { producers: 2, consumers: 1 }, room2: { producers: 0, consumers: 1 } },
    focus: 'healthy',
    variants: ['remoting-hedged']
  },
  {
    id: 'broker-kill',
    label: 'broker kill (SIGKILL room-1 brokers)',
    duration: '34s',
    timeline: [kill('all brokers of room1'), restart('all brokers of room1')],
    rooms: 'fault',
    focus: 'rto',
    variants: ['remoting-hedged']
  },
  {
    id: 'broker-pause',
    label: 'broker pause (SIGSTOP room-1 brokers)',
    duration: '10s',
    timeline: [
      { at: '3s', action: 'pause', target: 'all brokers of room1' },
      { at: '6s', action: 'resume', target: 'all brokers of room1' }
    ],
    rooms: 'fault',
    focus: 'rto',
    variants: ['remoting-hedged']
  },
  {
    id: 'room-loss',
    label: 'room loss (SIGKILL room-1 name servers + brokers)',
    duration: '34s',
    timeline: [
      kill(['all brokers of room1', 'nameservers of room1']),
      restart(['nameservers of room1', 'all brokers of room1'])
    ],
    rooms: 'fault',
    focus: 'rto',
    variants: ['remoting-nokeep']
  },
  {
    id: 'management-loss',
    label: 'management loss (SIGKILL room-1 management node)',
    duration: '10s',
    timeline: [kill('management of room1'), restart('management of room1')],
    rooms: 'fault',
    focus: 'rto',
    variants: []
  },
  {
    id: 'consumer-loss',
    label: "consumer loss (SIGKILL room 1's consumers)",
    duration: '10s',
    timeline: [kill('consumers of room1'), restart('consumers of room1')],
    rooms: 'fault',
    focus: 'takeover',
    variants: ['remoting-nokeep']
  },
  {
    id: 'room-isolation',
    label: 'room isolation (room 1 cut from room 2, packets dropped)',
    duration: '10s',
    timeline: [
      { at: '3s', action: 'isolate', target: 'room1' },
      { at: '6s', action: 'heal' }
    ],
    rooms: 'fault',
    focus: 'rto',
    variants: []
  },
  {
    id: 'wan-broker-kill',
    label: 'broker kill over a 20 ms link (rooms 20 ms apart)',
    duration: '34s',
    timeline: [
      { at: '0s', action: 'delay', target: 'room1', peer: 'room2', latencyMs: 20 },
      kill('all brokers of room1'),
      restart('all brokers of room1')
    ],
    rooms: 'fault',
    focus: 'rto',
    variants: []
  }
]

/** The lane variants the benchmark adds beside `remoting`: the settings items 5 and 6 compare. */
export const VARIANTS: Record<VariantName, Exclude<LaneEntry, string>> = {
  'remoting-hedged': { lane: 'remoting', name: 'remoting-hedged', client: { hedge: true } },
  'remoting-nokeep': { lane: 'remoting', name: 'remoting-nokeep', client: { keepOffsets: false } }
}

/** The lanes of one case: the ones asked for, then the case's variants of our client. */
export function caseLanes(
  c: LaneCase,
  lanes: readonly LaneEntry[],
  variants: boolean
): LaneEntry[] {
  const ours = variants && lanes.includes('remoting')
  return [...lanes, ...(ours ? c.variants.map((v) => VARIANTS[v]) : [])]
}

/** Per producer, messages per second: 8 lanes at once must not saturate 2 cores. */
export const RATE = 20

/** The case's producers and consumers per room and lane, with `lanes` lanes running at once. */
export function roomsOf(
  c: LaneCase,
  lanes: number
): Record<string, { producers: number; consumers: number }> {
  return c.rooms === 'fault' ? faultRooms(lanes) : c.rooms
}

export function scenarioText(c: LaneCase, lanes: LaneEntry[]): string {
  return stringify({
    name: `bench-lanes-${c.id}`,
    topology: 'two-rooms-proxies',
    workload: {
      duration: c.duration,
      rate: c.focus === 'healthy' ? RATE : FAULT_RATE,
      rooms: roomsOf(c, lanes.length),
      lanes,
      // A restarted broker is routed again once it re-registers (at boot; ~20 s if its management
      // node did not answer and it fetches the name servers itself): a shorter drain would count
      // its backlog as lost.
      drainTimeout: '30s',
      duplicateGrace: '2s',
      // Past this, the run goes on with a note rather than spend the benchmark's budget warming up.
      warmupTimeout: '15s'
    },
    timeline: c.timeline,
    gates: { maxLost: 0 }
  })
}
