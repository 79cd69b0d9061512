import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseAllDocuments, parse as parseYaml } from 'yaml'
import { topologySchema } from '../../../../common/topology/schema'
import type { Topology } from '../../../../common/topology/schema'
import { brokerConf } from '../rocketmq-files'
import { nodesOfKind } from '../../../../common/topology/model'
import { createManifestChecker } from '../manifest-schemas'
import { findPlaceholders } from '../placeholders'
import { k8sName, kubernetesEndpoints, KubernetesExportError } from './names'
import { renderKubernetes } from './render-kubernetes'

type Obj = {
  apiVersion: string
  kind: string
  metadata: { name: string; namespace?: string; labels?: Record<string, string> }
  spec?: Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any
  data?: Record<string, string>
}

const TOPOLOGIES = readdirSync('resources/topologies')
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.replace(/\.json$/, ''))

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function load(name: string, edit: (doc: any) => void = () => {}): Topology {
  const doc = JSON.parse(readFileSync(`resources/topologies/${name}.json`, 'utf8'))
  edit(doc)
  return topologySchema.parse(doc)
}

function objectsOf(files: Map<string, string>): Obj[] {
  return [...files]
    .filter(([path]) => path.endsWith('.yaml') && !path.endsWith('kustomization.yaml'))
    .flatMap(([, text]) => parseAllDocuments(text).map((d) => d.toJS() as Obj))
}

const find = (objects: Obj[], kind: string, name: string) =>
  objects.find((o) => o.kind === kind && o.metadata.name === name)

const check = createManifestChecker()

