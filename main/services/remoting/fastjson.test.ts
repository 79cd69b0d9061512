import { describe, expect, it } from 'vitest'
import { BadResponseError } from './errors'
import { parseFastjson, quoteNumericKeys } from './fastjson'

describe('quoteNumericKeys', () => {
  it('quotes the brokerAddrs keys of a legacy route (apache/rocketmq#1445)', () => {
    const legacy =
      '{"brokerDatas":[{"brokerAddrs":{0:"172.168.0.104:10911",1:"172.168.0.105:10911"},' +
      '"brokerName":"broker-a","cluster":"DefaultCluster","zoneName":"room1"}],"queueDatas":[]}'
    expect(JSON.parse(quoteNumericKeys(legacy)).brokerDatas[0].brokerAddrs).toEqual({
      '0': '172.168.0.104:10911',
      '1': '172.168.0.105:10911'
    })
  })

  it('fixes a ClusterInfo body (apache/rocketmq#3369)', () => {
    const body =
      '{"brokerAddrTable":{"broker-a":{"brokerAddrs":{0:"10.0.0.1:10911"},"brokerName":"broker-a",' +
      '"cluster":"C"}},"clusterAddrTable":{"C":["broker-a"]}}'
    const parsed = parseFastjson(body) as {
      brokerAddrTable: Record<string, { brokerAddrs: Record<string, string> }>
    }
    expect(parsed.brokerAddrTable['broker-a']?.brokerAddrs['0']).toBe('10.0.0.1:10911')
  })

  it('handles negative keys and whitespace around keys', () => {
    expect(JSON.parse(quoteNumericKeys('{ -1 : "a", \n 2:"b"}'))).toEqual({ '-1': 'a', '2': 'b' })
  })

  it('never touches text inside strings', () => {
    const cases = [
      '{"zoneName":"{0:1}"}',
      '{"orderTopicConf":", 1:x {2:y}"}',
      '{"orderTopicConf":"a:4;b:4"}',
      '{"s":"quote \\" then {0:1} and \\\\"}',
      '{"s":"\\\\","t":{3:"{4:5}"}}'
    ]
    for (const c of cases) {
      const fixed = quoteNumericKeys(c)
      const parsed = JSON.parse(fixed)
      expect(parsed).toBeTypeOf('object')
    }
    expect(JSON.parse(quoteNumericKeys(cases[0] as string))).toEqual({ zoneName: '{0:1}' })
    expect(JSON.parse(quoteNumericKeys(cases[4] as string))).toEqual({
      s: '\\',
      t: { '3': '{4:5}' }
    })
  })

  it('leaves numbers in arrays and values alone', () => {
    expect(JSON.parse(quoteNumericKeys('{"a":[1,2,{3:4}],"b":5,6:[7]}'))).toEqual({
      a: [1, 2, { '3': 4 }],
      b: 5,
      '6': [7]
    })
  })

  it('returns standard JSON unchanged', () => {
    const text = '{"a":{"0":"x"},"b":[{"c":1}]}'
    expect(quoteNumericKeys(text)).toBe(text)
  })
})

describe('parseFastjson', () => {
  it('throws BadResponseError on garbage or empty bodies', () => {
    expect(() => parseFastjson('{oops', 'ns:1')).toThrow(BadResponseError)
    expect(() => parseFastjson(Buffer.alloc(0), 'ns:1')).toThrow(BadResponseError)
    expect(() => parseFastjson(undefined)).toThrow(BadResponseError)
  })

  it('accepts Buffers', () => {
    expect(parseFastjson(Buffer.from('{1:"x"}'))).toEqual({ '1': 'x' })
  })
})
