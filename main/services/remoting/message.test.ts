import { deflateSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { BadResponseError, RemotingError } from './errors'
import {
  buildHeartbeatBody,
  createUniqId,
  decodeMessages,
  decodeProperties,
  encodeProperties,
  encodeStoredMessage,
  javaStringHashCode,
  parseTagExpression
} from './message'

describe('message properties', () => {
  it('round trips with the \\u0001/\\u0002 separators', () => {
    const props = { UNIQ_KEY: 'ABC', KEYS: 'k1 k2', TAGS: 'TagA', WAIT: 'true', ünï: 'çødé' }
    const text = encodeProperties(props)
    expect(text).toBe(
      'UNIQ_KEY\u0001ABC\u0002KEYS\u0001k1 k2\u0002TAGS\u0001TagA\u0002WAIT\u0001true\u0002ünï\u0001çødé\u0002'
    )
    expect(decodeProperties(text)).toEqual(props)
    expect(decodeProperties('A\u0001b\u0002\u0002C\u0001d')).toEqual({ A: 'b', C: 'd' })
  })

  it('refuses separators inside values', () => {
    expect(() => encodeProperties({ a: 'x\u0002y' })).toThrow(RemotingError)
  })
})

describe('javaStringHashCode', () => {
  it('matches Java', () => {
    expect(javaStringHashCode('')).toBe(0)
    expect(javaStringHashCode('abc')).toBe(96354)
    expect(javaStringHashCode('hello')).toBe(99162322)
    expect(javaStringHashCode('TagA')).toBe(2598919)
    expect(javaStringHashCode('a somewhat longer tag to overflow')).toBeLessThan(2 ** 31)
  })
})

describe('createUniqId', () => {
  it('produces unique 32-char upper-case hex ids', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => createUniqId()))
    expect(ids.size).toBe(10_000)
    for (const id of [...ids].slice(0, 10)) expect(id).toMatch(/^[0-9A-F]{32}$/)
  })
})

describe('store-format decoder', () => {
  const base = {
    topic: 'T',
    queueId: 3,
    queueOffset: 17,
    commitLogOffset: 123456,
    body: Buffer.from('hello'),
    properties: { UNIQ_KEY: 'U1', KEYS: 'a b', TAGS: 'TagA' },
    bornTimestamp: 1_700_000_000_000,
    storeTimestamp: 1_700_000_000_005
  }

  it('decodes concatenated records', () => {
    const body = Buffer.concat([
      encodeStoredMessage(base),
      encodeStoredMessage({ ...base, queueOffset: 18, properties: {}, topic: 'x'.repeat(200) })
    ])
    const [m1, m2] = decodeMessages(body)
    expect(m1).toMatchObject({
      topic: 'T',
      queueId: 3,
      queueOffset: 17,
      commitLogOffset: 123456,
      msgId: 'U1',
      keys: ['a', 'b'],
      tags: 'TagA',
      storeHost: '127.0.0.1:10911',
      bornTimestamp: 1_700_000_000_000
    })
    expect(m1?.body.toString()).toBe('hello')
    expect(m1?.offsetMsgId).toBe('7F00000100002A9F000000000001E240')
    expect(m2?.topic).toBe('x'.repeat(200))
    expect(m2?.msgId).toBe(m2?.offsetMsgId)
  })

  it('inflates zlib bodies', () => {
    const raw = Buffer.from('compressed payload '.repeat(50))
    const rec = encodeStoredMessage({ ...base, body: deflateSync(raw), sysFlag: 0x1 | (3 << 8) })
    expect(decodeMessages(rec)[0]?.body.equals(raw)).toBe(true)
  })

  it('throws BadResponseError on truncated or corrupt bodies', () => {
    const rec = encodeStoredMessage(base)
    for (let n = 1; n < rec.length; n++) {
      expect(() => decodeMessages(rec.subarray(0, n))).toThrow(BadResponseError)
    }
    const bad = Buffer.from(rec)
    bad.writeUInt32BE(0x12345678, 4)
    expect(() => decodeMessages(bad)).toThrow(BadResponseError)
  })
})

describe('heartbeat body', () => {
  it('uses fastjson field names and tag hash codes', () => {
    const body = JSON.parse(
      buildHeartbeatBody(
        {
          clientId: '127.0.0.1@room1-c1',
          producerGroups: ['PG'],
          consumers: [{ groupName: 'CG', subscriptions: [{ topic: 'T', expression: 'a || b' }] }]
        },
        1000
      ).toString()
    )
    expect(body).toMatchObject({
      clientID: '127.0.0.1@room1-c1',
      producerDataSet: [{ groupName: 'PG' }],
      consumerDataSet: [
        {
          groupName: 'CG',
          consumeType: 'CONSUME_ACTIVELY',
          messageModel: 'CLUSTERING',
          subscriptionDataSet: [
            {
              topic: 'T',
              subString: 'a || b',
              tagsSet: ['a', 'b'],
              codeSet: [97, 98],
              subVersion: 1000
            }
          ]
        }
      ]
    })
    expect(parseTagExpression(' * ')).toEqual([])
  })
})
