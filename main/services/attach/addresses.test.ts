import { describe, expect, it } from 'vitest'
import {
  AttachInputError,
  addressServerUrl,
  parseAddressServerBody,
  parseNamesrvList,
  splitHostPort
} from './addresses'
import { isSystemTopic } from './system-topics'

describe('splitHostPort', () => {
  it('reads host:port and [v6]:port', () => {
    expect(splitHostPort('10.0.0.1:9876')).toEqual({ host: '10.0.0.1', port: 9876 })
    expect(splitHostPort('ns1.corp:9876')).toEqual({ host: 'ns1.corp', port: 9876 })
    expect(splitHostPort('[::1]:9876')).toEqual({ host: '::1', port: 9876 })
  })

  it('refuses anything else', () => {
    for (const bad of ['10.0.0.1', ':9876', 'h:0', 'h:70000', 'h:x', 'a b:1', '']) {
      expect(splitHostPort(bad)).toBeUndefined()
    }
  })
})

describe('parseNamesrvList', () => {
  it('splits RocketMQ lists, keeps order, drops duplicates', () => {
    expect(parseNamesrvList('10.0.0.1:9876;10.0.0.2:9876; 10.0.0.1:9876,10.0.0.3:9876 ')).toEqual([
      '10.0.0.1:9876',
      '10.0.0.2:9876',
      '10.0.0.3:9876'
    ])
    expect(parseNamesrvList('')).toEqual([])
  })

  it('names the bad entry and shows the format', () => {
    expect(() => parseNamesrvList('10.0.0.1:9876;10.0.0.2')).toThrow(AttachInputError)
    expect(() => parseNamesrvList('10.0.0.1:9876;10.0.0.2')).toThrow(
      /--namesrv: "10\.0\.0\.2" is not host:port.*10\.0\.0\.1:9876;10\.0\.0\.2:9876/
    )
  })
})

describe('addressServerUrl', () => {
  it('follows MixAll.getWSAddr', () => {
    expect(addressServerUrl('jmenv.corp')).toBe('http://jmenv.corp:8080/rocketmq/nsaddr')
    expect(addressServerUrl('10.0.0.9:8081')).toBe('http://10.0.0.9:8081/rocketmq/nsaddr')
    expect(addressServerUrl('http://10.0.0.9:8080/rocketmq/nsaddr-unit')).toBe(
      'http://10.0.0.9:8080/rocketmq/nsaddr-unit'
    )
  })

  it('refuses what is neither', () => {
    expect(() => addressServerUrl('not a host')).toThrow(/--address-server/)
    expect(() => addressServerUrl('http://')).toThrow(/is not a URL/)
  })
})

describe('parseAddressServerBody', () => {
  it('reads the first line only, like RocketMQ’s clearNewLine', () => {
    expect(parseAddressServerBody('10.0.0.1:9876;10.0.0.2:9876\nignored', 'u')).toEqual([
      '10.0.0.1:9876',
      '10.0.0.2:9876'
    ])
  })

  it('says so when the list is empty or malformed', () => {
    expect(() => parseAddressServerBody('  \n', 'http://a/rocketmq/nsaddr')).toThrow(
      /address server http:\/\/a\/rocketmq\/nsaddr answered with an empty list/
    )
    expect(() => parseAddressServerBody('<html>', 'u')).toThrow(/address server u: "<html>"/)
  })
})

describe('isSystemTopic', () => {
  const clusters = new Set(['DefaultCluster'])
  const brokers = new Set(['broker-a'])

  it('skips RocketMQ’s own topics', () => {
    for (const t of [
      'TBW102',
      'SCHEDULE_TOPIC_XXXX',
      'RMQ_SYS_TRACE_TOPIC',
      'rmq_sys_REVIVE_LOG_DefaultCluster',
      'rmq_sys_wheel_timer',
      '%RETRY%orders',
      '%DLQ%orders',
      'DefaultCluster',
      'DefaultCluster_REPLY_TOPIC',
      'broker-a',
      'OFFSET_MOVED_EVENT'
    ]) {
      expect(isSystemTopic(t, clusters, brokers), t).toBe(true)
    }
  })

  it('keeps application topics', () => {
    for (const t of ['payments', 'orders_REPLY_TOPIC', 'broker-b', 'TBW1020']) {
      expect(isSystemTopic(t, clusters, brokers), t).toBe(false)
    }
  })
})
