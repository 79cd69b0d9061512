import { EventEmitter } from 'node:events'
import * as brokerAdmin from './broker-admin-requests'
import type { CreateTopicInput, SubscriptionGroupInput } from './broker-admin-requests'
import * as client from './client-requests'
import type { ConsumerQueueInput, QueueLockInput } from './client-requests'
import type { DecodedCommand } from './codec'
import {
  RemotingConnection,
  type RemotingConnectionOptions,
  type RemotingRequest
} from './connection'
import * as controller from './controller-requests'
import type { ControllerMetadata, ReplicaInfo } from './controller-requests'
import type { RemotingError } from './errors'
import type { HeartbeatInput } from './message'
import * as messages from './message-requests'
import type { PullMessageInput, PullResult, SendMessageInput, SendResult } from './message-requests'
import * as nameserver from './nameserver-requests'
import type { CallOptions } from './remoting-calls'
import * as transactions from './transaction-requests'
import type { EndTransactionInput } from './transaction-requests'
import type { ClusterInfo, HaRuntimeInfo, MessageQueueRef, ReplicasInfo, TopicRoute } from './types'

export type { CallOptions } from './remoting-calls'
export { toExtFields } from './remoting-calls'
export type { CreateTopicInput, SubscriptionGroupInput } from './broker-admin-requests'
export type {
  PullMessageInput,
  PullResult,
  PullStatus,
  SendMessageInput,
  SendResult,
  SendStatus
} from './message-requests'
export type { ConsumerQueueInput } from './client-requests'
export type { ControllerMetadata, ReplicaInfo } from './controller-requests'
export { parseControllerPeers } from './controller-requests'

/** Options of a RemotingRpc; `connectionFactory` is the port tests use to substitute sockets. */
export interface RemotingRpcOptions extends RemotingConnectionOptions {
  connectionFactory?: (address: string, options: RemotingConnectionOptions) => RemotingConnection
}

/** Events re-emitted from every pooled connection. */
export interface RemotingClientEvents {
  'consumer-ids-changed': [{ address: string; consumerGroup: string | undefined }]
  'connection-close': [{ address: string; error?: RemotingError }]
  /** A request the server pushed (e.g. a broker's CHECK_TRANSACTION_STATE), with who sent it. */
  'server-request': [{ address: string; command: DecodedCommand }]
}

/**
 * RocketMQ remoting client: one pooled connection per address and typed helpers for the requests
 * DR Studio needs. The caller chooses every address; nothing here picks a namesrv or broker.
 */
export class RemotingRpc extends EventEmitter<RemotingClientEvents> {
  private readonly pool = new Map<string, RemotingConnection>()
  private readonly options: RemotingRpcOptions
  private closed = false

  constructor(options: RemotingRpcOptions = {}) {
    super()
    this.options = options
  }

  /** The pooled connection for an address, created on first use. */
  connection(address: string): RemotingConnection {
    let conn = this.pool.get(address)
    if (conn && !conn.isClosed) return conn
    const { connectionFactory, ...connOptions } = this.options
    conn = connectionFactory
      ? connectionFactory(address, connOptions)
      : new RemotingConnection(address, connOptions)
    conn.on('consumer-ids-changed', (e) => this.emit('consumer-ids-changed', e))
    conn.on('close', (e) => this.emit('connection-close', e))
    conn.on('server-request', (command) => this.emit('server-request', { address, command }))
    if (!this.closed) this.pool.set(address, conn)
    else conn.close()
    return conn
  }

  /** Raw request: resolves with any response code; rejects only on transport errors. */
  invoke(address: string, req: RemotingRequest, timeoutMs?: number): Promise<DecodedCommand> {
    return this.connection(address).request(req, timeoutMs)
  }

  /** Raw oneway request. */
  invokeOneway(address: string, req: RemotingRequest): Promise<void> {
    return this.connection(address).oneway(req)
  }

  /** Drops the pooled connection of one address (e.g. after the peer was killed). */
  closeConnection(address: string): void {
    this.pool.get(address)?.close()
    this.pool.delete(address)
  }

  /** Closes every connection; pending requests fail with connection-closed. */
  close(): void {
    this.closed = true
    for (const conn of this.pool.values()) conn.close()
    this.pool.clear()
  }

