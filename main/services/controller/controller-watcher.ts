import type { LedgerPort } from '../ledger/types'
import type { RemotingRpc } from '../remoting/remoting-rpc'
import type { ControllerView, GroupView, NodeRef } from './controller-view'
import { EMPTY_VIEW, diffViews, groupViewOf, merge } from './controller-view'

/** A controller of the quorum, as the sandbox lists it (address = where brokers reach it). */
export interface WatchedController {
  nodeId: string
  room: string
  address: string
  selfId: string
}

/** A controller-mode replica and the group (brokerName) it belongs to. */
export interface WatchedReplica {
  nodeId: string
  room: string
  address: string
  group: string
}

/** The reads the watcher makes; RemotingRpc has them all. */
export type WatcherRpc = Pick<
  RemotingRpc,
  'getControllerMetadata' | 'getSyncStateData' | 'getBrokerRuntimeInfo' | 'getMaxOffset'
>

export interface ControllerWatcherOptions {
  controllers: () => readonly WatchedController[]
  replicas: () => readonly WatchedReplica[]
  groups: readonly string[]
  /** Topics whose queue offsets the RPO samples read (the run's topics). */
  topics: () => readonly { topic: string; queues: number }[]
  intervalMs?: number
  /** How often each replica is asked whether it acts as master (split-brain detection). */
  rolesEveryMs?: number
  timeoutMs?: number
}

/**
 * Watches the controller quorum during a run: the leader, every group's master, epoch and
 * SyncStateSet (from the leader), and which replicas act as master by their own account, and
 * records every change in the ledger. At an election it samples the new master's queue offsets;
 * the run asks for a sample of the surviving replicas when a fault hits a master (RPO figures).
 */
export class ControllerWatcher {
  private current: ControllerView = EMPTY_VIEW
  private timer: NodeJS.Timeout | undefined
  private running = false
  private polling: Promise<void> | undefined
  private lastRolesAt = -Infinity
  private first = true
  private readonly samples = new Set<Promise<void>>()

  constructor(
    private readonly opts: ControllerWatcherOptions,
    private readonly deps: { rpc: WatcherRpc; ledger: LedgerPort; now: () => number }
  ) {}

  /** The last view (leader, masters, SyncStateSets); empty before the first poll. */
  view(): ControllerView {
    return this.current
  }

  masterOf(group: string): string | null {
    return this.current.groups[group]?.master ?? null
  }

  leader(): string | null {
    return this.current.leader
  }

  /** Polls once now (the first poll records the initial state), then every intervalMs. */
  async start(): Promise<void> {
    if (this.running) return
    this.running = true
    await this.tick()
  }

  /** Stops polling; waits for the poll and samples in flight, so their rows are written. */
  async stop(): Promise<void> {
    if (!this.running) return
    this.running = false
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    await this.polling?.catch(() => undefined)
    await Promise.allSettled([...this.samples])
  }

  /** One poll, then the next is scheduled; exposed so callers can force a fresh view. */
  poll(): Promise<void> {
    this.polling ??= this.read().finally(() => (this.polling = undefined))
    return this.polling
  }

  private async tick(): Promise<void> {
    await this.poll().catch(() => undefined)
    if (!this.running) return
    this.timer = setTimeout(() => void this.tick(), this.opts.intervalMs ?? 200)
    this.timer.unref?.()
  }

  private resolve(address: string): NodeRef | undefined {
    const r = this.opts.replicas().find((x) => x.address === address)
    if (r) return r
    return this.opts.controllers().find((c) => c.address === address)
  }

  private roomOf(nodeId: string | null): string | null {
    if (!nodeId) return null
    const all = [...this.opts.replicas(), ...this.opts.controllers()]
    return all.find((n) => n.nodeId === nodeId)?.room ?? null
  }

