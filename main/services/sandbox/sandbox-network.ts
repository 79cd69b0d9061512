import type { NetworkFault } from '../../../common/scenario/schema'
import type { Topology } from '../../../common/topology/schema'
import type { ActiveFault, HealSelector } from '../network/faults'
import type { NetworkLab } from '../network/lab'
import type { EffectiveLink } from '../network/links'
import type { NetworkSupport } from '../network/support'
import { chooseNetworkMode } from '../network/support'

/** The network the sandbox is running, as the UI and a run see it. */
export interface NetworkStatus {
  mode: 'namespaces' | 'loopback'
  /** Why network faults are unavailable (loopback mode); the UI greys them out with it. */
  faultsDisabled: string | null
  /** The one line said at start when something is missing (e.g. latency faults disabled). */
  notice: string | null
  links: EffectiveLink[]
  faults: ActiveFault[]
}

export interface SandboxNetworkDeps {
  lab: NetworkLab
  /** Cached detectNetworkSupport: whether namespaces work here, and what is missing otherwise. */
  support: () => Promise<NetworkSupport>
}

/** Where a node runs: its address, and the argv prefix that runs a command in its namespace. */
export interface Placement {
  host: string
  prefix: string[]
}

/** A topology whose nodes are attached to an operator's cluster stays on this machine's network. */
const ATTACHED_NOTICE =
  'rooms share this machine’s network: the topology attaches to nodes DR Studio does not run, which the room namespaces could not reach'

/**
 * The sandbox's view of rooms as networks: decides the mode for a topology, brings the lab up for
 * every node and client worker DR Studio starts, and applies network faults. In loopback mode it
 * places nothing and refuses faults with the reason.
 */
export class SandboxNetwork {
  private state: NetworkStatus = loopbackStatus(
    'network faults need rooms as namespaces; start the sandbox first'
  )

  constructor(private readonly deps?: SandboxNetworkDeps) {}

  status(): NetworkStatus {
    if (this.state.mode === 'namespaces' && this.deps?.lab.current) {
      return { ...this.state, links: this.deps.lab.links(), faults: this.deps.lab.activeFaults() }
    }
    return { ...this.state }
  }

  /**
   * Chooses the mode (`topology.network.mode`, default auto) and, for namespaces, brings up one
   * namespace per room and one per listed node (servers and client workers).
   */
  async up(
    topology: Topology,
    nodes: readonly { id: string; room: string }[],
    anyAttached: boolean
  ): Promise<NetworkStatus> {
    const setting = topology.network?.mode ?? 'auto'
    if (!this.deps || setting === 'loopback' || anyAttached) {
      const why =
        setting === 'loopback'
          ? 'network faults need network.mode "auto" or "namespaces" (this topology says "loopback")'
          : anyAttached
            ? 'network faults are off for topologies with attached nodes'
            : 'network faults are off: this sandbox was started without a network lab'
      if (setting === 'namespaces' && (anyAttached || !this.deps)) {
        throw new Error(
          `network.mode is "namespaces" but ${anyAttached ? 'the topology attaches to nodes DR Studio does not run' : 'this shell has no network lab'}; set network.mode to "auto" or "loopback"`
        )
      }
      this.state = { ...loopbackStatus(why), notice: anyAttached ? ATTACHED_NOTICE : null }
      return this.status()
    }
    const choice = chooseNetworkMode(setting, await this.deps.support())
    if (choice.mode === 'error') throw new Error(choice.error)
    if (choice.mode === 'loopback') {
      this.state = { ...loopbackStatus(choice.faultsDisabled), notice: choice.notice }
      return this.status()
    }
    const plan = await this.deps.lab.plan({
      rooms: topology.rooms.map((r) => r.id),
      nodes,
      ...(topology.network ? { network: topology.network } : {})
    })
    await this.deps.lab.up(plan)
    this.state = {
      mode: 'namespaces',
      faultsDisabled: null,
      notice: choice.notice,
      links: [],
      faults: []
    }
    return this.status()
  }

  /** A node's place in the lab; null on loopback (the sandbox then allocates loopback ports). */
  placement(nodeId: string): Placement | null {
    const lab = this.deps?.lab
    if (this.state.mode !== 'namespaces' || !lab?.current) return null
    return { host: lab.addressOf(nodeId), prefix: lab.spawnPrefix(nodeId) }
  }

  /** The argv prefix for a client worker of the lab (none on loopback). */
  prefixFor(id: string): string[] {
    return this.placement(id)?.prefix ?? []
  }

  /** Applies a network fault (heal included); refuses with the reason when faults are off. */
  async apply(step: NetworkFault): Promise<ActiveFault[]> {
    const lab = this.requireLab(step.action)
    if (step.action === 'heal') {
      const selector: HealSelector = {
        ...(step.target !== undefined ? { target: step.target } : {}),
        ...(step.peer !== undefined ? { peer: step.peer } : {})
      }
      return lab.heal(selector)
    }
    return [await lab.apply(step)]
  }

  /** Heals every network fault (end of a run, Stop). */
  async healAll(): Promise<ActiveFault[]> {
    if (this.state.mode !== 'namespaces' || !this.deps?.lab.current) return []
    return this.deps.lab.heal()
  }

  async down(): Promise<void> {
    if (this.deps?.lab.current) await this.deps.lab.down()
    this.state = loopbackStatus('network faults need rooms as namespaces; start the sandbox first')
  }

  /** For process exit handlers: removes namespaces, rules and the delay router synchronously. */
  downSync(): void {
    if (this.deps?.lab.current) this.deps.lab.downSync()
  }

  private requireLab(action: string): NetworkLab {
    const lab = this.deps?.lab
    if (this.state.mode !== 'namespaces' || !lab?.current) {
      throw new Error(`${action}: ${this.state.faultsDisabled ?? 'network faults are off'}`)
    }
    return lab
  }
}

function loopbackStatus(faultsDisabled: string): NetworkStatus {
  return { mode: 'loopback', faultsDisabled, notice: null, links: [], faults: [] }
}
