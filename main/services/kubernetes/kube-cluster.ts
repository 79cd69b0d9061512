import type { NodeAction, NodeState } from '../../../common/contract/sandbox'
import { checkAction } from '../../../common/contract/node-actions'
import type { FaultAction, NetworkFault } from '../../../common/scenario/schema'
import { listNodes } from '../../../common/topology/model'
import type { Topology } from '../../../common/topology/schema'
import type { ChaosObjectEvent, ClusterNode, ClusterPort } from '../engine/run/cluster-port'
import type { ChaosTiming } from './chaos-faults'
import { DEFAULT_PORTS } from '../export/placeholders'
import { k8sName, NODE_LABEL, serviceHost } from '../export/kubernetes/names'
import type { ChaosNetwork } from './chaos-network'
import type { KubeObject, KubeRunPorts } from './kube-api'
import { RUN_LABEL } from './kube-api'
import type { ExecResult, ExecTarget } from './kube-exec'

/**
 * What a pause does inside a server pod: SIGSTOP to every process of the container but its init,
 * which is the image's start script, whose JVM is a child (`kill -1` spares the caller and pid 1).
 */
export const PAUSE_COMMAND = ['sh', '-c', 'kill -STOP -1'] as const
export const RESUME_COMMAND = ['sh', '-c', 'kill -CONT -1'] as const
/** A crash: SIGKILL, so no shutdown hook runs (a broker does not unregister, as after a power cut). */
export const KILL_COMMAND = ['sh', '-c', 'kill -KILL -1'] as const

export interface KubeClusterDeps extends KubeRunPorts {
  namespace: string
  runId: string
  topology: Topology
  exec(target: ExecTarget, command: readonly string[]): Promise<ExecResult>
  network: ChaosNetwork
  /**
   * Where clients reach a node, when not at its Service (`NODE.NS.svc:port`): only the API-server
   * stand-in's tests, whose pod network is this machine's loopback, set it.
   */
  addressOf?: (nodeId: string) => string | undefined
}

interface ServerEntry {
  nodeId: string
  kind: string
  room: string
  /** Workload, Service and `drstudio.io/node` label. */
  name: string
  /** Management nodes are Deployments (server-objects.ts); the rest StatefulSets. */
  workload: 'StatefulSet' | 'Deployment'
  address: string
  state: NodeState
  /** A state the pod cannot show: set by an action of the run, cleared by the one undoing it. */
  held?: 'killed' | 'stopped' | 'paused'
}

type NodeStateListener = (s: ClusterNode & { detail?: string }) => void

const timingFields = (t: ChaosTiming) => ({
  requestedAt: t.requestedAt,
  observedAt: t.observedAt,
  boundMs: t.boundMs,
  ...(t.chaosMeshAt ? { chaosMeshAt: t.chaosMeshAt } : {})
})

