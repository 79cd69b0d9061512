import { Document } from 'yaml'
import { brokerGroupRoom, listNodes } from '../../../common/topology/model'
import type { Topology } from '../../../common/topology/schema'
import type { ServerNode } from './placeholders'
import { serverNodes } from './placeholders'
import { proxyZoneEnv } from './rocketmq-files'

export const ROCKETMQ_IMAGE = 'apache/rocketmq:5.3.3'
export const NODE_IMAGE = 'node:20'
/** Where the official image's scripts and the mounted configs live. */
const CONF_DIR = '/home/rocketmq/conf'
const NETWORK = 'drstudio'

/** File a staging container mounts, relative to the export root. */
export function stagingPath(node: ServerNode, file: string): string {
  return `staging/${node.room}/${node.id}/${file}`
}

/** Compose project names allow lower-case letters, digits, - and _ only. */
export function composeProjectName(topology: Topology): string {
  const slug = topology.name
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '')
  return `drstudio-${slug || 'topology'}`
}

function service(topology: Topology, node: ServerNode): Record<string, unknown> {
  const common = {
    hostname: node.id,
    networks: [NETWORK],
    labels: { 'drstudio.room': node.room, 'drstudio.kind': node.kind }
  }
  const mgmtOfRoom = listNodes(topology)
    .filter((n) => n.kind === 'management' && n.room === node.room)
    .map((n) => n.id)
  const nameServers = listNodes(topology)
    .filter((n) => n.kind === 'nameserver')
    .map((n) => n.id)
  switch (node.kind) {
    case 'management':
      return {
        image: NODE_IMAGE,
        ...common,
        working_dir: '/opt/drstudio',
        command: ['node', 'bin/drstudio.js', 'mgmt', '--config', '/etc/drstudio/management.json'],
        volumes: [
          '${DRSTUDIO_HOME:-./drstudio}:/opt/drstudio:ro',
          `./${stagingPath(node, 'management.json')}:/etc/drstudio/management.json:ro`
        ]
      }
    case 'nameserver':
      return {
        image: ROCKETMQ_IMAGE,
        ...common,
        command: `sh mqnamesrv -c ${CONF_DIR}/namesrv.properties`,
        environment: {
          MAX_POSSIBLE_HEAP: '268435456',
          // An embedded controller serialises its state with hessian, which needs java.lang opened.
          JAVA_OPT_EXT: node.spec.controller
            ? '-Xms256m -Xmx256m --add-opens java.base/java.lang=ALL-UNNAMED'
            : '-Xms256m -Xmx256m'
        },
        volumes: [`./${stagingPath(node, 'namesrv.properties')}:${CONF_DIR}/namesrv.properties`]
      }
    case 'controller':
      return {
        image: ROCKETMQ_IMAGE,
        ...common,
        command: `sh mqcontroller -c ${CONF_DIR}/controller.properties`,
        environment: {
          MAX_POSSIBLE_HEAP: '268435456',
          JAVA_OPT_EXT: '-Xms256m -Xmx256m --add-opens java.base/java.lang=ALL-UNNAMED'
        },
        volumes: [
          `./${stagingPath(node, 'controller.properties')}:${CONF_DIR}/controller.properties`
        ]
      }
    case 'broker':
      return {
        image: ROCKETMQ_IMAGE,
        ...common,
        command: `sh mqbroker -c ${CONF_DIR}/broker.conf`,
        environment: {
          ROCKETMQ_ZONE: brokerGroupRoom(topology, node),
          MAX_POSSIBLE_HEAP: '536870912',
          JAVA_OPT_EXT: '-Xms512m -Xmx512m -XX:MaxDirectMemorySize=512m'
        },
        volumes: [`./${stagingPath(node, 'broker.conf')}:${CONF_DIR}/broker.conf`],
        depends_on: [
          ...(topology.settings.namesrvDiscovery === 'management' ? mgmtOfRoom : []),
          ...nameServers,
          ...(node.spec.role === 'replica'
            ? listNodes(topology)
                .filter((n) => n.kind === 'controller')
                .map((n) => n.id)
            : [])
        ]
      }
    case 'proxy':
      return {
        image: ROCKETMQ_IMAGE,
        ...common,
        command: `sh mqproxy -pc ${CONF_DIR}/rmq-proxy.json -pm cluster`,
        environment: { ...proxyZoneEnv(node), JAVA_OPT_EXT: '-Xms256m -Xmx256m' },
        volumes: [`./${stagingPath(node, 'rmq-proxy.json')}:${CONF_DIR}/rmq-proxy.json`],
        depends_on: listNodes(topology)
          .filter((n) => n.kind === 'broker')
          .map((n) => n.id)
      }
  }
}

/** docker-compose.yml for a one-machine staging copy: one container per node, names as hosts. */
export function composeYaml(topology: Topology): string {
  const services: Record<string, unknown> = {}
  for (const node of serverNodes(topology)) {
    services[node.id] = service(topology, node)
  }
  const doc = new Document({
    name: composeProjectName(topology),
    services,
    networks: { [NETWORK]: { name: composeProjectName(topology) } }
  })
  doc.commentBefore = [
    ` Staging copy of topology "${topology.name}" on one Docker host (DR Studio export).`,
    ' Containers are named after the nodes and reach each other by those names; configs are the',
    ' staging/ copies of the per-room files with those names and default ports filled in.',
    ' Management nodes run DR Studio from a checkout: DRSTUDIO_HOME=/path/to/dr-studio docker compose up -d',
    ' Stores live inside the containers and vanish with them.'
  ].join('\n')
  return doc.toString({ lineWidth: 0 })
}
