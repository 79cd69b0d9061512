import { describe, expect, it } from 'vitest'
import type { Discovery } from './config'
import {
  brokerProperties,
  escapeProperty,
  namesrvProperties,
  proxyConfig,
  renderProperties
} from './config'

const base = {
  cluster: 'DrCluster',
  brokerName: 'broker-a',
  brokerId: 0,
  role: 'master' as const,
  port: 20002,
  nodeDir: '/data/sandbox/run/broker-1',
  fastBrokerExpiry: true
}

describe('renderProperties', () => {
  it('writes key=value lines under a comment header', () => {
    expect(renderProperties({ listenPort: 9876, a: true, b: 'x' }, ['hello'])).toBe(
      '# hello\nlistenPort=9876\na=true\nb=x\n'
    )
  })

  it('keeps Windows backslashes and escapes leading blanks', () => {
    expect(escapeProperty('C:\\data\\store')).toBe('C:\\\\data\\\\store')
    expect(escapeProperty(' x')).toBe('\\ x')
  })
})

describe('namesrvProperties', () => {
  it('binds loopback on its own port with its kv store in the node dir', () => {
    const p = namesrvProperties({ port: 20006, nodeDir: '/n/ns-1', fastBrokerExpiry: false })
    expect(p).toMatchObject({
      listenPort: 20006,
      bindAddress: '127.0.0.1',
      kvConfigPath: '/n/ns-1/namesrv/kvConfig.json',
      scanNotActiveBrokerInterval: 5000
    })
    expect(namesrvProperties({ port: 1, nodeDir: '/n', fastBrokerExpiry: true })).toMatchObject({
      scanNotActiveBrokerInterval: 1000
    })
  })
})

describe('brokerProperties', () => {
  it('fetches name servers from the room management node in management mode', () => {
    const p = brokerProperties({
      ...base,
      discovery: { mode: 'management', address: '127.0.0.1:20010' }
    })
    expect(p).toMatchObject({
      brokerClusterName: 'DrCluster',
      brokerName: 'broker-a',
      brokerId: 0,
      brokerRole: 'ASYNC_MASTER',
      listenPort: 20002,
      haListenPort: 20003,
      brokerIP1: '127.0.0.1',
      brokerIP2: '127.0.0.1',
      storePathRootDir: '/data/sandbox/run/broker-1/store',
      mappedFileSizeCommitLog: 16777216,
      autoCreateTopicEnable: false,
      timerWheelEnable: false,
      reviveQueueNum: 1,
      fetchNamesrvAddrByAddressServer: true,
      rmqAddressServerDomain: '127.0.0.1:20010',
      rmqAddressServerSubGroup: 'nsaddr'
    })
    expect(p).not.toHaveProperty('namesrvAddr')
  })

  it('runs the timer wheel only for POP (proxies) or when the topology asks (delayed messages)', () => {
    const wheel = (over: object) =>
      brokerProperties({
        ...base,
        discovery: { mode: 'static', namesrvAddr: ['127.0.0.1:1'] },
        ...over
      }).timerWheelEnable
    expect(wheel({})).toBe(false)
    expect(wheel({ popConsumption: true })).toBe(true)
    expect(wheel({ timerWheel: true })).toBe(true)
  })

  it('lists every name server in static mode', () => {
    const p = brokerProperties({
      ...base,
      discovery: { mode: 'static', namesrvAddr: ['127.0.0.1:1', '127.0.0.1:2'] }
    })
    expect(p.namesrvAddr).toBe('127.0.0.1:1;127.0.0.1:2')
    expect(p).not.toHaveProperty('fetchNamesrvAddrByAddressServer')
  })

  it('renders a slave with its broker id', () => {
    const p = brokerProperties({
      ...base,
      role: 'slave',
      brokerId: 1,
      discovery: { mode: 'static', namesrvAddr: ['127.0.0.1:1'] }
    })
    expect(p).toMatchObject({ brokerId: 1, brokerRole: 'SLAVE' })
  })

  it('renders a synchronous master as SYNC_MASTER (replication applies to masters only)', () => {
    const discovery: Discovery = { mode: 'static', namesrvAddr: ['127.0.0.1:1'] }
    const role = (over: object) => brokerProperties({ ...base, discovery, ...over }).brokerRole
    expect(role({ replication: 'sync' })).toBe('SYNC_MASTER')
    // 5.x waits for the slave only with inSyncReplicas 2, and answers before the client's 3 s.
    const sync = brokerProperties({
      ...base,
      discovery,
      replication: 'sync',
      fastBrokerExpiry: true
    })
    expect(sync).toMatchObject({ inSyncReplicas: 2, slaveTimeout: 1000 })
    expect(sync).not.toHaveProperty('enableSlaveActingMaster')
    expect(role({ replication: 'async' })).toBe('ASYNC_MASTER')
    expect(role({ role: 'slave', brokerId: 1, replication: 'sync' })).toBe('SLAVE')
  })

  it('turns on heartbeat-based expiry only when asked', () => {
    const discovery: Discovery = { mode: 'static', namesrvAddr: ['127.0.0.1:1'] }
    expect(brokerProperties({ ...base, discovery })).toMatchObject({
      enableSlaveActingMaster: true,
      brokerHeartbeatInterval: 1000,
      brokerNotActiveTimeoutMillis: 10000
    })
    expect(brokerProperties({ ...base, discovery, fastBrokerExpiry: false })).not.toHaveProperty(
      'enableSlaveActingMaster'
    )
  })
})

describe('proxyConfig', () => {
  it('runs in cluster mode against the management node or a static list', () => {
    const common = {
      cluster: 'DrCluster',
      proxyName: 'proxy-1',
      grpcPort: 20014,
      remotingPort: 20015
    }
    expect(
      proxyConfig({ ...common, discovery: { mode: 'management', address: '127.0.0.1:9' } })
    ).toMatchObject({
      proxyMode: 'CLUSTER',
      rocketMQClusterName: 'DrCluster',
      grpcServerPort: 20014,
      remotingListenPort: 20015,
      namesrvDomain: '127.0.0.1:9',
      namesrvDomainSubgroup: 'nsaddr'
    })
    expect(
      proxyConfig({ ...common, discovery: { mode: 'static', namesrvAddr: ['a:1', 'b:2'] } })
        .namesrvAddr
    ).toBe('a:1;b:2')
  })

  it('heartbeats transactional groups every second and stops within the sandbox’s grace', () => {
    const c = proxyConfig({
      cluster: 'DrCluster',
      proxyName: 'proxy-1',
      grpcPort: 1,
      remotingPort: 2,
      discovery: { mode: 'static', namesrvAddr: ['a:1'] }
    })
    expect(c).toMatchObject({
      transactionHeartbeatPeriodSecond: 1,
      transactionDataMaxWaitClearMillis: 1000,
      grpcShutdownTimeSeconds: 3
    })
  })
})
