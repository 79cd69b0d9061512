export type LintSeverity = 'error' | 'warning' | 'info'

/** A rule as the UI, the CLI and the docs list it. */
export interface LintRule {
  id: string
  severity: LintSeverity
  title: string
  /** What goes wrong in a real room failure if the rule is ignored. */
  why: string
}

/** Every DR design rule, in the order findings are reported; ids are stable (users filter on them). */
export const LINT_RULES = [
  {
    id: 'single-room-topology',
    severity: 'warning',
    title: 'Topology has fewer than two rooms',
    why: 'With one machine room there is nothing to fail over to: losing the room loses the service.'
  },
  {
    id: 'room-without-nameserver',
    severity: 'error',
    title: 'Room without a name server',
    why: "The method runs a full set per room; without a local name server the room's clients always cross rooms for routes and lose them when the link does."
  },
  {
    id: 'nameservers-single-room',
    severity: 'error',
    title: 'All name servers in one room',
    why: 'When that room fails no client or broker anywhere can look up or register routes.'
  },
  {
    id: 'single-nameserver-per-room',
    severity: 'info',
    title: 'Only one name server in a room',
    why: 'One host failure pushes the whole room to remote name servers; two per room keep lookups local.'
  },
  {
    id: 'room-without-management',
    severity: 'error',
    title: 'Room without a management node',
    why: "Brokers and clients of the room learn every room's name servers from their management node; without one they learn none, or a fixed list that cannot react to failures."
  },
  {
    id: 'room-without-broker',
    severity: 'info',
    title: 'Room without a master broker',
    why: 'The room stores no messages; that is fine for a name-server or witness room, but it serves no local traffic.'
  },
  {
    id: 'producer-room-without-broker',
    severity: 'warning',
    title: 'Producers in a room without a master broker',
    why: 'Every send crosses rooms, so a link failure stops these producers even though their room is up.'
  },
  {
    id: 'consumer-room-without-broker',
    severity: 'warning',
    title: 'Consumers in a room without a master broker',
    why: 'Every pull crosses rooms, and no queue of this room exists for them to prefer.'
  },
  {
    id: 'grpc-clients-without-proxy',
    severity: 'error',
    title: 'gRPC clients that one room loss cuts off',
    why: 'The gRPC lane reaches brokers only through zone-pinned proxies. Clients whose room has none depend on the proxies of a single other room (or of none): losing that room stops them while their own room and its brokers are up.'
  },
  {
    id: 'grpc-clients-remote-proxy',
    severity: 'warning',
    title: 'gRPC clients in a room without a proxy',
    why: 'Every call crosses rooms, and a zone-pinned proxy routes to its own room’s brokers, so these clients never use their room’s brokers and stop when the links to the proxies’ rooms fail.'
  },
  {
    id: 'topic-single-room',
    severity: 'error',
    title: 'Topic served from one room only',
    why: 'Every master serves every topic, so a topic is served by the rooms that hold masters; with one such room, losing it stops all sends and consumption.'
  },
  {
    id: 'topic-split-across-clusters',
    severity: 'error',
    title: 'Topic served by a different cluster in each room',
    why: 'RocketMQ scopes topic and consumer-group admin to a cluster (mqadmin updateTopic -c, updateSubGroup -c, a cluster-mode proxy’s rocketMQClusterName). With rooms in different clusters a topic created or changed for one cluster exists only in its rooms: once they are lost the other rooms reject its sends.'
  },
  {
    id: 'consumer-group-single-room',
    severity: 'warning',
    title: 'Consumer group present in one room only',
    why: 'When that room loses its consumers no other room has a member of the group to take over its queues (scenario 4).'
  },
  {
    id: 'consumer-group-mixed-topics',
    severity: 'error',
    title: 'Consumer group members subscribe different topics',
    why: 'RocketMQ expects one subscription per group; mixed members rebalance against each other and leave queues unconsumed.'
  },
  {
    id: 'zone-mode-no-fallback',
    severity: 'error',
    title: 'Zone mode without a fallback path',
    why: 'RocketMQ zone mode makes name servers return only same-room brokers; clients without fallback rooms get an empty route when their room loses its brokers.'
  },
  {
    id: 'java-clients-without-extension',
    severity: 'warning',
    title: 'Stock Java clients without the room-aware extension',
    why: 'The stock Java client spreads sends over every room’s brokers (about half cross the room link while healthy), and zone mode has no fallback at all; the java-dr extension keeps a room’s traffic at home and fails over.'
  },
  {
    id: 'fallback-room-without-broker',
    severity: 'warning',
    title: 'Fallback room that cannot serve',
    why: 'A fallback room is only useful if it holds a master broker and is not the client’s own room.'
  },
  {
    id: 'master-slave-same-room',
    severity: 'info',
    title: 'Slaves sit in the master’s room',
    why: 'A same-room slave covers a host failure, not a room failure: both copies go down together.'
  },
  {
    id: 'broker-group-no-remote-replica',
    severity: 'warning',
    title: 'Broker group with every replica in one room',
    why: 'Messages stored in the group are unreachable (or lost) while that room is down; other rooms only take new traffic.'
  },
  {
    id: 'broker-group-spans-rooms',
    severity: 'info',
    title: 'Broker group spread over several rooms',
    why: 'The name server keeps one zone per brokerName and the last broker to register wins; the export starts every broker of the group with the master’s ROCKETMQ_ZONE so routes stay stable.'
  },
  {
    id: 'duplicate-broker-names-across-rooms',
    severity: 'error',
    title: 'Same brokerName on several masters',
    why: 'Name servers key brokers by brokerName alone; two masters with one name (in different rooms or clusters) overwrite each other in every route.'
  },
  {
    id: 'controller-quorum-majority-one-room',
    severity: 'error',
    title: 'Controller quorum majority in one room',
    why: 'The controllers elect masters only while a majority of them agree. When the room holding the majority is lost, no broker group anywhere gets a new master; when it is cut off, it keeps deciding alone for every room.'
  },
  {
    id: 'controller-quorum-too-small',
    severity: 'warning',
    title: 'Controller quorum of fewer than three',
    why: 'A DLedger quorum of one or two controllers stops electing as soon as one of them is lost, so the next master failure is not handled (the RocketMQ deploy guide asks for at least three).'
  },
  {
    id: 'in-sync-replicas-after-room-loss',
    severity: 'error',
    title: 'In-sync replicas out of reach after a room loss',
    why: 'A controller-mode master acknowledges a write only when enough replicas are in sync (inSyncReplicas, minInSyncReplicas). If losing one room leaves fewer replicas than that, every send to the group fails for as long as the room is down.'
  },
  {
    id: 'unclean-election-enabled',
    severity: 'warning',
    title: 'Unclean master election enabled',
    why: 'With enableElectUncleanMaster the controllers may elect a replica outside the SyncStateSet; the acknowledged messages it never received are lost for good.'
  },
  {
    id: 'replication-asynchronous',
    severity: 'warning',
    title: 'Controller-mode writes acknowledged before replication',
    why: 'With allAckInSyncStateSet false and inSyncReplicas 1 the master acknowledges before any replica has the message; a master that dies takes what it had not replicated with it (the RPO is not zero).'
  },
  {
    id: 'master-slave-same-host',
    severity: 'warning',
    title: 'Master and slave on the same host',
    why: 'One machine failure takes both copies of the broker group.'
  },
  {
    id: 'host-in-several-rooms',
    severity: 'error',
    title: 'One host listed in several rooms',
    why: 'A room is a failure domain. A machine that holds nodes of two rooms fails both at once, so the design does not survive the loss the rooms are there for; usually a host name copied from the wrong room.'
  },
  {
    id: 'port-collision-on-host',
    severity: 'error',
    title: 'Port collision on a host',
    why: 'Two nodes on one host cannot bind the same port; a broker also binds port-2 (fast channel) and port+1 (HA).'
  },
  {
    id: 'store-path-collision-on-host',
    severity: 'error',
    title: 'Two brokers share a store path on one host',
    why: 'The second broker fails with "Lock failed, MQ already started", or both corrupt one commit log.'
  },
  {
    id: 'loopback-host',
    severity: 'warning',
    title: 'Node placed on a loopback address',
    why: 'Brokers register their address with every room’s name servers; a loopback address is unreachable from other machines and rooms.'
  },
  {
    id: 'probe-interval-exceeds-route-refresh',
    severity: 'warning',
    title: 'Management probes slower than client route refresh',
    why: 'Clients refresh faster than the management node notices a dead name server, so they keep being handed it.'
  },
  {
    id: 'probe-timeout-exceeds-interval',
    severity: 'warning',
    title: 'Probe timeout not shorter than the probe interval',
    why: 'Probes of an unresponsive name server overlap and the health view lags by several intervals.'
  },
  {
    id: 'failover-timers-too-slow',
    severity: 'warning',
    title: 'Route refresh or probe too slow for room failover',
    why: 'Consumer takeover across rooms waits for a route refresh and name-server failover waits for a failed probe. The shipped failover scenarios recover in 1–2 s; a timer above 10 s makes every such room failure an outage at least that long.'
  },
  {
    id: 'queues-fewer-than-consumers',
    severity: 'info',
    title: 'More consumers in a room than local queues',
    why: 'Same-room allocation gives each consumer at least one queue; the extra consumers sit idle until a failover.'
  },
  {
    id: 'producer-topic-without-consumer',
    severity: 'info',
    title: 'Topic produced but never consumed',
    why: 'Messages pile up until retention deletes them, and scenario checks cannot measure loss for it.'
  }
] as const satisfies readonly LintRule[]

export type LintRuleId = (typeof LINT_RULES)[number]['id']

/** One DR design mistake found in a topology, pointing at the nodes and the JSON path involved. */
export interface LintFinding {
  ruleId: LintRuleId
  severity: LintSeverity
  message: string
  hint: string
  /** Ids of the nodes (or rooms, for room-level rules) involved, for highlighting on the canvas. */
  nodeIds: string[]
  /** JSONPath into the topology document, `$` for the document itself. */
  path: string
}

/** Looks a rule up by id; undefined for ids from a newer build. */
export function lintRule(id: string): LintRule | undefined {
  return LINT_RULES.find((r) => r.id === id)
}