  /** GET_ROUTEINFO_BY_TOPIC (105); TOPIC_NOT_EXIST surfaces as RemoteError with responseCode 17. */
  getRouteInfoByTopic(
    namesrvAddress: string,
    topic: string,
    options: CallOptions = {}
  ): Promise<TopicRoute> {
    return nameserver.getRouteInfoByTopic(this, namesrvAddress, topic, options)
  }

  /** GET_BROKER_CLUSTER_INFO (106); its body is always fastjson with bare numeric keys. */
  getBrokerClusterInfo(namesrvAddress: string, options: CallOptions = {}): Promise<ClusterInfo> {
    return nameserver.getBrokerClusterInfo(this, namesrvAddress, options)
  }

  /**
   * GET_ALL_TOPIC_LIST_FROM_NAMESERVER (206): topic names only, system topics included. A name
   * server with `enableAllTopicList=false` answers SYSTEM_ERROR "disable" (a RemoteError).
   */
  getAllTopicListFromNameserver(
    namesrvAddress: string,
    options: CallOptions = {}
  ): Promise<string[]> {
    return nameserver.getAllTopicListFromNameserver(this, namesrvAddress, options)
  }

  /** GET_KV_CONFIG (101): a name server's KV entry; undefined when it has none (QUERY_NOT_FOUND). */
  getKvConfig(
    namesrvAddress: string,
    input: { namespace: string; key: string },
    options: CallOptions = {}
  ): Promise<string | undefined> {
    return nameserver.getKvConfig(this, namesrvAddress, input, options)
  }

  /** GET_BROKER_RUNTIME_INFO (28): the broker's own stats (`mqadmin brokerStatus`), read-only. */
  getBrokerRuntimeInfo(
    brokerAddress: string,
    options: CallOptions = {}
  ): Promise<Record<string, string>> {
    return brokerAdmin.getBrokerRuntimeInfo(this, brokerAddress, options)
  }

  /** GET_BROKER_HA_STATUS (907): the broker's replication state (`mqadmin haStatus`), read-only. */
  getBrokerHaStatus(brokerAddress: string, options: CallOptions = {}): Promise<HaRuntimeInfo> {
    return brokerAdmin.getBrokerHaStatus(this, brokerAddress, options)
  }

  /** UPDATE_AND_CREATE_TOPIC (17) to one master broker, which then registers it with its namesrvs. */
  updateAndCreateTopic(
    brokerAddress: string,
    input: CreateTopicInput,
    options: CallOptions = {}
  ): Promise<void> {
    return brokerAdmin.updateAndCreateTopic(this, brokerAddress, input, options)
  }

  /** UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200) on one broker (`mqadmin updateSubGroup`). */
  updateAndCreateSubscriptionGroup(
    brokerAddress: string,
    input: SubscriptionGroupInput,
    options: CallOptions = {}
  ): Promise<void> {
    return brokerAdmin.updateAndCreateSubscriptionGroup(this, brokerAddress, input, options)
  }

  /**
   * UPDATE_BROKER_CONFIG (25): sets broker properties (a Java properties body), as
   * `mqadmin updateBrokerConfig` does. Setting `brokerPermission` makes the broker register with
   * every name server it knows at once (AdminBrokerProcessor.updateBrokerConfig).
   */
  updateBrokerConfig(
    brokerAddress: string,
    properties: Record<string, string | number | boolean>,
    options: CallOptions = {}
  ): Promise<void> {
    return brokerAdmin.updateBrokerConfig(this, brokerAddress, properties, options)
  }

  /** GET_CONSUMER_LIST_BY_GROUP (38); the broker's "no consumer for this group" is an empty list. */
  getConsumerListByGroup(
    brokerAddress: string,
    consumerGroup: string,
    options: CallOptions & { brokerName?: string } = {}
  ): Promise<string[]> {
    return brokerAdmin.getConsumerListByGroup(this, brokerAddress, consumerGroup, options)
  }

  /** SEND_MESSAGE_V2 (310) to the chosen broker and queue; codes 0/10/11/12 all mean stored. */
  sendMessageV2(
    brokerAddress: string,
    input: SendMessageInput,
    options: CallOptions = {}
  ): Promise<SendResult> {
    return messages.sendMessageV2(this, brokerAddress, input, options)
  }

