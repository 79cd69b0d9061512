import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment'
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet'
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap'
import type { IContainer } from 'kubernetes-models/v1/Container'
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar'
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim'
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec'
import type { IService } from 'kubernetes-models/v1/Service'
import type { IVolume } from 'kubernetes-models/v1/Volume'
import { brokerGroupRoom } from '../../../../common/topology/model'
import type { Topology } from '../../../../common/topology/schema'
import { controllerConf, startControllerScript } from '../controller-files'
import { managementJson, startManagementScript } from '../management-files'
import type { Endpoints, ServerNode } from '../placeholders'
import {
  brokerConf,
  namesrvProperties,
  proxyJson,
  proxyZoneEnv,
  startBrokerScript,
  startNamesrvScript,
  startProxyScript
} from '../rocketmq-files'
import type { KubernetesImages } from './resources'
import { CONTROLLER_STORE_DIR, k8sName, podLabels, STORE_DIR, zoneLabelOf, zoneOf } from './names'
import { JAVA_OPTS, resourcesFor, STORE_SIZE } from './resources'

export type ServerObject = IConfigMap | IService | IStatefulSet | IDeployment

/** Where a pod reads its files: the ConfigMap, or (brokers) the copy the init step rewrote. */
const CONFIG_DIR = '/etc/drstudio'
const CONFIG_SOURCE = '/etc/drstudio-configmap'
/** The official image's user and group (rocketmq, 3000): persistent volumes must be writable by it. */
const ROCKETMQ_GID = 3000

/** The node's files: the same config and start script the per-room export writes. */
export function nodeFiles(topology: Topology, node: ServerNode, ep: Endpoints): [string, string][] {
  switch (node.kind) {
    case 'broker':
      return [
        ['broker.conf', brokerConf(topology, node, ep)],
        ['start-broker.sh', startBrokerScript(topology, node)]
      ]
    case 'nameserver':
      return [
        ['namesrv.properties', namesrvProperties(topology, node, ep)],
        ['start-namesrv.sh', startNamesrvScript(node)]
      ]
    case 'controller':
      return [
        ['controller.properties', controllerConf(topology, node, ep)],
        ['start-controller.sh', startControllerScript(node)]
      ]
    case 'proxy':
      return [
        ['rmq-proxy.json', proxyJson(topology, node, ep)],
        ['start-proxy.sh', startProxyScript(node)]
      ]
    case 'management': {
      // Bind every pod interface; brokers and clients use the Service's DNS name.
      const conf = { ...JSON.parse(managementJson(topology, node, ep)), host: '0.0.0.0' }
      return [
        ['management.json', JSON.stringify(conf, null, 2) + '\n'],
        ['start-management.sh', startManagementScript(node, 'drstudio')]
      ]
    }
  }
}

/** Ports a node listens on, named for its Service. */
export function nodePorts(node: ServerNode, ep: Endpoints): { name: string; port: number }[] {
  const port = Number(ep.port(node))
  switch (node.kind) {
    case 'broker':
      return [
        { name: 'fast', port: port - 2 },
        { name: 'remoting', port },
        { name: 'ha', port: port + 1 }
      ]
    case 'nameserver':
      return [
        { name: 'remoting', port },
        ...(node.spec.controller
          ? [{ name: 'controller', port: Number(ep.controllerPort(node)) }]
          : [])
      ]
    case 'controller':
      return [{ name: 'controller', port }]
    case 'proxy':
      return [
        { name: 'grpc', port },
        { name: 'remoting', port: Number(ep.remotingPort(node)) }
      ]
    case 'management':
      return [{ name: 'http', port }]
  }
}

/** ROCKETMQ_ZONE as the start scripts set it (a plain proxy has none), plus heap flags. */
function nodeEnv(topology: Topology, node: ServerNode): IEnvVar[] {
  const zone: Record<string, string> =
    node.kind === 'proxy'
      ? proxyZoneEnv(node)
      : {
          ROCKETMQ_ZONE: node.kind === 'broker' ? brokerGroupRoom(topology, node) : node.room
        }
  const env: IEnvVar[] = Object.entries(zone).map(([name, value]) => ({ name, value }))
  if (node.kind === 'management') return env
  const embeds =
    node.kind === 'controller' || (node.kind === 'nameserver' && !!node.spec.controller)
  // The controller serialises its state with hessian, which needs java.lang opened on JDK 17.
  const opens = embeds ? ' --add-opens java.base/java.lang=ALL-UNNAMED' : ''
  env.push({ name: 'JAVA_OPT_EXT', value: JAVA_OPTS[node.kind] + opens })
  return env
}

function storeClaims(node: ServerNode): IPersistentVolumeClaim[] {
  const claim = (name: string, size: string): IPersistentVolumeClaim => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } } }
  })
  if (node.kind === 'broker') return [claim('store', STORE_SIZE.broker)]
  if (node.kind === 'controller' || (node.kind === 'nameserver' && node.spec.controller)) {
    return [claim('controller-store', STORE_SIZE.controller)]
  }
  return []
}

