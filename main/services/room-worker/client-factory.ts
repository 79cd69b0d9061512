import type { ClientChoice } from '../../../common/scenario/events'
import { usesGrpcSdk } from '../../../common/topology/lanes'
import { GrpcConsumer } from '../clients/grpc-lane/grpc-consumer'
import { GrpcProducer } from '../clients/grpc-lane/grpc-producer'
import type { GrpcSdk } from '../clients/grpc-lane/sdk-port'
import type { LocalTransactions } from '../clients/room-aware/local-transactions'
import { DrConsumer } from '../clients/room-aware/consumer'
import type { ClientDeps } from '../clients/room-aware/ports'
import type { ClientCores } from '../clients/room-aware/client-core'
import { DrProducer } from '../clients/room-aware/producer'
import type { ClientSpec } from '../worker-wire/protocol'

/** A producer or consumer a Node worker hosts, whatever its lane. */
export type HostedClient =
  | { role: 'producer'; client: DrProducer | GrpcProducer }
  | { role: 'consumer'; client: DrConsumer | GrpcConsumer }

export interface ClientFactoryDeps extends ClientDeps {
  /** The worker's client cores, shared by its remoting-lane clients (client-core.ts). */
  cores?: ClientCores
  /** rocketmq-client-nodejs, for the grpc and baseline lanes; ClientRuntime loads it on demand. */
  sdk?: () => GrpcSdk
  /** The worker's gRPC producers' local transactions, shared across rooms (GrpcClientDeps). */
  transactions?: LocalTransactions
}

/**
 * Builds (does not start) the client a spec describes. The static name-server list is used only
 * when the spec has no management node (attached clusters, rooms without one).
 */
export function createHostedClient(
  spec: ClientSpec,
  deps: ClientFactoryDeps,
  onChoice: (c: ClientChoice) => void
): HostedClient {
  const t = spec.tuning
  if (usesGrpcSdk(spec.lane)) {
    if (!deps.sdk) throw new Error(`${spec.id}: the ${spec.lane} lane needs rocketmq-client-nodejs`)
    const grpcDeps = { ...deps, sdk: deps.sdk() }
    // The remoting client's request timeout is for direct broker calls; the gRPC lanes keep their
    // own defaults, which account for the proxy hop and the library's floor.
    const lane = {
      id: spec.id,
      room: spec.room,
      topic: spec.topic,
      group: spec.group,
      managementNodes: spec.managementNodes,
      lane: spec.lane,
      roomOrder: spec.roomOrder,
      ...(t.managementRefreshMs !== undefined
        ? { managementRefreshMs: t.managementRefreshMs }
        : {}),
      ...(t.probeIntervalMs !== undefined ? { probeIntervalMs: t.probeIntervalMs } : {}),
      ...(typeof spec.extra?.endpoints === 'string' ? { endpoints: spec.extra.endpoints } : {})
    }
    if (spec.role === 'producer') {
      const client = new GrpcProducer(
        {
          ...lane,
          ...(t.sendTimeoutMs !== undefined ? { sendTimeoutMs: t.sendTimeoutMs } : {}),
          ...(spec.transactional ? { transactional: true } : {})
        },
        grpcDeps
      )
      client.on('choice', onChoice)
      return { role: 'producer', client }
    }
    const client = new GrpcConsumer({ ...lane, expression: spec.tag }, grpcDeps)
    client.on('choice', onChoice)
    return { role: 'consumer', client }
  }
  if (spec.lane !== 'remoting') {
    throw new Error(`${spec.id}: lane ${spec.lane} runs in the Java client worker, not a Node one`)
  }
  const common = {
    id: spec.id,
    room: spec.room,
    topic: spec.topic,
    group: spec.group,
    managementNodes: spec.managementNodes,
    ...(spec.managementNodes.length === 0 ? { initialNameServers: spec.nameServers } : {}),
    brokerRooms: spec.brokerRooms,
    ...(t.policy !== undefined ? { policy: t.policy } : {}),
    ...(t.routeRefreshMs !== undefined ? { routeRefreshMs: t.routeRefreshMs } : {}),
    ...(t.requestTimeoutMs !== undefined ? { requestTimeoutMs: t.requestTimeoutMs } : {}),
    ...(t.managementRefreshMs !== undefined ? { managementRefreshMs: t.managementRefreshMs } : {}),
    ...(t.heartbeatIntervalMs !== undefined ? { heartbeatIntervalMs: t.heartbeatIntervalMs } : {})
  }
  if (spec.role === 'producer') {
    const client = new DrProducer(
      {
        ...common,
        ...(t.sendTimeoutMs !== undefined ? { sendTimeoutMs: t.sendTimeoutMs } : {}),
        ...(t.maxRequestTimeoutMs !== undefined
          ? { maxRequestTimeoutMs: t.maxRequestTimeoutMs }
          : {}),
        ...(t.probeIntervalMs !== undefined ? { probeIntervalMs: t.probeIntervalMs } : {}),
        ...(t.hedge !== undefined ? { hedge: t.hedge } : {}),
        ...(t.orderPolicy !== undefined ? { orderPolicy: t.orderPolicy } : {})
      },
      deps
    )
    client.on('choice', onChoice)
    return { role: 'producer', client }
  }
  const client = new DrConsumer(
    {
      ...common,
      expression: spec.tag,
      ...(spec.startOffsets ? { startOffsets: spec.startOffsets } : {}),
      ...(t.rebalanceIntervalMs !== undefined
        ? { rebalanceIntervalMs: t.rebalanceIntervalMs }
        : {}),
      ...(t.pollTimeoutMs !== undefined ? { pollTimeoutMs: t.pollTimeoutMs } : {}),
      ...(t.keepOffsets !== undefined ? { keepOffsets: t.keepOffsets } : {}),
      ...(spec.orderly ? { orderly: true } : {}),
      ...(t.freeDepartedLocks !== undefined ? { freeDepartedLocks: t.freeDepartedLocks } : {})
    },
    deps
  )
  client.on('choice', onChoice)
  return { role: 'consumer', client }
}
