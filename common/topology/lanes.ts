/**
 * Client lanes: the one list of them and what each needs. The topology schema's enum, the worker
 * protocol's lane type, which process hosts a lane's clients and which lanes load
 * rocketmq-client-nodejs are all read from LANE_TRAITS, so a new lane is one row here.
 *
 * `remoting` (our room-aware client), `grpc` (rocketmq-client-nodejs through zone-pinned proxies,
 * room-aware), `baseline` (rocketmq-client-nodejs on one endpoint, as users configure it), and the
 * stock RocketMQ 5.3.3 Java client: `java` (address server = the room's management node),
 * `java-zone` (RocketMQ zone mode: same-room brokers only, no fallback), `java-tuned` (the Java
 * client with failover timers set the way an SRE would) and `java-dr` (the Java client with our
 * room-aware extension, the method as operators can ship it in their Java applications).
 */

/**
 * What producers send: plain messages, messages the broker holds until a due time (RocketMQ 5.x
 * timer, `TIMER_DELIVER_MS`), or ordered messages (each sharding key's messages to one queue, in
 * sequence, consumed orderly), or transactional messages (a half message, then the local
 * transaction's commit or rollback, some left to the broker's check-back).
 */
export const MESSAGE_KINDS = ['normal', 'delayed', 'ordered', 'transactional'] as const
export type MessageKind = (typeof MESSAGE_KINDS)[number]

/** What a lane's clients need to run. */
export interface LaneTraits {
  /** The process that hosts the lane's clients: our Node room worker, or a Java client worker JVM. */
  runtime: 'node' | 'java'
  /** The clients are rocketmq-client-nodejs, which a room worker loads on the first such client. */
  grpcSdk: boolean
  /** Proxies the clients reach brokers through: zone-pinned ones, any one, or none (direct). */
  proxies: 'zone-pinned' | 'any' | 'none'
  /** The lane picker's text: the name and what runs, so the choice needs no manual. */
  label: string
  /** What the lane is, in a sentence's clause (benchmark reports, docs). */
  summary: string
  /** Message kinds the lane's producers can send; a run asking another is refused up front. */
  messageKinds: readonly MessageKind[]
  /**
   * How its push consumers split a group's queues: `nearby` (our rule, allocate-nearby.ts),
   * `rooms` (each room's queues to that room's consumers while it has any), `any` (averagely,
   * rooms ignored), `pop` (POP consumers own no queues).
   */
  queueAllocation: 'nearby' | 'rooms' | 'any' | 'pop'
  /**
   * The longest one request may take when the scenario sets no `client.requestTimeout`; absent,
   * DEFAULT_REQUEST_TIMEOUT_MS.
   */
  requestTimeoutMs?: number
  /**
   * Its ordered sends follow `client.orderPolicy` (wait | reroute); other lanes order the way their
   * library does.
   */
  orderPolicy?: true
}

