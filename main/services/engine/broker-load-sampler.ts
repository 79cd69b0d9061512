import type { LedgerEventData } from '../../../common/scenario/events'
import type { TimerPort } from './periodic-sweep'
import { PeriodicSweep } from './periodic-sweep'

/** One broker to sample; re-read at every sweep (a restarted broker keeps its id). */
export interface BrokerTarget {
  nodeId: string
  room: string
  address: string
}

export interface BrokerLoadOptions {
  targets: () => readonly BrokerTarget[]
  /** GET_BROKER_RUNTIME_INFO (read-only): the broker's own stats table. */
  runtimeInfo: (address: string, timeoutMs: number) => Promise<Record<string, string>>
  /** CPU seconds the node's process has used so far; null where DR Studio does not run it. */
  cpuSeconds: (nodeId: string) => number | null
  emit: (load: LedgerEventData['broker-load'], atMs: number) => void
  now: () => number
  intervalMs?: number
  timers?: TimerPort
}

/**
 * Samples every running broker's load once a second while a run lasts: the CPU its process used
 * since the previous sample (from /proc, for the sandbox's own brokers) and its send queue (from
 * the broker's runtime info, any broker that answers), for the headroom figures.
 */
export class BrokerLoadSampler {
  private readonly sweeps: PeriodicSweep
  private readonly lastCpu = new Map<string, { atMs: number; seconds: number }>()

  constructor(private readonly opts: BrokerLoadOptions) {
    this.sweeps = new PeriodicSweep(() => this.sampleOnce(), opts.intervalMs ?? 1000, opts.timers)
  }

  start(): void {
    this.sweeps.start()
  }

  stop(): Promise<void> {
    return this.sweeps.stop()
  }

  async sampleOnce(): Promise<void> {
    const atMs = this.opts.now()
    const targets = this.opts.targets()
    const queues = await Promise.all(
      targets.map((t) =>
        this.opts
          .runtimeInfo(t.address, 800)
          .then((info) => {
            const n = Number(info.sendThreadPoolQueueSize)
            return Number.isFinite(n) ? n : null
          })
          .catch(() => null)
      )
    )
    targets.forEach((t, i) => {
      this.opts.emit(
        {
          nodeId: t.nodeId,
          room: t.room,
          cpuPct: this.cpuPct(t.nodeId, atMs),
          sendQueue: queues[i]!
        },
        atMs
      )
    })
  }

  /** CPU used since this node's previous sample, in percent of one core. */
  private cpuPct(nodeId: string, atMs: number): number | null {
    const seconds = this.opts.cpuSeconds(nodeId)
    const prev = this.lastCpu.get(nodeId)
    if (seconds === null) {
      this.lastCpu.delete(nodeId)
      return null
    }
    this.lastCpu.set(nodeId, { atMs, seconds })
    // A restarted process starts its count again: its first sample has nothing to compare with.
    if (!prev || seconds < prev.seconds || atMs <= prev.atMs) return null
    return Math.round(((seconds - prev.seconds) / ((atMs - prev.atMs) / 1000)) * 1000) / 10
  }
}
