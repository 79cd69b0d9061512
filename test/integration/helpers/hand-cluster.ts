import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { RemotingRpc } from '../../../main/services/remoting'
import { startBroker, startNamesrv, type JvmProcess } from './jvm'

/**
 * A two-room cluster started the way an operator starts one by hand, outside DR Studio's sandbox:
 * two name servers and two brokers from the same jars, plain config files, a static namesrvAddr
 * listing both name servers, and ROCKETMQ_ZONE set per room unless `zones` is false.
 */
export interface HandCluster {
  nameServers: [JvmProcess, JvmProcess]
  /** broker-a (room1) and broker-b (room2). */
  brokers: [JvmProcess, JvmProcess]
  namesrvAddr: string
  /** The rooms the brokers belong to, as the test means them. */
  rooms: { 'broker-a': 'room1'; 'broker-b': 'room2' }
}

export const HAND_CLUSTER_NAME = 'HandCluster'

export async function startHandCluster(
  root: string,
  opts: { zones: boolean }
): Promise<HandCluster> {
  mkdirSync(root, { recursive: true })
  const nameServers = (await Promise.all([
    startNamesrv(root, { name: 'ns1' }),
    startNamesrv(root, { name: 'ns2' })
  ])) as [JvmProcess, JvmProcess]
  const namesrvAddr = nameServers.map((n) => n.address).join(';')
  const brokers = (await Promise.all(
    (['broker-a', 'broker-b'] as const).map((brokerName, i) =>
      startBroker(root, {
        namesrvAddr,
        brokerName,
        clusterName: HAND_CLUSTER_NAME,
        zone: opts.zones ? `room${i + 1}` : null
      })
    )
  )) as [JvmProcess, JvmProcess]
  return { nameServers, brokers, namesrvAddr, rooms: { 'broker-a': 'room1', 'broker-b': 'room2' } }
}

/** Resolves once `check` passes, re-asking every 200 ms; throws its last error at the deadline. */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      return await check()
    } catch (e) {
      if (Date.now() > deadline) throw e
      await new Promise((r) => setTimeout(r, 200))
    }
  }
}

/** Waits until every name server lists both brokers (they register at boot, then every 30 s). */
export async function waitForRegistration(
  cluster: HandCluster,
  client?: RemotingRpc
): Promise<void> {
  const rpc = client ?? new RemotingRpc()
  try {
    await waitForBothBrokers(cluster, rpc)
  } finally {
    if (!client) rpc.close()
  }
}

async function waitForBothBrokers(cluster: HandCluster, rpc: RemotingRpc): Promise<void> {
  await eventually(async () => {
    for (const ns of cluster.nameServers) {
      const info = await rpc.getBrokerClusterInfo(ns.address, { timeoutMs: 2000 })
      const names = Object.keys(info.brokerAddrTable).sort()
      if (names.join(',') !== 'broker-a,broker-b') {
        throw new Error(`${ns.address} lists ${names.join(',') || 'no brokers'} so far`)
      }
    }
  })
}

/**
 * What the operator would do with mqadmin: `topic` on the given brokers, then wait until every
 * name server routes it to exactly those brokers.
 */
export async function createTopic(
  cluster: HandCluster,
  rpc: RemotingRpc,
  topic: string,
  on: ('broker-a' | 'broker-b')[],
  queues = 4
): Promise<void> {
  for (const name of on) {
    const broker = cluster.brokers[name === 'broker-a' ? 0 : 1]
    await rpc.updateAndCreateTopic(broker.address, {
      topic,
      brokerName: name,
      readQueueNums: queues,
      writeQueueNums: queues
    })
  }
  await eventually(async () => {
    for (const ns of cluster.nameServers) {
      const route = await rpc.getRouteInfoByTopic(ns.address, topic, { timeoutMs: 2000 })
      const names = route.queueDatas.map((q) => q.brokerName).sort()
      if (names.join(',') !== [...on].sort().join(',')) {
        throw new Error(`${ns.address} routes ${topic} to ${names.join(',')} so far`)
      }
    }
  })
}

/** createTopic with a client of its own (for specs that must not import DR Studio's internals). */
export async function createTopicByHand(
  cluster: HandCluster,
  topic: string,
  on: ('broker-a' | 'broker-b')[]
): Promise<void> {
  const rpc = new RemotingRpc()
  try {
    await createTopic(cluster, rpc, topic, on)
  } finally {
    rpc.close()
  }
}

/** The operator's scripts for broker-a: its pid file, and a start script that brings it back. */
export function operatorScripts(broker: JvmProcess): { pidFile: string; start: string } {
  const pidFile = join(broker.dir, 'broker.pid')
  writeFileSync(pidFile, `${broker.pid}\n`)
  const quote = (a: string): string => `'${a.replace(/'/g, `'\\''`)}'`
  const start = join(broker.dir, 'start.sh')
  writeFileSync(
    start,
    [
      '#!/bin/sh',
      `cd ${quote(broker.dir)}`,
      'unset NAMESRV_ADDR ROCKETMQ_HOME ROCKETMQ_ZONE ROCKETMQ_ZONE_MODE',
      ...Object.entries(broker.env).map(([k, v]) => `export ${k}=${quote(v)}`),
      `nohup ${broker.argv.map(quote).join(' ')} >> restarted.log 2>&1 &`,
      `echo $! > ${quote(pidFile)}`
    ].join('\n') + '\n'
  )
  return { pidFile, start }
}