  private async read(): Promise<void> {
    const timeoutMs = this.opts.timeoutMs ?? 600
    const controllers = this.opts.controllers()
    const answers = await Promise.all(
      controllers.map((c) =>
        this.deps.rpc.getControllerMetadata(c.address, { timeoutMs }).catch(() => null)
      )
    )
    const answered = answers.some((a) => a !== null)
    const named = answers.find((a) => a?.leaderAddress)
    const leader = named ? controllers.find((c) => c.address === named.leaderAddress) : undefined
    let groups: Record<string, GroupView> | undefined
    if (leader) {
      const data = await this.deps.rpc
        .getSyncStateData(leader.address, this.opts.groups, { timeoutMs })
        .catch(() => undefined)
      if (data) {
        groups = {}
        for (const g of this.opts.groups) {
          if (data[g]) groups[g] = groupViewOf(data[g], (a) => this.resolve(a))
        }
      }
    }
    const now = this.deps.now()
    let selfMasters: Record<string, string[]> | undefined
    if (now - this.lastRolesAt >= (this.opts.rolesEveryMs ?? 500)) {
      this.lastRolesAt = now
      selfMasters = await this.readRoles(timeoutMs)
    }
    // No answer at all keeps the last leader; answers without one mean the quorum has none.
    const leaderRead = leader ? { ...leader } : answered ? null : undefined
    const next = merge(this.current, {
      ...(leaderRead !== undefined ? { leader: leaderRead } : {}),
      ...(groups ? { groups } : {}),
      ...(selfMasters ? { selfMasters } : {})
    })
    const events = diffViews(this.current, next, (id) => this.roomOf(id))
    this.current = next
    for (const e of events) {
      this.deps.ledger.event(e.kind, null, e.room, e.data as never)
      if (e.kind === 'master-elected' && e.data.to && !this.first) {
        void this.sample(e.data.group, 'elected', e.data.to).catch(() => undefined)
      }
    }
    this.first = false
  }

  private async readRoles(timeoutMs: number): Promise<Record<string, string[]>> {
    const replicas = this.opts.replicas()
    const active = await Promise.all(
      replicas.map((r) =>
        this.deps.rpc
          .getBrokerRuntimeInfo(r.address, { timeoutMs })
          .then((t) => t.brokerActive === 'true')
          .catch(() => false)
      )
    )
    const out: Record<string, string[]> = {}
    for (const g of this.opts.groups) out[g] = []
    replicas.forEach((r, i) => {
      if (active[i]) out[r.group] = [...(out[r.group] ?? []), r.nodeId].sort()
    })
    return out
  }

  private track(p: Promise<void>): void {
    this.samples.add(p)
    void p.finally(() => this.samples.delete(p))
  }

  /**
   * Records the consume-queue max offsets of a group's replicas for the run's topics: at a fault,
   * of every replica but the master that was hit; at an election, of the new master only.
   */
  sample(group: string, trigger: 'fault' | 'elected', master: string | null): Promise<void> {
    // Tracked, so stop() waits for it and its row lands before the ledger closes.
    const p = this.readOffsets(group, trigger, master)
    this.track(p)
    return p
  }

  private async readOffsets(
    group: string,
    trigger: 'fault' | 'elected',
    master: string | null
  ): Promise<void> {
    const topics = this.opts.topics()
    if (topics.length === 0) return
    const replicas = this.opts
      .replicas()
      .filter(
        (r) =>
          r.group === group && (trigger === 'fault' ? r.nodeId !== master : r.nodeId === master)
      )
    const read = await Promise.all(
      replicas.map(async (r) => {
        try {
          const offsets: Record<string, number> = {}
          for (const t of topics) {
            const values = await Promise.all(
              Array.from({ length: t.queues }, (_, q) =>
                this.deps.rpc.getMaxOffset(
                  r.address,
                  { brokerName: group, topic: t.topic, queueId: q },
                  { timeoutMs: this.opts.timeoutMs ?? 600 }
                )
              )
            )
            values.forEach((v, q) => (offsets[`${t.topic}|${q}`] = v))
          }
          return { nodeId: r.nodeId, room: r.room, offsets }
        } catch {
          return { nodeId: r.nodeId, room: r.room, offsets: null }
        }
      })
    )
    this.deps.ledger.event('replica-offsets', null, this.roomOf(master), {
      group,
      trigger,
      master,
      replicas: read
    })
  }
}