function mountsOf(claims: IPersistentVolumeClaim[]): { name: string; mountPath: string }[] {
  return claims.map((c) => ({
    name: c.metadata!.name!,
    mountPath: c.metadata!.name === 'store' ? STORE_DIR : CONTROLLER_STORE_DIR
  }))
}

/** An init step that writes the pod IP into broker.conf as brokerIP1/brokerIP2. */
function brokerIpInit(image: string): IContainer {
  const script = [
    `sed -e "s/^brokerIP1=.*/brokerIP1=$POD_IP/" -e "s/^brokerIP2=.*/brokerIP2=$POD_IP/" ${CONFIG_SOURCE}/broker.conf > ${CONFIG_DIR}/broker.conf`,
    `cp ${CONFIG_SOURCE}/start-broker.sh ${CONFIG_DIR}/start-broker.sh`
  ].join(' && ')
  return {
    name: 'broker-ip',
    image,
    command: ['sh', '-c', script],
    env: [{ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
    volumeMounts: [
      { name: 'configmap', mountPath: CONFIG_SOURCE },
      { name: 'config', mountPath: CONFIG_DIR }
    ]
  }
}

function podSpec(
  topology: Topology,
  node: ServerNode,
  ep: Endpoints,
  images: KubernetesImages,
  name: string
): IPodSpec {
  const image = node.kind === 'management' ? images.drstudio : images.rocketmq
  const script = nodeFiles(topology, node, ep)[1]![0]
  const broker = node.kind === 'broker'
  const volumes: IVolume[] = broker
    ? [
        { name: 'configmap', configMap: { name: `${name}-config` } },
        { name: 'config', emptyDir: {} }
      ]
    : [{ name: 'config', configMap: { name: `${name}-config` } }]
  const main = nodePorts(node, ep)[node.kind === 'broker' ? 1 : 0]!
  const container: IContainer = {
    name: node.kind,
    image,
    command: ['sh', `${CONFIG_DIR}/${script}`],
    env: nodeEnv(topology, node),
    ports: nodePorts(node, ep).map((p) => ({ name: p.name, containerPort: p.port })),
    readinessProbe: { tcpSocket: { port: main.port }, periodSeconds: 5 },
    resources: resourcesFor(topology, node.kind),
    volumeMounts: [{ name: 'config', mountPath: CONFIG_DIR }, ...mountsOf(storeClaims(node))]
  }
  return {
    affinity: zoneAffinity(topology, node.room),
    ...(node.kind === 'management' ? {} : { securityContext: { fsGroup: ROCKETMQ_GID } }),
    ...(broker ? { initContainers: [brokerIpInit(image)] } : {}),
    containers: [container],
    volumes
  }
}

/** Pins a pod to its room's zone: required, so a pod never lands in another room. */
export function zoneAffinity(topology: Topology, room: string): IPodSpec['affinity'] {
  return {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [
          {
            matchExpressions: [
              { key: zoneLabelOf(topology), operator: 'In', values: [zoneOf(topology, room)] }
            ]
          }
        ]
      }
    }
  }
}

/**
 * One server node as Kubernetes objects: a ConfigMap of its files, a Service (headless for the
 * RocketMQ nodes, whose DNS must answer before they are ready: a controller quorum and name servers
 * find each other through it) and a one-replica StatefulSet, or a Deployment for management nodes.
 */
export function serverObjects(
  topology: Topology,
  node: ServerNode,
  ep: Endpoints,
  images: KubernetesImages,
  namespace: string
): ServerObject[] {
  const name = k8sName(node.id)
  const labels = podLabels(node.room, name, node.kind)
  const metadata = { name, namespace, labels }
  const selector = { matchLabels: { 'drstudio.io/node': name } }
  const files = nodeFiles(topology, node, ep)
  const configMap: IConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { ...metadata, name: `${name}-config` },
    data: Object.fromEntries(files)
  }
  const management = node.kind === 'management'
  const service: IService = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata,
    spec: {
      ...(management ? {} : { clusterIP: 'None', publishNotReadyAddresses: true }),
      selector: { 'drstudio.io/node': name },
      ports: nodePorts(node, ep).map((p) => ({ name: p.name, port: p.port, targetPort: p.port }))
    }
  }
  const template = { metadata: { labels }, spec: podSpec(topology, node, ep, images, name) }
  if (management) {
    const deployment: IDeployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata,
      spec: { replicas: 1, selector, template }
    }
    return [configMap, service, deployment]
  }
  const claims = storeClaims(node)
  const statefulSet: IStatefulSet = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata,
    spec: {
      serviceName: name,
      replicas: 1,
      selector,
      template,
      ...(claims.length ? { volumeClaimTemplates: claims } : {})
    }
  }
  return [configMap, service, statefulSet]
}
