import { lintTopology } from '../../../common/lint/lint'
import { listNodes } from '../../../common/topology/model'
import type { Topology } from '../../../common/topology/schema'
import { clientJavaProperties, clientJson, roomAwareSetupJava } from './client-files'
import { composeYaml, stagingPath } from './compose'
import { controllerConf, startControllerScript } from './controller-files'
import { drawio, mermaid } from './diagrams'
import { grafanaDashboard } from './grafana-dashboard'
import { managementJson, startManagementScript } from './management-files'
import type { Endpoints, ServerNode } from './placeholders'
import {
  fillPlaceholders,
  findPlaceholders,
  listPlaceholderSpecs,
  productionEndpoints,
  stagingEndpoints
} from './placeholders'
import { readme } from './readme'
import {
  brokerConf,
  namesrvProperties,
  proxyJson,
  startBrokerScript,
  startNamesrvScript,
  startProxyScript
} from './rocketmq-files'
import type { RenderOptions } from './types'

/** The Grafana dashboard of the live metrics (`drstudio export --target grafana` writes only it). */
export const GRAFANA_DASHBOARD_FILE = 'grafana/drstudio-dashboard.json'

/** Lists what a re-export into the same folder may replace. */
export const MANIFEST_FILE = '.drstudio-export.json'

/** Config files of one node (no scripts), under the given endpoints. */
function nodeConfigs(topology: Topology, node: ServerNode, ep: Endpoints): [string, string][] {
  switch (node.kind) {
    case 'broker':
      return [['broker.conf', brokerConf(topology, node, ep)]]
    case 'nameserver':
      return [['namesrv.properties', namesrvProperties(topology, node, ep)]]
    case 'controller':
      return [['controller.properties', controllerConf(topology, node, ep)]]
    case 'management':
      return [['management.json', managementJson(topology, node, ep)]]
    case 'proxy':
      return [['rmq-proxy.json', proxyJson(topology, node, ep)]]
  }
}

function nodeScript(
  topology: Topology,
  node: ServerNode,
  drstudioCommand: string
): [string, string] {
  switch (node.kind) {
    case 'broker':
      return ['start-broker.sh', startBrokerScript(topology, node)]
    case 'nameserver':
      return ['start-namesrv.sh', startNamesrvScript(node)]
    case 'management':
      return ['start-management.sh', startManagementScript(node, drstudioCommand)]
    case 'proxy':
      return ['start-proxy.sh', startProxyScript(node)]
    case 'controller':
      return ['start-controller.sh', startControllerScript(node)]
  }
}

/**
 * Renders every exported file in memory, keyed by path relative to the export root, sorted.
 * Pure and deterministic (no clock, no fs), so golden files can pin it.
 */
export function renderExport(topology: Topology, opts: RenderOptions = {}): Map<string, string> {
  const prod = productionEndpoints()
  const staging = stagingEndpoints()
  const drstudioCommand = opts.drstudioCommand ?? 'drstudio'
  const values = opts.values ?? {}
  const files = new Map<string, string>()
  const fill = (path: string, text: string) =>
    fillPlaceholders(text, values, { json: path.endsWith('.json') })

  const production = new Map<string, string>()
  for (const node of listNodes(topology)) {
    if (node.kind === 'producer' || node.kind === 'consumer') continue
    const dir = `${node.room}/${node.id}`
    for (const [name, text] of [
      ...nodeConfigs(topology, node, prod),
      nodeScript(topology, node, drstudioCommand)
    ]) {
      production.set(`${dir}/${name}`, fill(name, text))
    }
    for (const [name, text] of nodeConfigs(topology, node, staging)) {
      files.set(stagingPath(node, name), text)
    }
  }
  for (const room of topology.rooms) {
    production.set(`${room.id}/client.json`, fill('client.json', clientJson(topology, room, prod)))
    production.set(
      `${room.id}/client-java.properties`,
      fill('client-java.properties', clientJavaProperties(topology, room, prod))
    )
    production.set(
      `${room.id}/RoomAwareSetup.java`,
      fill('RoomAwareSetup.java', roomAwareSetupJava(topology, room, prod))
    )
  }

  const where = new Map<string, string[]>()
  for (const [path, text] of production) {
    for (const token of findPlaceholders(text))
      where.set(token, [...(where.get(token) ?? []), path])
  }
  const placeholders = listPlaceholderSpecs(topology)
    .filter((spec) => where.has(spec.token))
    .map((spec) => ({ spec, files: [...where.get(spec.token)!].sort() }))

  for (const [path, text] of production) files.set(path, text)
  files.set('docker-compose.yml', composeYaml(topology))
  files.set('topology.mmd', mermaid(topology))
  files.set('topology.drawio', drawio(topology))
  files.set(GRAFANA_DASHBOARD_FILE, grafanaDashboard(topology))
  files.set(
    'README.md',
    fill(
      'README.md',
      readme({
        topology,
        findings: lintTopology(topology),
        placeholders,
        results: opts.results,
        ep: prod,
        drstudioCommand
      })
    )
  )
  const paths = [...files.keys(), MANIFEST_FILE].sort()
  files.set(
    MANIFEST_FILE,
    JSON.stringify(
      { generator: 'drstudio export', topology: topology.name, files: paths },
      null,
      2
    ) + '\n'
  )
  return new Map(paths.map((p) => [p, files.get(p)!]))
}
