import { EventEmitter } from 'node:events'
import type { LedgerPort } from '../../ledger/types'
import { FaultTable } from '../room-aware/fault-table'
import { NameServerDirectory } from '../room-aware/name-server-directory'
import type { Clock, ManagementNodeRef, ManagementPort } from '../room-aware/ports'
import { pause, systemClock } from '../room-aware/ports'
import type { ProxyCandidate } from './choose-proxy'
import { rankProxies } from './choose-proxy'
import { reasonOf, withDeadline } from './deadline'
import { proxiesOf } from './proxy-list'

export interface ProxySelectorOptions {
  clientId: string
  room: string
  managementNodes: readonly ManagementNodeRef[]
  roomOrder: readonly string[]
  managementRefreshMs: number
  managementTimeoutMs: number
}

export interface ProxySelectorEvents {
  /** The proxy in use changed. */
  change: [ProxyCandidate]
}

/**
 * The room-aware part of the gRPC lane: the proxy list from the management nodes (own room's
 * first, like the name-server list), the proxy in use, proxies this client saw fail, and the
 * ledger entries for every choice, failover and recovery.
 */
export class ProxySelector extends EventEmitter<ProxySelectorEvents> {
  readonly faults = new FaultTable()
  readonly directory: NameServerDirectory
  private currentProxy: ProxyCandidate | undefined
  private readonly clock: Clock

  constructor(
    private readonly opts: ProxySelectorOptions,
    private readonly deps: { management: ManagementPort; ledger: LedgerPort; clock?: Clock }
  ) {
    super()
    this.clock = deps.clock ?? systemClock
    this.directory = new NameServerDirectory(
      {
        clientId: opts.clientId,
        room: opts.room,
        managementNodes: opts.managementNodes,
        refreshMs: opts.managementRefreshMs,
        timeoutMs: opts.managementTimeoutMs
      },
      deps
    )
  }

  /** Every proxy the management nodes list (zone-pinned and plain). */
  proxies(): ProxyCandidate[] {
    return proxiesOf(this.directory.lastAnswer())
  }

  /** Zone-pinned proxies, best first. */
  ranked(): ProxyCandidate[] {
    const suspects = new Set(this.faults.list().map((f) => f.brokerName))
    return rankProxies(this.proxies(), this.opts.room, suspects, this.opts.roomOrder).order
  }

  get current(): ProxyCandidate | undefined {
    return this.currentProxy
  }

  /** Polls the management nodes until some proxy list satisfies `usable`. */
  async awaitList(
    usable: (list: ProxyCandidate[]) => boolean,
    deadline: number,
    signal: AbortSignal
  ): Promise<ProxyCandidate[]> {
    for (;;) {
      await this.directory.refresh('start')
      const list = this.proxies()
      if (usable(list)) return list
      if (this.clock.now() > deadline || signal.aborted) {
        const answered = this.directory.lastAnswer()
        throw new Error(
          answered
            ? `${this.opts.clientId}: the management nodes list no usable proxy (${list.length} listed); add proxies to the topology's rooms`
            : `${this.opts.clientId}: no management node answered; check that they run`
        )
      }
      await pause(200, signal)
    }
  }

  /**
   * Picks the first proxy whose library client starts (`ready`), best first; a proxy that fails
   * to start (still booting, dead) is marked failed and the next one is tried until `deadline`.
   * While another proxy not yet failed is left, one attempt gets at most half the time left, so a
   * proxy that hangs does not spend the whole start; once every proxy has failed, the first of them
   * to start wins (a library client keeps starting after its attempt's deadline; a retry reuses it).
   */
  async startOn(
    ready: (proxy: ProxyCandidate) => Promise<void>,
    deadline: number,
    signal: AbortSignal
  ): Promise<ProxyCandidate> {
    let lastError = 'no proxy'
    while (!signal.aborted && this.clock.now() < deadline) {
      const ranked = this.ranked()
      if (ranked.length === 0) break
      const untried = ranked.filter((p) => !this.faults.has(p.id) && p.available !== false)
      const t = this.clock.now()
      if (untried.length === 0) {
        try {
          const first = await this.firstToStart(ranked, ready, deadline, signal)
          this.recover(first)
          if (this.currentProxy?.id !== first.id) this.use(first, 'first to start')
          return first
        } catch (e) {
          lastError = `${ranked.map((p) => p.id).join(', ')}: ${reasonOf(e)}`
          break
        }
      }
      const proxy = untried[0]!
      const budget = untried.length > 1 ? (deadline - t) / 2 : deadline - t
      try {
        await withDeadline(ready(proxy), Math.max(1, budget))
        this.use(proxy, proxy.room === this.opts.room ? 'same room' : 'no usable same-room proxy')
        return proxy
      } catch (e) {
        lastError = `${proxy.id}: ${reasonOf(e)}`
        this.fail(proxy, reasonOf(e), t, '')
      }
    }
    throw new Error(`${this.opts.clientId} could not start on any proxy (${lastError})`)
  }

