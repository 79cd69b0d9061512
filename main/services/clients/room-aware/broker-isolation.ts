import type { LedgerPort } from '../../ledger/types'
import type { BrokerCandidate } from './choose-broker'
import type { FaultTable } from './fault-table'
import type { Clock, RemotingPort } from './ports'
import type { RouteKeeper } from './route-keeper'

export interface BrokerIsolationOptions {
  clientId: string
  room: string
  topic: string
  requestTimeoutMs: number
  probeIntervalMs: number
}

/**
 * A producer's faulty brokers: isolated on a failed send or a reset socket, probed in the
 * background (GET_MAX_OFFSET), and let back in when a probe answers. Every change is logged.
 */
export class BrokerIsolation {
  private readonly probing = new Set<string>()

  constructor(
    private readonly faults: FaultTable,
    private readonly deps: {
      remoting: Pick<RemotingPort, 'getMaxOffset'>
      routes: Pick<RouteKeeper, 'brokers' | 'refresh'>
      ledger: LedgerPort
      clock: Clock
      running: () => boolean
    },
    private readonly opts: BrokerIsolationOptions
  ) {}

  isolate(broker: BrokerCandidate, reason: string): void {
    // A refused or reset connection is proof; a timeout is not (a slow host, a long GC). Isolating
    // the last healthy broker on one would leave only brokers known to be worse.
    if (reason === 'timeout' && !this.anotherHealthy(broker.brokerName)) return
    const fresh = this.faults.isolate({
      brokerName: broker.brokerName,
      address: broker.masterAddr,
      room: broker.room,
      reason,
      since: this.deps.clock.now()
    })
    if (!fresh) return
    this.deps.ledger.event('broker-isolated', this.opts.clientId, this.opts.room, {
      brokerName: broker.brokerName,
      brokerRoom: broker.room,
      reason
    })
    // The name server may already know the broker is gone; ask now rather than at the next tick.
    void this.deps.routes.refresh('broker-failed')
  }

  /** Whether a writable broker other than `brokerName` is not isolated. */
  private anotherHealthy(brokerName: string): boolean {
    return this.deps.routes.brokers.some(
      (b) =>
        b.brokerName !== brokerName &&
        b.masterAddr !== undefined &&
        b.writeQueues > 0 &&
        !this.faults.has(b.brokerName)
    )
  }

  /** A broker's socket closed under us (killed, not hung): stop choosing it before a send fails. */
  onConnectionClose(address: string, unexpected: boolean): void {
    if (!this.deps.running() || !unexpected) return
    const broker = this.deps.routes.brokers.find((b) => b.masterAddr === address)
    if (broker) this.isolate(broker, 'reset')
  }

  /** Probes every isolated broker that is due; one that answers is let back in. */
  probe(): void {
    const { clock, ledger } = this.deps
    const now = clock.now()
    for (const entry of this.faults.dueForProbe(now, this.opts.probeIntervalMs)) {
      if (this.probing.has(entry.brokerName)) continue
      const inRoute = this.deps.routes.brokers.find((b) => b.brokerName === entry.brokerName)
      const address = inRoute?.masterAddr ?? entry.address
      if (!address) continue
      entry.lastProbeAt = now
      this.probing.add(entry.brokerName)
      this.deps.remoting
        .getMaxOffset(
          address,
          { brokerName: entry.brokerName, topic: this.opts.topic, queueId: 0 },
          { timeoutMs: this.opts.requestTimeoutMs }
        )
        .then(
          () => {
            if (!this.deps.running()) return
            const e = this.faults.recover(entry.brokerName)
            if (e) {
              ledger.event('broker-recovered', this.opts.clientId, this.opts.room, {
                brokerName: e.brokerName,
                brokerRoom: e.room,
                isolatedMs: clock.now() - e.since
              })
            }
          },
          () => {
            entry.lastProbeAt = clock.now()
          }
        )
        .finally(() => this.probing.delete(entry.brokerName))
    }
  }
}