  /** PULL_MESSAGE (11) with long polling; the default timeout is the suspend time plus 5 s. */
  pullMessage(
    brokerAddress: string,
    input: PullMessageInput,
    options: CallOptions = {}
  ): Promise<PullResult> {
    return messages.pullMessage(this, brokerAddress, input, options)
  }

  /**
   * QUERY_CONSUMER_OFFSET (14); undefined when nothing was committed. Pass setZeroIfNotFound=false
   * to get that reliably: otherwise the broker answers 0 while the queue's head is still in memory.
   */
  queryConsumerOffset(
    brokerAddress: string,
    input: ConsumerQueueInput & { setZeroIfNotFound?: boolean },
    options: CallOptions = {}
  ): Promise<number | undefined> {
    return client.queryConsumerOffset(this, brokerAddress, input, options)
  }

  /** UPDATE_CONSUMER_OFFSET (15); `oneway` mirrors the Java client, which does not wait. */
  updateConsumerOffset(
    brokerAddress: string,
    input: ConsumerQueueInput & { commitOffset: number },
    options: CallOptions & { oneway?: boolean } = {}
  ): Promise<void> {
    return client.updateConsumerOffset(this, brokerAddress, input, options)
  }

  /** GET_MAX_OFFSET (30): the next offset to be written in a queue. */
  getMaxOffset(
    brokerAddress: string,
    input: { brokerName: string; topic: string; queueId: number; committed?: boolean },
    options: CallOptions = {}
  ): Promise<number> {
    return client.getMaxOffset(this, brokerAddress, input, options)
  }

  /** HEART_BEAT (34): registers producer/consumer groups so the broker lists this client. */
  heartbeat(
    brokerAddress: string,
    input: HeartbeatInput,
    options: CallOptions = {}
  ): Promise<void> {
    return client.heartbeat(this, brokerAddress, input, options)
  }

  /** UNREGISTER_CLIENT (35): leave a group at once instead of waiting for the 120 s expiry. */
  unregisterClient(
    brokerAddress: string,
    input: { clientId: string; producerGroup?: string; consumerGroup?: string },
    options: CallOptions = {}
  ): Promise<void> {
    return client.unregisterClient(this, brokerAddress, input, options)
  }

  /** LOCK_BATCH_MQ (41): takes or renews queue locks for orderly consumption; answers those held. */
  lockBatchMq(
    brokerAddress: string,
    input: QueueLockInput,
    options: CallOptions = {}
  ): Promise<MessageQueueRef[]> {
    return client.lockBatchMq(this, brokerAddress, input, options)
  }

  /** UNLOCK_BATCH_MQ (42): gives queue locks back. */
  unlockBatchMq(
    brokerAddress: string,
    input: QueueLockInput,
    options: CallOptions = {}
  ): Promise<void> {
    return client.unlockBatchMq(this, brokerAddress, input, options)
  }

  /** END_TRANSACTION (37), oneway: commits or rolls back a half message (or leaves it to the check-back). */
  endTransaction(brokerAddress: string, input: EndTransactionInput): Promise<void> {
    return transactions.endTransaction(this, brokerAddress, input)
  }

  /** CONTROLLER_GET_METADATA_INFO (1005): any controller answers with the quorum's leader. */
  getControllerMetadata(
    controllerAddress: string,
    options: CallOptions = {}
  ): Promise<ControllerMetadata> {
    return controller.getControllerMetadata(this, controllerAddress, options)
  }

  /**
   * CONTROLLER_GET_REPLICA_INFO (1004), leader only: a follower answers CONTROLLER_NOT_LEADER (2007)
   * and a set the controllers never saw CONTROLLER_BROKER_METADATA_NOT_EXIST (2008), as RemoteErrors.
   */
  getReplicaInfo(
    controllerAddress: string,
    brokerName: string,
    options: CallOptions = {}
  ): Promise<ReplicaInfo> {
    return controller.getReplicaInfo(this, controllerAddress, brokerName, options)
  }

  /**
   * CONTROLLER_GET_SYNC_STATE_DATA (1006), leader only: every named broker set's master, epochs and
   * replicas split into in-sync and not, with whether the controllers think each is alive. Sets the
   * controllers do not know are absent from the result.
   */
  getSyncStateData(
    controllerAddress: string,
    brokerNames: readonly string[],
    options: CallOptions = {}
  ): Promise<Record<string, ReplicasInfo>> {
    return controller.getSyncStateData(this, controllerAddress, brokerNames, options)
  }
}
