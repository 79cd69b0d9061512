import { afterEach, describe, expect, it } from 'vitest'
import { listNodes } from '../../../common/topology/model'
import { configuredBase } from '../export/chaos-mesh/timeline-windows'
import { namespaceOf } from '../export/kubernetes/names'
import { kubernetesObjectFiles } from '../export/kubernetes/render-kubernetes'
import { loadScenarioFile } from '../scenario/load-scenario'
import { ChaosFaults } from './chaos-faults'
import { ChaosNetwork } from './chaos-network'
import { ClusterDeployment } from './cluster-deployment'
import { ApiServerStandIn } from './fixtures/api-server-stand-in'
import type { KubeObject } from './kube-api'
import { KILL_COMMAND, KubeCluster, PAUSE_COMMAND, RESUME_COMMAND } from './kube-cluster'
import { execInPod } from './kube-exec'
import { KubeHttp } from './kube-http'

// A deployed topology as a run's ClusterPort, against the API-server STAND-IN (toy scheduler,
// toy Chaos Mesh, exec answered by the test): proves the requests each node action makes, the
// states a run sees and hears, and the address lookup the tunnel uses; not a kubelet's or a
// StatefulSet controller's timing, nor a signal reaching a JVM in a container.

const { topology } = loadScenarioFile('resources/scenarios/room1-brokers-down.yaml')
const namespace = namespaceOf(topology)
let standIn: ApiServerStandIn | undefined
let cluster: KubeCluster | undefined
afterEach(async () => {
  await cluster?.close()
  cluster = undefined
  await standIn?.stop()
  standIn = undefined
})

async function deployed(execCode = 0) {
  const execs: string[] = []
  standIn = new ApiServerStandIn({
    zones: topology.rooms.map((r) => r.id),
    autoReady: true,
    podGraceMs: 30,
    chaos: { injectMs: 20, recoverMs: 20 },
    exec: async (pod, command) => {
      execs.push(`${pod.name}/${pod.container}: ${command.join(' ')}`)
      return execCode ? { code: execCode, stderr: 'sh: not found' } : { code: 0 }
    }
  })
  const endpoint = { server: await standIn.start() }
  const api = new KubeHttp(endpoint)
  const ports = {
    api,
    engine: 'h/1',
    now: () => Date.now(),
    sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
    pollMs: 10
  }
  const objects = kubernetesObjectFiles(topology).files.flatMap((f) => f.objects as KubeObject[])
  await new ClusterDeployment({ ...ports, isEngineAlive: () => true }).deploy({
    runId: 'r3',
    namespace,
    objects,
    readyTimeoutMs: 2000,
    onProgress: () => {}
  })
  const rooms = new Set(topology.rooms.map((r) => r.id))
  cluster = new KubeCluster({
    ...ports,
    namespace,
    runId: 'r3',
    topology,
    exec: (target, command) => execInPod(endpoint, target, command),
    network: new ChaosNetwork({
      faults: new ChaosFaults(ports),
      selector: { namespace, rooms },
      runId: 'r3',
      base: configuredBase(topology),
      serverNodes: new Set(['broker-1']),
      timeoutMs: 2000,
      now: ports.now
    })
  })
  await cluster.refresh()
  return { api, execs }
}

const stateOf = (id: string) => cluster!.status().nodes.find((n) => n.nodeId === id)!.state

