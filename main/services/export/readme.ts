import type { LintFinding } from '../../../common/lint/rules'
import { listNodes, topicsOf } from '../../../common/topology/model'
import type { Topology } from '../../../common/topology/schema'
import type { Endpoints, Placeholder } from './placeholders'
import { allNameServers } from './rocketmq-files'
import type { LatestResults } from './types'

export interface ReadmeInput {
  topology: Topology
  findings: LintFinding[]
  /** Placeholders still in the production files, with the files holding each. */
  placeholders: { spec: Placeholder; files: string[] }[]
  results: LatestResults | null | undefined
  ep: Endpoints
  drstudioCommand: string
}

function code(text: string): string {
  return '`' + text + '`'
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|')
}

function lintSection(findings: LintFinding[]): string[] {
  const shown = findings.filter((f) => f.severity !== 'info')
  if (!shown.length) return []
  const infos = findings.length - shown.length
  const errors = shown.filter((f) => f.severity === 'error').length
  return [
    '## Design findings',
    '',
    errors
      ? `DR lint found ${errors} error(s): fix them in the topology before deploying this.`
      : 'DR lint found warnings; read them before deploying this.',
    '',
    ...shown.map(
      (f) =>
        `- **${f.severity}** ${code(f.ruleId)}${f.nodeIds.length ? ` (${f.nodeIds.join(', ')})` : ''}: ${f.message}. Fix: ${f.hint}.`
    ),
    ...(infos
      ? [
          '',
          `${infos} informational finding(s) are not listed; ${code('drstudio lint')} shows them.`
        ]
      : []),
    ''
  ]
}

function roomsSection(topology: Topology): string[] {
  const nodes = listNodes(topology)
  const ids = (room: string, kind: string) =>
    nodes
      .filter((n) => n.room === room && n.kind === kind)
      .map((n) => n.id)
      .join(', ') || '-'
  return [
    '## Rooms',
    '',
    '| Room | Management | Name servers | Brokers | Proxies | Producers | Consumers |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...topology.rooms.map(
      (r) =>
        `| ${cell(r.name ? `${r.id} (${r.name})` : r.id)} | ${ids(r.id, 'management')} | ${ids(r.id, 'nameserver')} | ${ids(r.id, 'broker')} | ${ids(r.id, 'proxy')} | ${ids(r.id, 'producer')} | ${ids(r.id, 'consumer')} |`
    ),
    ''
  ]
}

function filesSection(topology: Topology, drstudioCommand: string): string[] {
  const discovery =
    topology.settings.namesrvDiscovery === 'management'
      ? "finds every room's name servers through its room's management node (`fetchNamesrvAddrByAddressServer`)"
      : "lists every room's name servers (`namesrvAddr`)"
  return [
    '## Files',
    '',
    'One folder per room, one sub-folder per node:',
    '',
    '| File | What it is |',
    '| --- | --- |',
    `| ${code('{room}/{management}/management.json')} | Config of a management node, read by ${code(`${drstudioCommand} mgmt --config`)}: probe timings and every room's name servers. It answers ${code('GET /rocketmq/nsaddr')} for brokers and stock clients. |`,
    `| ${code('{room}/{management}/start-management.sh')} | Starts the management node. |`,
    `| ${code('{room}/{nameserver}/namesrv.properties')} | Name-server config for ${code('mqnamesrv -c')}. |`,
    `| ${code('{room}/{nameserver}/start-namesrv.sh')} | Starts the name server from ${code('$ROCKETMQ_HOME')}. |`,
    `| ${code('{room}/{broker}/broker.conf')} | Broker config for ${code('mqbroker -c')}; the broker ${cell(discovery)}. |`,
    `| ${code('{room}/{broker}/start-broker.sh')} | Starts the broker with ${code('ROCKETMQ_ZONE')} set to its room, so routes carry the room. |`,
    ...(listNodes(topology).some((n) => n.kind === 'proxy')
      ? [
          `| ${code('{room}/{proxy}/rmq-proxy.json')}, ${code('start-proxy.sh')} | Cluster-mode proxy for gRPC clients. |`
        ]
      : []),
    `| ${code('{room}/client.json')} | Settings for DR Studio clients in the room: management endpoints, selection policy, route refresh, fallback rooms. |`,
    `| ${code('{room}/client-java.properties')} | The same for the stock Java client, as ${code('-D')} system properties, with notes on ${code('AllocateMachineRoomNearby')}. |`,
    `| ${code('{room}/RoomAwareSetup.java')} | The stock Java client with DR Studio's room-aware extension, wired with the room's management nodes and broker rooms (see Java applications). |`,
    `| ${code('docker-compose.yml')} | A staging copy of the whole topology on one Docker host (${code('apache/rocketmq:5.3.3')}). |`,
    `| ${code('staging/')} | The configs ${code('docker-compose.yml')} mounts: the per-room files with container names and default ports filled in. |`,
    `| ${code('topology.mmd')}, ${code('topology.drawio')} | Diagrams: Mermaid, and draw.io with one container per room. |`,
    `| ${code('grafana/drstudio-dashboard.json')} | A Grafana dashboard (rooms as rows, faults as annotations) for the live metrics of ${code('drstudio scenario run --metrics')}. |`,
    `| ${code('.drstudio-export.json')} | The list of files written, so exporting again into this folder replaces exactly them. |`,
    ''
  ]
}

