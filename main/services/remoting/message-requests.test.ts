import { describe, expect, it } from 'vitest'
import type { DecodedCommand } from './codec'
import { encodeFrame } from './codec'
import type { RemotingRequest } from './connection'
import { encodeProperties } from './message'
import type { SendMessageInput } from './message-requests'
import { sendMessageV2 } from './message-requests'
import type { RemotingInvoker } from './remoting-calls'
import { toExtFields } from './remoting-calls'

/** SEND_MESSAGE_V2's header as it was built before sendHeader: properties object, then toExtFields. */
function legacyHeader(
  input: SendMessageInput,
  uniqKey: string,
  now: number
): Record<string, string> {
  const properties: Record<string, string> = { ...(input.properties ?? {}) }
  if (input.keys !== undefined) {
    properties.KEYS = Array.isArray(input.keys) ? input.keys.join(' ') : input.keys
  }
  if (input.tags !== undefined) properties.TAGS = input.tags
  properties.WAIT = String(input.waitStoreMsgOK ?? true)
  properties.UNIQ_KEY = uniqKey
  return toExtFields({
    a: input.producerGroup,
    b: input.topic,
    c: input.defaultTopic ?? 'TBW102',
    d: input.defaultTopicQueueNums ?? 4,
    e: input.queueId,
    f: input.sysFlag ?? 0,
    g: input.bornTimestamp ?? now,
    h: input.flag ?? 0,
    i: encodeProperties(properties),
    j: input.reconsumeTimes ?? 0,
    k: false,
    l: input.maxReconsumeTimes,
    m: false,
    n: input.brokerName,
    bname: input.brokerName
  })
}

function capture(): { rpc: RemotingInvoker; sent: RemotingRequest[] } {
  const sent: RemotingRequest[] = []
  const reply: DecodedCommand = {
    code: 0,
    language: 'JAVA',
    version: 1,
    opaque: 1,
    flag: 1,
    extFields: { msgId: 'M', queueId: '1', queueOffset: '9' },
    serializeType: 0
  }
  const rpc: RemotingInvoker = {
    invoke: async (_address, req) => {
      sent.push(req)
      return reply
    },
    invokeOneway: async () => {}
  }
  return { rpc, sent }
}

const base: SendMessageInput = {
  brokerName: 'broker-a',
  producerGroup: 'G',
  topic: 'T',
  queueId: 1,
  body: 'x',
  uniqKey: 'U1',
  bornTimestamp: 1_700_000_000_000
}

describe('sendMessageV2 header', () => {
  const cases: SendMessageInput[] = [
    base,
    { ...base, keys: ['k1', 'k2'], tags: 'dr' },
    { ...base, keys: 'k', waitStoreMsgOK: false, maxReconsumeTimes: 16, flag: 3, sysFlag: 4 },
    { ...base, properties: { USER: 'u', TAGS: 'old', KEYS: 'old' }, keys: ['k'], tags: 'new' },
    { ...base, properties: {}, reconsumeTimes: 2, defaultTopic: 'D', defaultTopicQueueNums: 8 }
  ]

  it.each(cases.map((c, i) => [i, c] as const))(
    'case %i matches the old header byte for byte',
    async (_i, input) => {
      const { rpc, sent } = capture()
      await sendMessageV2(rpc, '127.0.0.1:10911', input)
      const got = sent[0]!.extFields!
      const want = legacyHeader(input, 'U1', 0)
      expect(Object.entries(got)).toEqual(Object.entries(want))
      const frame = (extFields: Record<string, string>): Buffer =>
        encodeFrame({ code: 310, language: 'JAVA', version: 1, opaque: 1, flag: 0, extFields })
      expect(frame(got).equals(frame(want))).toBe(true)
    }
  )

  it('still refuses separators in system properties', async () => {
    const { rpc } = capture()
    await expect(sendMessageV2(rpc, 'a:1', { ...base, tags: 'a\u0001b' })).rejects.toThrow(
      /separator/
    )
  })
})