describe('KubeCluster: a deployed topology as a run sees it (stand-in)', () => {
  it('lists every server node at its Service address, up once its pod is Ready', async () => {
    await deployed()
    const nodes = cluster!.status().nodes
    expect(nodes.map((n) => n.nodeId).sort()).toEqual(
      listNodes(topology)
        .filter((n) => n.kind !== 'producer' && n.kind !== 'consumer')
        .map((n) => n.id)
        .sort()
    )
    expect(nodes.every((n) => n.state === 'up')).toBe(true)
    const broker = nodes.find((n) => n.kind === 'broker')!
    expect(broker.address).toBe(`${broker.nodeId}.${namespace}.svc:10911`)
    // The tunnel finds the pod behind a Service name and behind a pod IP.
    expect(await cluster!.podOfAddress(`${broker.nodeId}.${namespace}.svc`, 10911)).toBe(
      `${broker.nodeId}-0`
    )
    const pod = standIn!.all('Pod').find((p) => p.metadata.name === `${broker.nodeId}-0`)!
    expect(await cluster!.podOfAddress((pod.status as { podIP: string }).podIP, 10912)).toBe(
      `${broker.nodeId}-0`
    )
    expect(await cluster!.podOfAddress('10.9.9.9', 10911)).toBeNull()
  })

  it('kills by scaling to zero and deleting the pod at once, and starts by scaling back; listeners hear each state', async () => {
    const { api, execs } = await deployed()
    const heard: string[] = []
    cluster!.watch({ nodeState: (s) => s.nodeId === 'broker-1' && heard.push(s.state) })
    await cluster!.act('broker-1', 'kill')
    expect(stateOf('broker-1')).toBe('killed')
    expect(standIn!.all('Pod').some((p) => p.metadata.name === 'broker-1-0')).toBe(false)
    const set = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'broker-1', namespace }
    expect(((await api.get(set))!.spec as { replicas: number }).replicas).toBe(0)
    // Still killed after a poll: no pod is the run's doing, not a failure.
    await cluster!.refresh()
    expect(stateOf('broker-1')).toBe('killed')
    await expect(cluster!.act('broker-1', 'pause')).rejects.toThrow(
      /cannot pause broker-1: it is killed; pause needs one of: up/
    )
    await cluster!.act('broker-1', 'start')
    expect(((await api.get(set))!.spec as { replicas: number }).replicas).toBe(1)
    await cluster!.refresh()
    expect(stateOf('broker-1')).toBe('up')
    expect(heard).toEqual(['killed', 'starting', 'up'])
    // SIGKILL through exec before the scale (a scale first would SIGTERM it: a clean stop).
    expect(execs).toEqual([`broker-1-0/broker: ${KILL_COMMAND.join(' ')}`])
    const requests = standIn!.requests.map((r) => `${r.method} ${r.path.split('?')[0]}`)
    const kill = requests.indexOf(`EXEC /api/v1/namespaces/${namespace}/pods/broker-1-0/exec`)
    expect(requests.slice(kill, kill + 3)).toEqual([
      `EXEC /api/v1/namespaces/${namespace}/pods/broker-1-0/exec`,
      `PATCH /apis/apps/v1/namespaces/${namespace}/statefulsets/broker-1/scale`,
      `DELETE /api/v1/namespaces/${namespace}/pods/broker-1-0`
    ])
  })

  it('pauses and resumes through exec in the node’s container, and says why when exec fails', async () => {
    const { execs } = await deployed()
    await cluster!.act('broker-1', 'pause')
    expect(stateOf('broker-1')).toBe('paused')
    await cluster!.refresh()
    expect(stateOf('broker-1')).toBe('paused')
    await cluster!.act('broker-1', 'resume')
    expect(stateOf('broker-1')).toBe('up')
    expect(execs).toEqual([
      `broker-1-0/broker: ${PAUSE_COMMAND.join(' ')}`,
      `broker-1-0/broker: ${RESUME_COMMAND.join(' ')}`
    ])
    await expect(cluster!.act('nope', 'kill')).rejects.toThrow(/nope is not a server node/)
  })

  it('acts on a management node through its Deployment and its hashed pod, found by label', async () => {
    const { api, execs } = await deployed()
    const pod = standIn!
      .all('Pod')
      .find((p) => p.metadata.labels?.['drstudio.io/node'] === 'mgmt-1')!
    expect(pod.metadata.name).toMatch(/^mgmt-1-[a-z0-9]+-[a-z0-9]{5}$/)
    expect(await cluster!.podOfAddress(`mgmt-1.${namespace}.svc`, 8080)).toBe(pod.metadata.name)
    await cluster!.act('mgmt-1', 'kill')
    expect(execs).toEqual([`${pod.metadata.name}/management: ${KILL_COMMAND.join(' ')}`])
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'mgmt-1', namespace }
    expect(((await api.get(deployment))!.spec as { replicas: number }).replicas).toBe(0)
    await cluster!.act('mgmt-1', 'start')
    await cluster!.refresh()
    expect(stateOf('mgmt-1')).toBe('up')
    const again = await cluster!.podOfAddress(`mgmt-1.${namespace}.svc`, 8080)
    expect(again).not.toBe(pod.metadata.name)
    expect(again).toMatch(/^mgmt-1-/)
  })

  it('a kill whose exec fails still takes the node down, and says it was a stop more than a crash', async () => {
    await deployed(127)
    await expect(cluster!.act('broker-1', 'kill')).rejects.toThrow(
      /SIGKILL through exec failed \(exited 127: sh: not found\); the pod was deleted instead, so its processes got SIGTERM first/
    )
    expect(stateOf('broker-1')).toBe('killed')
    expect(standIn!.all('Pod').some((p) => p.metadata.name === 'broker-1-0')).toBe(false)
  })

  it('applies network faults as Chaos Mesh objects and lists them while in effect', async () => {
    await deployed()
    const heard: string[] = []
    cluster!.watch({ chaos: (e) => heard.push(`${e.phase} ${e.label} ${e.object}`) })
    await cluster!.applyNetworkFault({
      action: 'partition',
      target: 'room1',
      peer: 'room2',
      direction: 'both',
      mode: 'drop'
    })
    expect(cluster!.network().faults).toHaveLength(1)
    expect(standIn!.all('NetworkChaos')).toHaveLength(1)
    await cluster!.applyNetworkFault({ action: 'heal' })
    expect(cluster!.network().faults).toHaveLength(0)
    expect(standIn!.all('NetworkChaos').filter((o) => !o.metadata.deletionTimestamp)).toEqual([])
    // What the run writes to its ledger as chaos-object events, each with its object's name.
    expect(heard).toEqual([
      'injected partition-room1-room2 drs-r3-1-partition-room1-room2',
      'healed partition-room1-room2 drs-r3-1-partition-room1-room2'
    ])
  })
})