describe('renderKubernetes', () => {
  it.each(TOPOLOGIES)('%s: every object passes the vendored schemas', (name) => {
    for (const o of objectsOf(renderKubernetes(load(name)))) {
      expect(check(o), `${o.kind} ${o.metadata.name}`).toEqual([])
    }
  })

  it.each(TOPOLOGIES)('%s: no placeholder is left anywhere', (name) => {
    for (const [path, text] of renderKubernetes(load(name))) {
      expect(findPlaceholders(text), path).toEqual([])
    }
  })

  it('gives every server node a ConfigMap, a headless Service and a one-replica StatefulSet', () => {
    const topology = load('three-rooms-controller')
    const objects = objectsOf(renderKubernetes(topology))
    for (const id of ['ns-1', 'broker-a-1', 'broker-b-3']) {
      const sts = find(objects, 'StatefulSet', id)!
      expect(sts.spec!.replicas).toBe(1)
      expect(sts.spec!.serviceName).toBe(id)
      expect(find(objects, 'Service', id)!.spec).toMatchObject({
        clusterIP: 'None',
        publishNotReadyAddresses: true
      })
      expect(find(objects, 'ConfigMap', `${id}-config`)).toBeDefined()
    }
    const mgmt = find(objects, 'Deployment', 'mgmt-2')!
    expect(mgmt.spec!.template.spec.containers[0].command).toEqual([
      'sh',
      '/etc/drstudio/start-management.sh'
    ])
    expect(find(objects, 'StatefulSet', 'mgmt-2')).toBeUndefined()
    const mgmtConf = JSON.parse(
      find(objects, 'ConfigMap', 'mgmt-2-config')!.data!['management.json']!
    )
    expect(mgmtConf.host).toBe('0.0.0.0')
    expect(find(objects, 'ConfigMap', 'mgmt-2-config')!.data!['start-management.sh']).toContain(
      'exec drstudio mgmt --config'
    )
  })

  it('writes the broker.conf the per-room export writes, with Service DNS names for addresses', () => {
    const topology = load('three-rooms')
    const objects = objectsOf(renderKubernetes(topology))
    const broker = nodesOfKind(topology, 'broker').find((b) => b.id === 'broker-2s')!
    const conf = find(objects, 'ConfigMap', 'broker-2s-config')!.data!['broker.conf']
    expect(conf).toBe(brokerConf(topology, broker, kubernetesEndpoints('drs-three-rooms')))
    expect(conf).toContain('rmqAddressServerDomain=mgmt-2.drs-three-rooms.svc:8080')
  })

  it('writes the pod IP into brokerIP1 and brokerIP2 before start, through the downward API', () => {
    const sts = find(objectsOf(renderKubernetes(load('two-rooms'))), 'StatefulSet', 'broker-1')!
    const init = sts.spec!.template.spec.initContainers[0]
    expect(init.env).toEqual([
      { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }
    ])
    expect(init.command[2]).toMatch(/s\/\^brokerIP1=\.\*\/brokerIP1=\$POD_IP\//)
    expect(init.command[2]).toMatch(/brokerIP2=\$POD_IP/)
    expect(sts.spec!.template.spec.containers[0].command).toEqual([
      'sh',
      '/etc/drstudio/start-broker.sh'
    ])
  })

  it("sets ROCKETMQ_ZONE to the broker group's room and pins every pod to its room's zone", () => {
    // broker-1s moves to room2 but still serves broker-a, whose master is in room1.
    const topology = load('three-rooms', (d) => d.rooms[1].brokers.push(d.rooms[0].brokers.pop()))
    const objects = objectsOf(renderKubernetes(topology))
    expect(find(objects, 'StatefulSet', 'broker-1s')!.metadata.labels!['drstudio.io/room']).toBe(
      'room2'
    )
    for (const o of objects.filter((x) => x.kind === 'StatefulSet' || x.kind === 'Deployment')) {
      const room = o.metadata.labels!['drstudio.io/room']
      const term =
        o.spec!.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution
          .nodeSelectorTerms[0]
      expect(term.matchExpressions).toEqual([
        { key: 'topology.kubernetes.io/zone', operator: 'In', values: [room] }
      ])
    }
    const env = find(objects, 'StatefulSet', 'broker-1s')!.spec!.template.spec.containers[0].env
    expect(env).toContainEqual({ name: 'ROCKETMQ_ZONE', value: 'room1' })
  })

  it('uses settings.kubernetes: zone label, zones, namespace, images and resources', () => {
    const topology = load('two-rooms', (d) => {
      d.settings.kubernetes = {
        namespace: 'lab',
        zoneLabel: 'example.com/room',
        zones: { room2: 'eu-west-1b' },
        rocketmqImage: 'mirror.local/rocketmq:5.3.3',
        resources: { broker: { limits: { cpu: '2' } } }
      }
    })
    const objects = objectsOf(renderKubernetes(topology))
    const sts = find(objects, 'StatefulSet', 'broker-2')!
    expect(sts.metadata.namespace).toBe('lab')
    const pod = sts.spec!.template.spec
    expect(
      pod.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]
        .matchExpressions[0]
    ).toEqual({
      key: 'example.com/room',
      operator: 'In',
      values: ['eu-west-1b']
    })
    expect(pod.containers[0].image).toBe('mirror.local/rocketmq:5.3.3')
    expect(pod.containers[0].resources).toEqual({
      requests: { cpu: '250m', memory: '1Gi' },
      limits: { cpu: '2', memory: '2Gi' }
    })
    const room1 = find(objects, 'StatefulSet', 'broker-1')!.spec!.template.spec
    expect(
      room1.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution
        .nodeSelectorTerms[0].matchExpressions[0].values
    ).toEqual(['room1'])
  })

  it('labels every object with managed-by, room, node and kind', () => {
    for (const o of objectsOf(renderKubernetes(load('two-rooms-proxies')))) {
      if (o.kind === 'Namespace') continue
      expect(o.metadata.labels).toMatchObject({ 'app.kubernetes.io/managed-by': 'drstudio' })
      expect(Object.keys(o.metadata.labels!)).toEqual(
        expect.arrayContaining(['drstudio.io/room', 'drstudio.io/node', 'drstudio.io/kind'])
      )
    }
  })

  it('gives each room one worker Deployment per client lane, attachable on stdin', () => {
    const topology = load('two-rooms', (d) => {
      d.rooms[0].producers.push({
        id: 'producer-java',
        topic: 'orders',
        group: 'g-java',
        lane: 'java'
      })
    })
    const files = renderKubernetes(topology)
    const objects = objectsOf(files)
    const workers = objects.filter(
      (o) => o.kind === 'Deployment' && o.metadata.labels!['drstudio.io/kind'] === 'worker'
    )
    expect(workers.map((w) => w.metadata.name)).toEqual([
      'worker-room1-java',
      'worker-room1-remoting',
      'worker-room2-remoting'
    ])
    const java = workers[0]!.spec!.template.spec.containers[0]
    expect(java.stdin).toBe(true)
    expect(java.command[0]).toBe('java')
    expect(java.command).toContain('-Drocketmq.namesrv.domain=mgmt-1.drs-two-rooms.svc:8080')
    expect(workers[1]!.spec!.template.spec.containers[0].command).toEqual(['drstudio', 'worker'])
    expect(parseYaml(files.get('room1/kustomization.yaml')!).resources).toContain(
      'worker-room1-java.yaml'
    )
  })

  it('lists every file of a folder in its kustomization, and every folder in the root one', () => {
    const files = renderKubernetes(load('three-rooms'))
    expect(parseYaml(files.get('kustomization.yaml')!).resources).toEqual([
      'base',
      'room1',
      'room2',
      'room3'
    ])
    for (const dir of ['base', 'room1', 'room2', 'room3']) {
      const listed = parseYaml(files.get(`${dir}/kustomization.yaml`)!).resources as string[]
      const present = [...files.keys()]
        .filter(
          (p) => p.startsWith(`${dir}/`) && p.endsWith('.yaml') && !p.endsWith('kustomization.yaml')
        )
        .map((p) => p.slice(dir.length + 1))
      expect([...listed].sort()).toEqual(present.sort())
    }
  })

  it('refuses two ids that become one Kubernetes name', () => {
    const topology = load('two-rooms', (d) => {
      d.rooms[1].nameServers.push({ id: 'NS_1' })
      d.rooms[0].nameServers[0].id = 'ns-1'
    })
    expect(() => renderKubernetes(topology)).toThrow(KubernetesExportError)
    expect(() => renderKubernetes(topology)).toThrow(
      /"ns-1" and "NS_1" both become the Kubernetes name "ns-1" .*; rename one of them/
    )
  })

  it('k8sName lower-cases and turns _ into -', () => {
    expect(k8sName('Broker_A-1')).toBe('broker-a-1')
    expect(k8sName('x'.repeat(70))).toHaveLength(63)
  })
})
