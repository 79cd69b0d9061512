import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  masterAddress,
  RemoteError,
  RemotingRpc,
  RequestCode,
  type RemotingError
} from '../../main/services/remoting'
import {
  assertJars,
  makeRunDir,
  removeRunDir,
  runningJvmPids,
  startBroker,
  startNamesrv,
  stopAllJvms,
  type JvmProcess
} from './helpers/jvm'

const TOPIC = `DrStudioIt_${process.pid}`
const BROKER = 'broker-a'
const CLIENT_ID = `127.0.0.1@room1-it-${process.pid}`

describe('remoting client against real RocketMQ 5.3.3', () => {
  let root: string
  let ns: JvmProcess
  let broker: JvmProcess
  let client: RemotingRpc

  beforeAll(async () => {
    assertJars()
    root = await makeRunDir('remoting')
    ns = await startNamesrv(root)
    broker = await startBroker(root, {
      namesrvAddr: ns.address,
      brokerName: BROKER,
      clusterName: 'ItCluster',
      zone: 'room1'
    })
    client = new RemotingRpc()
  })

  afterAll(async () => {
    client?.close()
    await stopAllJvms()
    expect(runningJvmPids()).toEqual([])
    if (root) await removeRunDir(root)
  })

  it('cluster info (fastjson body) lists the broker with zoneName room1', async () => {
    await expect
      .poll(async () => (await client.getBrokerClusterInfo(ns.address)).brokerAddrTable[BROKER], {
        timeout: 30_000,
        interval: 200
      })
      .toBeDefined()
    const info = await client.getBrokerClusterInfo(ns.address)
    const data = info.brokerAddrTable[BROKER]
    expect(data?.zoneName).toBe('room1')
    expect(data?.cluster).toBe('ItCluster')
    expect(data && masterAddress(data)).toBe(broker.address)
    expect(info.clusterAddrTable.ItCluster).toEqual([BROKER])
  })

  it('reports an unknown topic as RemoteError 17 (TOPIC_NOT_EXIST)', async () => {
    const err = await client.getRouteInfoByTopic(ns.address, `${TOPIC}_missing`).catch((e) => e)
    expect(err).toBeInstanceOf(RemoteError)
    expect((err as RemoteError).responseCode).toBe(17)
  })

  it('creates a topic on the broker and the namesrv route shows it with zoneName', async () => {
    await client.updateAndCreateTopic(broker.address, {
      topic: TOPIC,
      brokerName: BROKER,
      readQueueNums: 4,
      writeQueueNums: 4
    })
    await expect
      .poll(
        () =>
          client.getRouteInfoByTopic(ns.address, TOPIC).then(
            (r) => r.brokerDatas.length,
            () => 0
          ),
        { timeout: 30_000, interval: 200 }
      )
      .toBe(1)
    const route = await client.getRouteInfoByTopic(ns.address, TOPIC)
    expect(route.brokerDatas[0]).toMatchObject({
      brokerName: BROKER,
      cluster: 'ItCluster',
      zoneName: 'room1',
      brokerAddrs: { '0': broker.address }
    })
    expect(route.queueDatas[0]).toMatchObject({
      brokerName: BROKER,
      readQueueNums: 4,
      writeQueueNums: 4,
      perm: 6
    })
  })

  it('sends with SEND_MESSAGE_V2 and pulls the message back (body, keys, tags, UNIQ_KEY)', async () => {
    const body = Buffer.from(`hello from ${process.pid} ✓`)
    const before = await client.getMaxOffset(broker.address, {
      brokerName: BROKER,
      topic: TOPIC,
      queueId: 1
    })
    const sent = await client.sendMessageV2(broker.address, {
      brokerName: BROKER,
      producerGroup: 'PG_IT',
      topic: TOPIC,
      queueId: 1,
      body,
      tags: 'TagA',
      keys: ['k1', 'order-42'],
      properties: { custom: 'v' }
    })
    expect(sent).toMatchObject({ status: 'SEND_OK', queueId: 1, queueOffset: before })
    expect(sent.msgId).toMatch(/^[0-9A-F]{32}$/)
    expect(sent.offsetMsgId).toMatch(/^[0-9A-F]{32}$/)
    expect(
      await client.getMaxOffset(broker.address, { brokerName: BROKER, topic: TOPIC, queueId: 1 })
    ).toBe(before + 1)

    const pulled = await client.pullMessage(broker.address, {
      brokerName: BROKER,
      consumerGroup: 'CG_IT',
      topic: TOPIC,
      queueId: 1,
      queueOffset: sent.queueOffset,
      suspendTimeoutMs: 0
    })
    expect(pulled.status).toBe('FOUND')
    expect(pulled.nextBeginOffset).toBe(sent.queueOffset + 1)
    const [m] = pulled.messages
    expect(m?.body.equals(body)).toBe(true)
    expect(m).toMatchObject({
      topic: TOPIC,
      queueId: 1,
      queueOffset: sent.queueOffset,
      msgId: sent.msgId,
      offsetMsgId: sent.offsetMsgId,
      tags: 'TagA',
      keys: ['k1', 'order-42'],
      storeHost: broker.address
    })
    expect(m?.properties.UNIQ_KEY).toBe(sent.msgId)
    expect(m?.properties.custom).toBe('v')

    const filtered = await client.pullMessage(broker.address, {
      brokerName: BROKER,
      consumerGroup: 'CG_IT',
      topic: TOPIC,
      queueId: 1,
      queueOffset: sent.queueOffset,
      expression: 'OtherTag',
      suspendTimeoutMs: 0
    })
    expect(filtered.messages).toEqual([])
  })

  it('long-polls: a suspended pull returns as soon as a message arrives', async () => {
    const next = await client.getMaxOffset(broker.address, {
      brokerName: BROKER,
      topic: TOPIC,
      queueId: 2
    })
    const started = Date.now()
    const pull = client.pullMessage(broker.address, {
      brokerName: BROKER,
      consumerGroup: 'CG_IT',
      topic: TOPIC,
      queueId: 2,
      queueOffset: next,
      suspendTimeoutMs: 10_000
    })
    const sent = await client.sendMessageV2(broker.address, {
      brokerName: BROKER,
      producerGroup: 'PG_IT',
      topic: TOPIC,
      queueId: 2,
      body: 'wake up'
    })
    const res = await pull
    const elapsed = Date.now() - started
    expect(res.status).toBe('FOUND')
    expect(res.messages[0]?.msgId).toBe(sent.msgId)
    expect(elapsed).toBeLessThan(10_000)
  })

  it('stores and queries consumer offsets (QUERY_NOT_FOUND → undefined)', async () => {
    const q = {
      brokerName: BROKER,
      consumerGroup: `CG_OFF_${process.pid}`,
      topic: TOPIC,
      queueId: 1
    }
    // 5.x refuses offsets of unknown groups (code 26); a first pull auto-creates the group.
    const first = await client.pullMessage(broker.address, {
      ...q,
      queueOffset: 0,
      suspendTimeoutMs: 0
    })
    expect(first.status).toBe('FOUND')
    expect(
      await client.queryConsumerOffset(broker.address, { ...q, setZeroIfNotFound: false })
    ).toBeUndefined()
    // Without setZeroIfNotFound=false the broker answers 0 while the queue's head is in memory.
    expect(await client.queryConsumerOffset(broker.address, q)).toBe(0)
    await client.updateConsumerOffset(broker.address, { ...q, commitOffset: first.nextBeginOffset })
    expect(await client.queryConsumerOffset(broker.address, q)).toBe(first.nextBeginOffset)
    await client.updateConsumerOffset(broker.address, { ...q, commitOffset: 0 }, { oneway: true })
    await expect.poll(() => client.queryConsumerOffset(broker.address, q)).toBe(0)
  })

  it('lists our client in GET_CONSUMER_LIST_BY_GROUP only after a heartbeat', async () => {
    const group = `CG_HB_${process.pid}`
    const list = (): Promise<string[]> =>
      client.getConsumerListByGroup(broker.address, group, { brokerName: BROKER })
    expect(await list()).toEqual([])
    await client.heartbeat(broker.address, {
      clientId: CLIENT_ID,
      consumers: [{ groupName: group, subscriptions: [{ topic: TOPIC, expression: '*' }] }]
    })
    expect(await list()).toEqual([CLIENT_ID])
    await client.unregisterClient(broker.address, { clientId: CLIENT_ID, consumerGroup: group })
    expect(await list()).toEqual([])
  })

  it('decodes the binary (ROCKETMQ) header from a namesrv configured to use it', async () => {
    const binaryNs = await startNamesrv(root, {
      name: 'ns-binary',
      env: { ROCKETMQ_SERIALIZE_TYPE: 'ROCKETMQ' }
    })
    try {
      const raw = await client.invoke(binaryNs.address, {
        code: RequestCode.GET_BROKER_CLUSTER_INFO
      })
      expect(raw.serializeType).toBe(1)
      expect(raw.code).toBe(0)
      const info = await client.getBrokerClusterInfo(binaryNs.address)
      expect(info.brokerAddrTable).toEqual({})
      const err = await client.getRouteInfoByTopic(binaryNs.address, TOPIC).catch((e) => e)
      expect(err).toMatchObject({ code: 'remote-error', responseCode: 17 })
      expect((err as RemoteError).remark).toMatch(/No topic route info/)
    } finally {
      client.closeConnection(binaryNs.address)
      await binaryNs.stop()
    }
  })

  it('fails with typed errors once the broker is killed: connection-closed, then connect-failed', async () => {
    const next = await client.getMaxOffset(broker.address, {
      brokerName: BROKER,
      topic: TOPIC,
      queueId: 0
    })
    const hanging = client
      .pullMessage(broker.address, {
        brokerName: BROKER,
        consumerGroup: 'CG_IT',
        topic: TOPIC,
        queueId: 0,
        queueOffset: next,
        suspendTimeoutMs: 20_000
      })
      .catch((e: unknown) => e)
    await broker.stop('SIGKILL')
    const closed = (await hanging) as RemotingError
    expect(closed.code).toBe('connection-closed')
    const refused = (await client
      .getMaxOffset(broker.address, { brokerName: BROKER, topic: TOPIC, queueId: 0 })
      .catch((e: unknown) => e)) as RemotingError
    expect(refused.code).toBe('connect-failed')
    // The namesrv notices the closed channel at once and drops the broker.
    await expect
      .poll(async () => (await client.getBrokerClusterInfo(ns.address)).brokerAddrTable[BROKER], {
        timeout: 15_000,
        interval: 200
      })
      .toBeUndefined()
  })
})
