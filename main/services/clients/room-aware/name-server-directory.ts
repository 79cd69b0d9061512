import type { LedgerEventData } from '../../../../common/scenario/events'
import type { LedgerPort } from '../../ledger/types'
import type { NameServerCandidate } from './choose-name-server'
import type { Clock, ManagementAnswer, ManagementNodeRef, ManagementPort } from './ports'
import { systemClock } from './ports'

export interface NameServerDirectoryOptions {
  clientId: string
  room: string
  /** Management nodes of all rooms; the client's own room's are asked first. */
  managementNodes: readonly ManagementNodeRef[]
  refreshMs: number
  timeoutMs: number
  /** A list to start from (static discovery, or a previous run's). */
  initialNameServers?: readonly NameServerCandidate[]
  /** Minimum gap between two on-demand refreshes, so a burst of failures asks once. */
  minGapMs?: number
}

/**
 * Module 601: the available name servers of all rooms, from the own room's management node, or a
 * static list (initialNameServers) when the topology gives no management node.
 * When that node is unreachable the last list is kept and other rooms' nodes are asked instead
 * (a recorded fallback); the own room is tried first again on every refresh.
 */
export class NameServerDirectory {
  private list: NameServerCandidate[]
  private source: ManagementNodeRef | null = null
  private inFallback = false
  private fallbackTo: string | null | undefined
  private inflight: Promise<boolean> | undefined
  private lastRefreshAt = -Infinity
  private timer: NodeJS.Timeout | undefined
  private signature = ''
  private answer: ManagementAnswer | undefined
  private readonly clock: Clock

  constructor(
    private readonly opts: NameServerDirectoryOptions,
    private readonly deps: { management: ManagementPort; ledger: LedgerPort; clock?: Clock }
  ) {
    this.list = [...(opts.initialNameServers ?? [])]
    this.clock = deps.clock ?? systemClock
  }

  /** The last known list (possibly stale while every management node is down). */
  current(): NameServerCandidate[] {
    return this.list
  }

  /** The whole last answer (the gRPC lane reads its proxies from it). */
  lastAnswer(): ManagementAnswer | undefined {
    return this.answer
  }

  /** The management node the list came from, and whether it is another room's. */
  get origin(): { node: ManagementNodeRef | null; fallback: boolean } {
    return { node: this.source, fallback: this.inFallback }
  }

  start(): void {
    if (this.timer) return
    this.timer = setInterval(() => void this.refresh('periodic'), this.opts.refreshMs)
    this.timer.unref?.()
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
  }

  /** Refreshes now (deduplicated); resolves true when some management node answered. */
  refresh(reason: string): Promise<boolean> {
    if (this.inflight) return this.inflight
    if (reason !== 'periodic' && reason !== 'start') {
      if (this.clock.now() - this.lastRefreshAt < (this.opts.minGapMs ?? 100))
        return Promise.resolve(true)
    }
    this.inflight = this.doRefresh().finally(() => {
      this.inflight = undefined
      this.lastRefreshAt = this.clock.now()
    })
    return this.inflight
  }

  private async doRefresh(): Promise<boolean> {
    // Static discovery (an attached cluster, rooms without management nodes): the list is the
    // topology's, ordered by the method; there is nobody to ask and nothing to fall back from.
    if (this.opts.managementNodes.length === 0) return this.list.length > 0
    const { room } = this.opts
    const own = this.opts.managementNodes.filter((n) => n.room === room)
    const others = this.opts.managementNodes.filter((n) => n.room !== room)
    let ownError = own.length === 0 ? `room ${room} has no management node` : ''
    for (const node of own) {
      try {
        const answer = await this.deps.management.fetchNameServers(node, this.opts.timeoutMs)
        this.inFallback = false
        this.fallbackTo = undefined
        this.accept(node, answer)
        return true
      } catch (e) {
        ownError = `${node.id}: ${(e as Error).message}`
      }
    }
    for (const node of others) {
      try {
        const answer = await this.deps.management.fetchNameServers(node, this.opts.timeoutMs)
        this.noteFallback(node.room, ownError)
        this.inFallback = true
        this.accept(node, answer)
        return true
      } catch {
        // try the next room's
      }
    }
    this.noteFallback(null, ownError)
    return false
  }

  private noteFallback(toRoom: string | null, reason: string): void {
    if (this.fallbackTo === toRoom) return
    this.fallbackTo = toRoom
    this.deps.ledger.event('management-fallback', this.opts.clientId, this.opts.room, {
      fromRoom: this.opts.room,
      toRoom,
      reason
    })
  }

  private accept(node: ManagementNodeRef, answer: ManagementAnswer): void {
    const list = answer.nameServers
    this.answer = answer
    this.list = list
    this.source = node
    const sig = `${node.id}|${list.map((n) => `${n.id}:${n.available !== false}`).join(',')}`
    if (sig === this.signature) return
    this.signature = sig
    const row = this.listRow()
    if (row) this.deps.ledger.event('namesrv-list', this.opts.clientId, this.opts.room, row)
  }

  /** The current list as its `namesrv-list` ledger row; undefined before any answer. */
  listRow(): LedgerEventData['namesrv-list'] | undefined {
    if (!this.source) return undefined
    return {
      managementRoom: this.source.room,
      fallback: this.inFallback,
      available: this.list
        .filter((n) => n.available !== false)
        .map((n) => ({ id: n.id, room: n.room, address: n.address }))
    }
  }
}