const READY = (pod: KubeObject): boolean =>
  !pod.metadata.deletionTimestamp &&
  (
    (pod.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ??
    []
  ).some((c) => c.type === 'Ready' && c.status === 'True')

/** The exec stream ends without a status when the container dies under it: a kill that worked. */
const CUT_BY_THE_KILL = /the stream ended before the command's status/

/**
 * A topology deployed on Kubernetes, as a run sees it (`ClusterPort`): each server node is its
 * workload's one pod (a StatefulSet's; a management node's Deployment's), found by its
 * `drstudio.io/node` label and up when Ready. Kill sends SIGKILL through exec, scales the workload
 * to zero (so it does not come back until started) and deletes the pod without a grace period; stop
 * scales to zero and lets the pod shut down; start scales back to one; pause and resume signal the
 * pod's processes through exec; network faults are Chaos Mesh objects (ChaosNetwork). Node states
 * are polled.
 */
export class KubeCluster implements ClusterPort {
  private readonly servers = new Map<string, ServerEntry>()
  /** A node's address or Service host → its workload name (the node label). */
  private readonly hosts = new Map<string, string>()
  /** A pod IP → that pod (a restarted pod has a new one). */
  private readonly podIps = new Map<string, string>()
  /** A workload name → its current pod (Ready first, never one being deleted). */
  private readonly pods = new Map<string, string>()
  private readonly listeners = new Set<NodeStateListener>()
  private polling: Promise<void> | undefined
  private stopped = false
  /** Counts actions: a pod list read before the latest one does not set states. */
  private actions = 0

  constructor(private readonly deps: KubeClusterDeps) {
    for (const n of listNodes(deps.topology)) {
      if (n.kind === 'producer' || n.kind === 'consumer') continue
      const name = k8sName(n.id)
      const port = (n.spec as { port?: number }).port ?? DEFAULT_PORTS[n.kind]
      const host = serviceHost(name, deps.namespace)
      const address = deps.addressOf?.(n.id) ?? `${host}:${port}`
      this.servers.set(n.id, {
        nodeId: n.id,
        kind: n.kind,
        room: n.room,
        name,
        workload: n.kind === 'management' ? 'Deployment' : 'StatefulSet',
        address,
        state: 'starting'
      })
      this.hosts.set(host, name)
      this.hosts.set(address, name)
    }
  }

  status(): { nodes: ClusterNode[] } {
    return {
      nodes: [...this.servers.values()].map((s) => ({
        nodeId: s.nodeId,
        kind: s.kind,
        room: s.room,
        state: s.state,
        address: s.address
      }))
    }
  }

  /**
   * The run's pod behind a cluster address (a node's address, its Service name or a pod IP on any
   * port), for the tunnel; pods are read again once when it is not known yet.
   */
  async podOfAddress(host: string, port: number): Promise<string | null> {
    const known = () => {
      const name = this.hosts.get(`${host}:${port}`) ?? this.hosts.get(host)
      return (name ? this.pods.get(name) : undefined) ?? this.podIps.get(host)
    }
    if (known()) return known()!
    await this.refresh()
    return known() ?? null
  }

  /** Reads the run's pods once and updates every node's state; listeners hear the changes. */
  async refresh(): Promise<void> {
    const epoch = this.actions
    const pods = await this.deps.api.list(
      { apiVersion: 'v1', kind: 'Pod' },
      this.deps.namespace,
      `${RUN_LABEL}=${this.deps.runId}`
    )
    const live = pods.filter((p) => !p.metadata.deletionTimestamp)
    for (const pod of live) {
      const ip = (pod.status as { podIP?: string } | undefined)?.podIP
      if (ip) this.podIps.set(ip, pod.metadata.name)
    }
    for (const s of this.servers.values()) {
      const own = live.filter((p) => p.metadata.labels?.[NODE_LABEL] === s.name)
      const current = own.find(READY) ?? own[0]
      if (current) this.pods.set(s.name, current.metadata.name)
      // An action since the list was asked for knows better than the list.
      if (epoch !== this.actions) continue
      this.set(s, s.held ?? (own.some(READY) ? 'up' : own.length ? 'starting' : 'down'))
    }
  }

  async act(nodeId: string, action: FaultAction): Promise<void> {
    const s = this.servers.get(nodeId)
    if (!s) throw new Error(`${nodeId} is not a server node of ${this.deps.topology.name}`)
    const check = checkAction(s.state, action as NodeAction)
    if (!check.ok) throw new Error(`cannot ${action} ${nodeId}: ${check.reason}`)
    if (check.noop) return
    if (action === 'restart') {
      if (s.state !== 'killed' && s.state !== 'stopped' && s.state !== 'down') {
        await this.act(nodeId, 'kill')
      }
      return this.act(nodeId, 'start')
    }
    this.actions++
    const before = { state: s.state, held: s.held }
    let caveat: string | undefined
    try {
      caveat = await this.perform(s, action)
    } catch (e) {
      // What the pod does is unknown after a failed call: the next poll tells.
      s.held = before.held
      if (!s.held) delete s.held
      this.set(s, before.state)
      throw e
    }
    // Done, but not as asked: the run records the fault with this as its error.
    if (caveat) throw new Error(caveat)
  }

  /** Does the action; returns what makes it not quite the fault asked for (it still happened). */
  private async perform(s: ServerEntry, action: FaultAction): Promise<string | undefined> {
    const { namespace } = this.deps
    const workload = { apiVersion: 'apps/v1', kind: s.workload, name: s.name, namespace }
    if (action === 'start') {
      delete s.held
      this.set(s, 'starting')
      await this.deps.api.scale(workload, 1)
      return undefined
    }
    if (!this.pods.has(s.name)) await this.refresh()
    const podName = this.pods.get(s.name)
    const target = podName ? { namespace, pod: podName, container: s.kind } : undefined
    switch (action) {
      case 'kill': {
        s.held = 'killed'
        this.set(s, 'killed')
        // SIGKILL first: scaling to zero first would send SIGTERM, and the JVM's shutdown hooks
        // (a broker unregistering) would make the crash a clean stop. Then zero replicas keep it
        // down, and the pod goes without a grace period whatever the signal did.
        const signalled = target
          ? await this.deps.exec(target, KILL_COMMAND).then(
              (r) =>
                r.code === 0 ? null : `exited ${r.code}${r.stderr ? `: ${r.stderr.trim()}` : ''}`,
              (e: Error) => (CUT_BY_THE_KILL.test(e.message) ? null : e.message)
            )
          : 'no pod to signal'
        await this.deps.api.scale(workload, 0)
        if (podName) {
          await this.deps.api.remove(
            { apiVersion: 'v1', kind: 'Pod', name: podName, namespace },
            { gracePeriodSeconds: 0 }
          )
        }
        this.pods.delete(s.name)
        return signalled
          ? `SIGKILL through exec failed (${signalled}); the pod was deleted instead, so its processes got SIGTERM first: a stop more than a crash`
          : undefined
      }
      case 'stop':
        s.held = 'stopped'
        this.set(s, 'stopped')
        await this.deps.api.scale(workload, 0)
        this.pods.delete(s.name)
        return undefined
      case 'pause':
      case 'resume': {
        if (!target) throw new Error(`${s.nodeId} has no pod to ${action}`)
        const r = await this.deps.exec(target, action === 'pause' ? PAUSE_COMMAND : RESUME_COMMAND)
        if (r.code !== 0) {
          throw new Error(
            `${action} through exec in pod ${target.pod} exited ${r.code}${r.stderr ? `: ${r.stderr.trim()}` : ''}`
          )
        }
        if (action === 'pause') s.held = 'paused'
        else delete s.held
        this.set(s, action === 'pause' ? 'paused' : 'up')
        return undefined
      }
      default:
        throw new Error(`${action} is not a node action`)
    }
  }

  applyNetworkFault(step: NetworkFault): Promise<void> {
    return this.deps.network.apply(step)
  }

  network(): { mode: string; faultsDisabled: string | null; faults: readonly unknown[] } {
    return { mode: 'chaos-mesh', faultsDisabled: null, faults: this.deps.network.faults() }
  }

  watch(fns: { nodeState?: NodeStateListener; chaos?: (e: ChaosObjectEvent) => void }): () => void {
    const chaos = fns.chaos
    const unlisten = chaos
      ? this.deps.network.listen((e) =>
          chaos({
            phase: e.phase,
            object: e.timing.name,
            label: e.label,
            ...timingFields(e.timing)
          })
        )
      : () => undefined
    const listener = fns.nodeState
    if (listener) {
      this.listeners.add(listener)
      this.polling ??= this.poll()
    }
    return () => {
      unlisten()
      if (listener) this.listeners.delete(listener)
    }
  }

  /** Stops polling and heals every network fault; node states stay as they are (teardown follows). */
  async close(): Promise<void> {
    this.stopped = true
    await this.polling
    await this.deps.network.close()
  }

  private async poll(): Promise<void> {
    while (!this.stopped) {
      await this.refresh().catch(() => undefined)
      await this.deps.sleep(this.deps.pollMs ?? 1000)
    }
  }

  private set(s: ServerEntry, state: NodeState): void {
    if (s.state === state) return
    s.state = state
    for (const l of this.listeners) {
      l({ nodeId: s.nodeId, kind: s.kind, room: s.room, state, address: s.address })
    }
  }
}
