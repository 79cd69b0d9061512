import type { NetworkFault } from '../../../common/scenario/schema'
import type { SelectorContext } from '../export/chaos-mesh/chaos-objects'
import { windowLabel } from '../export/chaos-mesh/chaos-objects'
import type { PairBase, PairChaos } from '../export/chaos-mesh/link-merge'
import type { IsolateChaos } from '../export/chaos-mesh/timeline-windows'
import {
  afterNetworkFault,
  desiredNetwork,
  networkEnds
} from '../export/chaos-mesh/timeline-windows'
import type { ActiveFault } from '../network/faults'
import type { ChaosFaults, ChaosTiming } from './chaos-faults'
import { liveChaosName, liveChaosObject } from './chaos-faults'
import type { KubeObject } from './kube-api'

/** One Chaos Mesh object of the run's network, as it took effect or healed. */
export interface ChaosEvent {
  phase: 'injected' | 'healed'
  /** e.g. `partition-room1-room2`. */
  label: string
  timing: ChaosTiming
}

export interface ChaosNetworkDeps {
  faults: ChaosFaults
  selector: SelectorContext
  runId: string
  /** The topology's configured room links (export's configuredBase): always in place. */
  base: ReadonlyMap<string, PairBase>
  /** Server node ids: with the rooms, what a network fault may name. */
  serverNodes: ReadonlySet<string>
  /** Per object, to take effect and to heal. */
  timeoutMs: number
  now(): number
}

type Wanted = PairChaos | IsolateChaos

/**
 * A run's network faults on Kubernetes: after each fault or heal, the set of Chaos Mesh objects
 * that expresses every fault in effect (one object per room pair with the pair's combined state,
 * since two objects on the same pods overwrite each other, chaos-mesh#3631) is reached by deleting
 * the objects no longer wanted, waiting until they are gone, and then creating the new ones and
 * waiting until each is in effect. The same per-pair merge as the export (timeline-windows.ts).
 */
export class ChaosNetwork {
  private active: ActiveFault[] = []
  private readonly open = new Map<string, KubeObject>()
  private faultSeq = 0
  private objectSeq = 0
  private queue: Promise<unknown> = Promise.resolve()
  private readonly listeners = new Set<(e: ChaosEvent) => void>()

  constructor(private readonly deps: ChaosNetworkDeps) {}

  /** Hears every object taking effect or healing; returns the unsubscribe. */
  listen(fn: (e: ChaosEvent) => void): () => void {
    this.listeners.add(fn)
    return () => this.listeners.delete(fn)
  }

  /** The faults in effect (what `ClusterPort.network()` lists). */
  faults(): readonly ActiveFault[] {
    return this.active
  }

  /** Puts the configured links in place (a topology's 20 ms between rooms is a delay object). */
  start(): Promise<void> {
    return this.serial(() => this.reach([]))
  }

  /** Applies one fault or heal; throws (after healing what it began) if Chaos Mesh does not take it. */
  apply(fault: NetworkFault): Promise<void> {
    return this.serial(async () => {
      if (fault.action !== 'heal') {
        for (const id of networkEnds(fault)) this.checkEnd(id)
      }
      const previous = this.active
      const next = afterNetworkFault(previous, fault, `k${++this.faultSeq}`, this.deps.now())
      try {
        await this.reach(next)
      } catch (e) {
        // What is in effect is what took effect: back to the faults before this one, whose
        // objects a failed change may have healed (the error says what went wrong).
        await this.reach(previous).catch(() => undefined)
        throw e
      }
    })
  }

  /** Deletes every object of the run's network, configured links included. */
  close(): Promise<void> {
    return this.serial(async () => {
      this.active = []
      await this.heal([...this.open.keys()])
    })
  }

  private checkEnd(id: string): void {
    if (this.deps.selector.rooms.has(id) || this.deps.serverNodes.has(id)) return
    throw new Error(
      `"${id}" is neither a room nor a server node: on Kubernetes a network fault names a room (${[...this.deps.selector.rooms].join(', ')}) or a server node, as clients share their room worker's pod`
    )
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn)
    this.queue = run.catch(() => undefined)
    return run
  }

  /** Heals what is no longer wanted, then injects what is new; `active` becomes `next`. */
  private async reach(next: ActiveFault[]): Promise<void> {
    const wanted = new Map<string, Wanted>(
      desiredNetwork(next, this.deps.base).map((c) => [JSON.stringify(c), c])
    )
    await this.heal([...this.open.keys()].filter((k) => !wanted.has(k)))
    this.active = next
    const created = [...wanted].filter(([k]) => !this.open.has(k))
    const results = await Promise.allSettled(created.map(([k, c]) => this.inject(k, c)))
    const failed = results.flatMap((r) =>
      r.status === 'rejected' ? [(r.reason as Error).message] : []
    )
    if (failed.length) throw new Error(failed.join('; '))
  }

  private async inject(key: string, chaos: Wanted): Promise<void> {
    const window = { kind: 'network' as const, chaos, startMs: 0, endMs: 0 }
    const object = liveChaosObject(
      this.deps.selector,
      window,
      liveChaosName(this.deps.runId, ++this.objectSeq, window),
      this.deps.runId
    )
    const timing = await this.deps.faults.inject({
      runId: this.deps.runId,
      object,
      timeoutMs: this.deps.timeoutMs
    })
    this.open.set(key, object)
    this.emit({ phase: 'injected', label: windowLabel(window), timing })
  }

  private emit(e: ChaosEvent): void {
    for (const l of this.listeners) l(e)
  }

  private async heal(keys: string[]): Promise<void> {
    const errors: string[] = []
    await Promise.all(
      keys.map(async (key) => {
        const object = this.open.get(key)!
        try {
          const timing = await this.deps.faults.heal({ object, timeoutMs: this.deps.timeoutMs })
          this.open.delete(key)
          const chaos = JSON.parse(key) as Wanted
          this.emit({
            phase: 'healed',
            label: windowLabel({ kind: 'network', chaos, startMs: 0, endMs: 0 }),
            timing
          })
        } catch (e) {
          errors.push((e as Error).message)
        }
      })
    )
    if (errors.length) throw new Error(errors.join('; '))
  }
}