  /**
   * Every proxy failed to start once: the first whose library client starts by `deadline`; a start
   * that fails is tried again 200 ms later, one that hangs is waited for.
   */
  private async firstToStart(
    proxies: ProxyCandidate[],
    ready: (proxy: ProxyCandidate) => Promise<void>,
    deadline: number,
    signal: AbortSignal
  ): Promise<ProxyCandidate> {
    const done = new AbortController()
    const stop = (): void => done.abort()
    signal.addEventListener('abort', stop, { once: true })
    let last: unknown = new Error('no proxy started')
    const keepTrying = async (proxy: ProxyCandidate): Promise<ProxyCandidate> => {
      while (!done.signal.aborted) {
        try {
          await ready(proxy)
          return proxy
        } catch (e) {
          last = e
          await pause(200, done.signal)
        }
      }
      throw last
    }
    try {
      return await withDeadline(
        Promise.any(proxies.map(keepTrying)),
        Math.max(1, deadline - this.clock.now())
      )
    } catch (e) {
      // Out of time: say why the last start failed too (a hung one says nothing).
      throw e instanceof AggregateError
        ? last
        : new Error(`${reasonOf(e)}; last start failed: ${reasonOf(last)}`)
    } finally {
      done.abort()
      signal.removeEventListener('abort', stop)
    }
  }

  /** Uses `proxy` from now on, logging the change. */
  use(proxy: ProxyCandidate, reason: string): void {
    if (this.currentProxy?.id === proxy.id) return
    this.currentProxy = proxy
    this.deps.ledger.event('broker-choice', this.opts.clientId, this.opts.room, {
      brokerName: proxy.id,
      brokerRoom: proxy.room,
      reason: `proxy ${proxy.id} (${reason})`
    })
    this.emit('change', proxy)
  }

  /**
   * Marks `proxy` failed and moves to the best other one. Logs one failover per change of proxy
   * (not one per in-flight request that saw the same failure). Returns the proxy to use next.
   */
  fail(
    proxy: ProxyCandidate,
    reason: string,
    attemptStartedAt: number,
    key: string
  ): ProxyCandidate {
    if (
      this.faults.isolate({
        brokerName: proxy.id,
        address: proxy.address,
        room: proxy.room,
        reason,
        since: this.clock.now()
      })
    ) {
      this.deps.ledger.event('broker-isolated', this.opts.clientId, this.opts.room, {
        brokerName: proxy.id,
        brokerRoom: proxy.room,
        reason
      })
    }
    const next = this.ranked()[0] ?? proxy
    if (this.currentProxy?.id === proxy.id && next.id !== proxy.id) {
      this.deps.ledger.event('broker-failover', this.opts.clientId, this.opts.room, {
        from: proxy.id,
        fromRoom: proxy.room,
        to: next.id,
        toRoom: next.room,
        reason,
        durationMs: Math.round((this.clock.now() - attemptStartedAt) * 10) / 10,
        key
      })
      this.currentProxy = next
      this.emit('change', next)
    }
    return this.currentProxy ?? next
  }

  /** Lifts a proxy's isolation after a successful probe; fails back when it ranks first again. */
  recover(proxy: ProxyCandidate): void {
    const entry = this.faults.recover(proxy.id)
    if (!entry) return
    this.deps.ledger.event('broker-recovered', this.opts.clientId, this.opts.room, {
      brokerName: proxy.id,
      brokerRoom: proxy.room,
      isolatedMs: Math.round(this.clock.now() - entry.since)
    })
    const best = this.ranked()[0]
    if (best && best.id !== this.currentProxy?.id) this.use(best, 'recovered')
  }

  /** Isolated proxies due for a probe that the management node does not report down. */
  dueForProbe(intervalMs: number): ProxyCandidate[] {
    const byId = new Map(this.proxies().map((p) => [p.id, p]))
    return this.faults.dueForProbe(this.clock.now(), intervalMs).flatMap((f) => {
      f.lastProbeAt = this.clock.now()
      const p = byId.get(f.brokerName)
      return p && p.available !== false ? [p] : []
    })
  }
}
