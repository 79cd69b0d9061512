import { listNodes } from '../../../common/topology/model'
import type { Topology } from '../../../common/topology/schema'
import type { Clock, ManagementPort } from '../clients/room-aware/ports'
import { httpManagement, pause } from '../clients/room-aware/ports'
import type { RunDeps } from '../engine/run/run-wiring'
import { configuredBase } from '../export/chaos-mesh/timeline-windows'
import type { Recorder } from '../ledger/recorder'
import { parseAddress } from '../remoting/connection'
import { RemotingRpc } from '../remoting/remoting-rpc'
import { ChaosFaults } from './chaos-faults'
import { ChaosNetwork } from './chaos-network'
import { KubeCluster } from './kube-cluster'
import { execInPod } from './kube-exec'
import { KubeHttp, type KubeEndpoint } from './kube-http'
import { PodTunnel } from './kube-port-forward'
import { kubeWorkers, workerPods } from './kube-workers'

/** A run's ports on a deployed topology, and what closes them. */
export interface KubeRunDeps {
  deps: RunDeps
  cluster: KubeCluster
  /** Heals the run's network faults, closes the tunnel; the deployment's teardown follows. */
  close(): Promise<void>
}

/** The management nodes' HTTP, through the tunnel; errors name the cluster's URL, not loopback. */
function tunnelledManagement(tunnel: PodTunnel): ManagementPort {
  return {
    async fetchNameServers(node, timeoutMs) {
      const url = new URL(node.url)
      const local = await tunnel.localAddress(url.hostname, Number(url.port || 80))
      try {
        return await httpManagement.fetchNameServers({ ...node, url: `http://${local}` }, timeoutMs)
      } catch (e) {
        throw new Error(`${node.url}: ${(e as Error).message.replace(`http://${local}/`, '')}`)
      }
    }
  }
}

/**
 * Everything a run needs to run a scenario on a topology `ClusterDeployment` has deployed: the
 * cluster port (node actions, states, Chaos Mesh network faults), room workers attached in their
 * pods, and the engine's own remoting and management calls through a port-forward tunnel, so the
 * engine needs no route into the pod network and no fault between rooms can cut it off.
 */
export async function openKubeRun(input: {
  endpoint: KubeEndpoint
  namespace: string
  runId: string
  topology: Topology
  engine: string
  recorder: Recorder
  clock: Clock
  logDir: string
  faultTimeoutMs: number
  /** The API-server stand-in's tests only (KubeClusterDeps.addressOf). */
  addressOf?: (nodeId: string) => string | undefined
}): Promise<KubeRunDeps> {
  const { endpoint, namespace, runId, topology } = input
  const api = new KubeHttp(endpoint)
  const ports = { api, engine: input.engine, now: () => input.clock.now(), sleep: pause }
  const network = new ChaosNetwork({
    faults: new ChaosFaults(ports),
    selector: { namespace, rooms: new Set(topology.rooms.map((r) => r.id)) },
    runId,
    base: configuredBase(topology),
    serverNodes: new Set(
      listNodes(topology)
        .filter((n) => n.kind !== 'producer' && n.kind !== 'consumer')
        .map((n) => n.id)
    ),
    timeoutMs: input.faultTimeoutMs,
    now: ports.now
  })
  const cluster = new KubeCluster({
    ...ports,
    pollMs: 1000,
    namespace,
    runId,
    topology,
    exec: (target, command) => execInPod(endpoint, target, command),
    network,
    ...(input.addressOf ? { addressOf: input.addressOf } : {})
  })
  await cluster.refresh()
  const tunnel = new PodTunnel(endpoint, namespace, (host, port) =>
    cluster.podOfAddress(host, port)
  )
  const close = async () => {
    await cluster.close().catch(() => undefined)
    await tunnel.close()
  }
  try {
    // The topology's configured links between rooms: a delay object per pair, all run long.
    await network.start()
    const pods = await workerPods(api, namespace, runId)
    const route = async (host: string, port: number) =>
      parseAddress(await tunnel.localAddress(host, port))
    return {
      cluster,
      close,
      deps: {
        recorder: input.recorder,
        cluster,
        workers: kubeWorkers({ endpoint, api, namespace, pods, logDir: input.logDir }),
        management: tunnelledManagement(tunnel),
        admin: () => new RemotingRpc({ route }),
        clock: input.clock
      }
    }
  } catch (e) {
    await close()
    throw e
  }
}