/** Per-request cap of a run's clients when neither the scenario nor the lane sets one (our client's). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 400

/** Every lane, in the order users see them (the lane picker, `--lanes` help). */
export const LANE_TRAITS = {
  remoting: {
    runtime: 'node',
    grpcSdk: false,
    proxies: 'none',
    label: 'remoting (room-aware, ours)',
    summary: 'our room-aware client',
    queueAllocation: 'nearby',
    messageKinds: ['normal', 'delayed', 'ordered', 'transactional'],
    orderPolicy: true
  },
  java: {
    runtime: 'java',
    grpcSdk: false,
    proxies: 'none',
    label: 'java (stock Java client)',
    summary: 'stock Java client 5.3.3 (address server = the room’s management node)',
    queueAllocation: 'any',
    messageKinds: ['normal', 'delayed', 'ordered', 'transactional']
  },
  'java-zone': {
    runtime: 'java',
    grpcSdk: false,
    proxies: 'none',
    label: 'java-zone (Java, zone mode)',
    summary: 'Java with RocketMQ zone mode and AllocateMachineRoomNearby',
    queueAllocation: 'rooms',
    messageKinds: ['normal', 'delayed', 'ordered', 'transactional']
  },
  'java-tuned': {
    runtime: 'java',
    grpcSdk: false,
    proxies: 'none',
    label: 'java-tuned (Java, fast timers)',
    summary:
      'Java with 1 s route poll / heartbeat / rebalance, latency fault tolerance and a 400 ms per-request cap',
    queueAllocation: 'any',
    messageKinds: ['normal', 'delayed', 'ordered', 'transactional']
  },
  'java-dr': {
    runtime: 'java',
    grpcSdk: false,
    proxies: 'none',
    label: 'java-dr (Java + our extension)',
    summary:
      'stock Java client 5.3.3 with our room-aware extension (resources/java-dr: room name servers, same-room sends with failover, AllocateMachineRoomNearby)',
    // Ordered sends through the extension's RoomOrderSelector; transactional sends stay the stock
    // client's own path, which the extension does not make room-aware.
    queueAllocation: 'rooms',
    messageKinds: ['normal', 'delayed', 'ordered'],
    orderPolicy: true,
    // The extension's own default: a JVM client on a busy host stalls past 400 ms now and then, and
    // the stock remoting client then closes the socket under every request in flight.
    requestTimeoutMs: 1000
  },
  grpc: {
    runtime: 'node',
    grpcSdk: true,
    proxies: 'zone-pinned',
    label: 'grpc (official Node client, room-aware)',
    summary:
      'rocketmq-client-nodejs 1.0.8 through the own room’s zone-pinned proxy with our proxy failover',
    queueAllocation: 'pop',
    // Delayed through the library's deliveryTimestamp (type DELAY), ordered through its FIFO
    // messageGroup (one queue per key of the proxy's route; a FIFO consumer group), both on a
    // MIXED topic (run-plan.ts). A move to another room's proxy moves a key to that room's queues.
    // Transactional: the producer sends half messages and answers check-backs (grpc-producer.ts,
    // on a TRANSACTION topic, run-plan.ts). A proxy hands a check-back to any gRPC producer of the
    // topic it serves (the topic is the producer group), round robin in the same order each pass,
    // so one room's message can be asked of another room's producer every time: the lane's local
    // transactions are shared across rooms (client-fleet.ts, tx.learn), as an application's
    // database is.
    messageKinds: ['normal', 'delayed', 'ordered', 'transactional']
  },
  baseline: {
    runtime: 'node',
    grpcSdk: true,
    proxies: 'any',
    label: 'baseline (official Node client, one proxy)',
    summary: 'rocketmq-client-nodejs with its defaults on the plain proxy',
    queueAllocation: 'pop',
    messageKinds: ['normal', 'delayed', 'ordered', 'transactional']
  }
} as const satisfies Record<string, LaneTraits>

type Traits = typeof LANE_TRAITS

/** A client lane (the topology's `lane`, the worker protocol's `ClientSpec.lane`). */
export type ClientLane = keyof Traits

/** Lanes whose trait `K` is `V`, as a type. */
type LanesWhere<K extends keyof LaneTraits & keyof Traits[ClientLane], V> = {
  [L in ClientLane]: Traits[L][K] extends V ? L : never
}[ClientLane]

/** Lanes the Java client worker hosts, one JVM per room and lane. */
export type JavaLane = LanesWhere<'runtime', 'java'>
/** Lanes a Node room worker hosts. */
export type NodeLane = LanesWhere<'runtime', 'node'>
/** Lanes whose clients are rocketmq-client-nodejs. */
export type GrpcSdkLane = LanesWhere<'grpcSdk', true>

/** Every lane, in LANE_TRAITS order. */
export const CLIENT_LANES = Object.keys(LANE_TRAITS) as [ClientLane, ...ClientLane[]]

/** The per-request cap a lane's clients get when the scenario sets none. */
export function laneRequestTimeoutMs(lane: ClientLane): number {
  const traits: LaneTraits = LANE_TRAITS[lane]
  return traits.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS
}

/** Whether the lane's producers can send this kind of message. */
export function laneSends(lane: ClientLane, kind: MessageKind): boolean {
  return (LANE_TRAITS[lane].messageKinds as readonly MessageKind[]).includes(kind)
}

/** Whether the lane's ordered sends follow `client.orderPolicy`. */
export function laneFollowsOrderPolicy(lane: ClientLane): boolean {
  const traits: LaneTraits = LANE_TRAITS[lane]
  return traits.orderPolicy === true
}

/** Whether the lane's clients run in a Java client worker JVM (else a Node room worker). */
export function isJavaLane(lane: ClientLane): lane is JavaLane {
  return LANE_TRAITS[lane].runtime === 'java'
}

/** Whether the lane's clients are rocketmq-client-nodejs, so a room worker must load its SDK. */
export function usesGrpcSdk(lane: ClientLane): lane is GrpcSdkLane {
  return LANE_TRAITS[lane].grpcSdk
}

/** The Java lanes, in LANE_TRAITS order. */
export const JAVA_LANES: readonly JavaLane[] = CLIENT_LANES.filter(isJavaLane)

/** The lanes a Node room worker hosts (what its hello lists), in LANE_TRAITS order. */
export const NODE_LANES: readonly NodeLane[] = CLIENT_LANES.filter(
  (lane): lane is NodeLane => !isJavaLane(lane)
)