function placeholderSection(placeholders: ReadmeInput['placeholders']): string[] {
  if (!placeholders.length) {
    return ['## Placeholders', '', 'None: the topology names every host, port and store path.', '']
  }
  return [
    '## Placeholders to fill',
    '',
    'Whatever the topology leaves open is written as a marker in angle brackets, for example',
    `${code(placeholders[0]!.spec.token)}. Every start script refuses to run while its config still holds one,`,
    'because RocketMQ silently ignores values it cannot parse. Replace each marker in every file listed',
    '(in JSON files, replace a port marker and its quotes with the number), or export again with values.',
    '',
    '| Placeholder | What to put there | Files |',
    '| --- | --- | --- |',
    ...placeholders.map(
      ({ spec, files }) =>
        `| ${code(spec.token)} | ${cell(spec.description)} | ${files.map(code).join(', ')} |`
    ),
    ''
  ]
}

function startSection(topology: Topology, ep: Endpoints): string[] {
  const nsList = allNameServers(topology)
    .map((n) => ep.address(n))
    .join(';')
  const clusters = [
    ...new Set(
      listNodes(topology)
        .filter((n) => n.kind === 'broker')
        .map((n) => (n.kind === 'broker' ? n.spec.cluster : ''))
    )
  ]
  const topics = topicsOf(topology)
  const hasProxy = listNodes(topology).some((n) => n.kind === 'proxy')
  return [
    '## Start order',
    '',
    `Install the Apache RocketMQ 5.3.3 binary distribution on the name-server and broker hosts and set ${code('ROCKETMQ_HOME')}.`,
    '',
    `1. **Management nodes**: ${code('{room}/{management}/start-management.sh')} in every room. Brokers ask them for name servers as they start.`,
    `2. **Name servers**: ${code('{room}/{nameserver}/start-namesrv.sh')}.`,
    `3. **Brokers**: ${code('{room}/{broker}/start-broker.sh')}, masters before their slaves. A broker fetches the name-server list from its management node about 10 s after start and registers with every name server at its next registration round (within about 40 s).`,
    `4. **Topics**: broker.conf turns off auto-creation, so create each topic once per cluster:`,
    '',
    '   ```sh',
    ...clusters.flatMap((c) =>
      topics.map(
        (t) =>
          `   sh "$ROCKETMQ_HOME/bin/mqadmin" updateTopic -n '${nsList}' -c ${c} -t ${t.name} -r ${t.queues} -w ${t.queues}`
      )
    ),
    '   ```',
    '',
    ...(hasProxy ? [`5. **Proxies**: ${code('{room}/{proxy}/start-proxy.sh')}.`, ''] : []),
    `${hasProxy ? 6 : 5}. **Clients**: DR Studio clients read ${code('{room}/client.json')}; stock Java clients take ${code('{room}/client-java.properties')} as system properties.`,
    '',
    '### Java applications',
    '',
    "The stock Java client alone spreads sends over every room's brokers, and zone mode has no fallback.",
    `To give a Java application the method, add the extension beside its ${code('rocketmq-client')} (5.3.x) and build`,
    `its clients through ${code('{room}/RoomAwareSetup.java')}: ${code('RoomAwareSetup.producer(group)')} instead of`,
    `${code('new DefaultMQProducer(group)')}, ${code('RoomAwareSetup.consumer(group)')} instead of ${code('new DefaultMQPushConsumer(group)')}.`,
    '',
    '```xml',
    '<dependency>',
    '  <groupId>io.drstudio</groupId>',
    '  <artifactId>drstudio-rocketmq-dr</artifactId>',
    '  <version>0.1.0</version>',
    '</dependency>',
    '```',
    '',
    `Install it once from a DR Studio checkout with ${code('mvn -f resources/java-dr/pom.xml install')} (or publish`,
    'that jar to your repository). It uses the client the application already has and brings no other dependency.',
    '',
    'Open between rooms: every name-server port, every broker port with port+1 (HA) and port-2 (fast',
    'channel), and the management ports for the hosts of their own room.',
    ''
  ]
}

