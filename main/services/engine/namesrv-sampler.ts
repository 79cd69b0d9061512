import type { LedgerEventData, NamesrvViewBroker } from '../../../common/scenario/events'
import type { BrokerData, ClusterInfo, TopicRoute } from '../remoting/types'
import { masterAddress } from '../remoting/types'
import type { TimerPort } from './periodic-sweep'
import { PeriodicSweep } from './periodic-sweep'

/** The two name-server queries the sampler makes (RemotingRpc has them). */
export interface NamesrvQueryPort {
  getBrokerClusterInfo(address: string, options?: { timeoutMs?: number }): Promise<ClusterInfo>
  getRouteInfoByTopic(
    address: string,
    topic: string,
    options?: { timeoutMs?: number }
  ): Promise<TopicRoute>
}

/** One name server to sample; `address` may change when the node restarts, so targets are re-read. */
export interface NamesrvTarget {
  namesrvId: string
  room: string
  address: string
}

export interface NamesrvSamplerOptions {
  rpc: NamesrvQueryPort
  /** Read at every sweep: the name servers running now. */
  targets: () => readonly NamesrvTarget[]
  /** The topic whose route is sampled too (the run's topic); none samples cluster info only. */
  topic?: string
  /** One `namesrv-view` per name server per sweep; all of one sweep share `atMs`. */
  emit: (view: LedgerEventData['namesrv-view'], atMs: number) => void
  intervalMs?: number
  /** Per query; a name server slower than this counts as not answering. */
  timeoutMs?: number
  now?: () => number
  timers?: TimerPort
}

function viewBroker(b: BrokerData): NamesrvViewBroker {
  return {
    brokerName: b.brokerName,
    address: masterAddress(b) ?? Object.values(b.brokerAddrs)[0] ?? null,
    room: b.zoneName ?? null
  }
}

const byName = (a: NamesrvViewBroker, b: NamesrvViewBroker) =>
  a.brokerName.localeCompare(b.brokerName)

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}

/**
 * Samples what every name server hands out (its brokers with rooms, and the run topic's route) on
 * an interval, so the run can show when rooms' name servers disagreed, e.g. one still listing a
 * killed broker. Sweeps never overlap: a slow sweep delays the next one.
 */
export class NamesrvSampler {
  private readonly timeoutMs: number
  private readonly now: () => number
  private readonly sweeps: PeriodicSweep

  constructor(private readonly opts: NamesrvSamplerOptions) {
    const intervalMs = opts.intervalMs ?? 1000
    this.timeoutMs = opts.timeoutMs ?? Math.min(800, intervalMs)
    this.now = opts.now ?? Date.now
    this.sweeps = new PeriodicSweep(() => this.sampleOnce(), intervalMs, opts.timers)
  }

  /** Samples at once, then every interval until stop(). */
  start(): void {
    this.sweeps.start()
  }

  /** Stops the interval and waits for a sweep in progress (its views are still emitted). */
  stop(): Promise<void> {
    return this.sweeps.stop()
  }

  /** One sweep over every target; resolves when each has answered or timed out. */
  async sampleOnce(): Promise<void> {
    const atMs = this.now()
    const targets = this.opts.targets()
    const views = await Promise.all(targets.map((t) => this.sample(t)))
    for (const v of views) this.opts.emit(v, atMs)
  }

  private async sample(t: NamesrvTarget): Promise<LedgerEventData['namesrv-view']> {
    const base = { namesrvId: t.namesrvId, room: t.room }
    const options = { timeoutMs: this.timeoutMs }
    let brokers: NamesrvViewBroker[]
    try {
      const info = await this.opts.rpc.getBrokerClusterInfo(t.address, options)
      brokers = Object.values(info.brokerAddrTable).map(viewBroker).sort(byName)
    } catch (e) {
      return { ...base, brokers: [], error: `${t.namesrvId} at ${t.address}: ${message(e)}` }
    }
    const topic = this.opts.topic
    if (!topic) return { ...base, brokers }
    try {
      const route = await this.opts.rpc.getRouteInfoByTopic(t.address, topic, options)
      // Only brokers that serve queues of the topic are handed out for it.
      const serving = new Set(route.queueDatas.map((q) => q.brokerName))
      const routeBrokers = route.brokerDatas
        .filter((b) => serving.has(b.brokerName))
        .map(viewBroker)
        .sort(byName)
      return { ...base, brokers, route: { topic, brokers: routeBrokers } }
    } catch (e) {
      // A topic the name server no longer routes (no broker serves it) is an empty route.
      if ((e as { responseCode?: number }).responseCode === 17) {
        return { ...base, brokers, route: { topic, brokers: [] } }
      }
      return {
        ...base,
        brokers,
        routeError: `route of ${topic} from ${t.namesrvId}: ${message(e)}`
      }
    }
  }
}