function stagingSection(): string[] {
  return [
    '## Staging copy',
    '',
    '```sh',
    'DRSTUDIO_HOME=/path/to/dr-studio docker compose up -d',
    'docker compose ps',
    '```',
    '',
    `Each node runs in its own container, reachable by its node id on the ${code('drstudio')} network.`,
    `Management nodes run ${code('node bin/drstudio.js mgmt')} from the DR Studio checkout in ${code('DRSTUDIO_HOME')}`,
    "(built, with its dependencies installed). Nothing is published on the host's ports: run clients",
    `in a container on the same network, or add ${code('ports:')} entries.`,
    ''
  ]
}

function formatRto(ms: number | null): string {
  if (ms === null) return '-'
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`
}

function resultsSection(results: LatestResults | null | undefined): string[] {
  const head = ['## Latest scenario results', '']
  if (!results || results.scenarios.length === 0) {
    return [
      ...head,
      'No scenario has been run against this topology yet. Run the failover scenarios in DR Studio and',
      'export again to record their verdicts here.',
      ''
    ]
  }
  const rows = [...results.scenarios].sort((a, b) => a.scenario.localeCompare(b.scenario))
  return [
    ...head,
    'RTO is the worst per-client time from the first failed operation after a fault to the next success;',
    'lost counts acknowledged sends that were never consumed.',
    '',
    '| Scenario | Verdict | RTO | Lost | Duplicates | Run | Ended (UTC) |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${cell(r.scenario)} | ${cell(r.verdict)} | ${formatRto(r.rtoMs)}${r.unrecovered ? ' (a client never recovered)' : ''} | ${r.lost} | ${r.duplicates ?? '-'} | ${r.runId ?? '-'} | ${new Date(r.endedAt).toISOString()} |`
    ),
    ''
  ]
}

/** README.md: findings first, then what each file is, what to fill, the start order and the results. */
export function readme(input: ReadmeInput): string {
  const { topology } = input
  return [
    `# ${topology.name}: Apache RocketMQ 5.3.3 over ${topology.rooms.length} machine room(s)`,
    '',
    `Exported by DR Studio from topology ${code(topology.name)}.${topology.description ? ` ${topology.description}` : ''}`,
    '',
    ...lintSection(input.findings),
    ...roomsSection(topology),
    ...filesSection(topology, input.drstudioCommand),
    ...placeholderSection(input.placeholders),
    ...startSection(topology, input.ep),
    ...stagingSection(),
    ...resultsSection(input.results)
  ].join('\n')
}
