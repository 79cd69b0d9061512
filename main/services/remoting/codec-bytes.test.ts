import { describe, expect, it } from 'vitest'
import type { RemotingCommand } from './codec'
import { decodeFrame, encodeFrame, FrameDecoder, SerializeType } from './codec'

/** The JSON-header frame as built before the header was written in place (header Buffer, copied). */
function legacyJsonFrame(cmd: RemotingCommand): Buffer {
  const h: Record<string, unknown> = {
    code: cmd.code,
    language: cmd.language,
    version: cmd.version,
    opaque: cmd.opaque,
    flag: cmd.flag
  }
  if (cmd.remark !== undefined) h.remark = cmd.remark
  h.extFields = cmd.extFields
  h.serializeTypeCurrentRPC = 'JSON'
  const header = Buffer.from(JSON.stringify(h), 'utf8')
  const body = cmd.body ?? Buffer.alloc(0)
  const out = Buffer.alloc(8 + header.length + body.length)
  out.writeInt32BE(4 + header.length + body.length, 0)
  out.writeUInt32BE(header.length, 4)
  header.copy(out, 8)
  body.copy(out, 8 + header.length)
  return out
}

const send: RemotingCommand = {
  code: 310,
  language: 'JAVA',
  version: 479,
  opaque: 42,
  flag: 0,
  remark: 'rémark ✓',
  extFields: {
    a: 'G',
    b: 'T',
    g: '1700000000000',
    i: 'KEYS\u0001k 1\u0002TAGS\u0001dr\u0002',
    n: '房间-a'
  },
  body: Buffer.from('hello')
}

describe('codec bytes', () => {
  it('encodes a JSON header byte for byte as before', () => {
    expect(encodeFrame(send).equals(legacyJsonFrame(send))).toBe(true)
    const bare = { code: 0, language: 'JAVA', version: 1, opaque: 1, flag: 1, extFields: {} }
    expect(encodeFrame(bare).equals(legacyJsonFrame(bare))).toBe(true)
  })

  it('round-trips ext fields through both header encodings, key order kept', () => {
    for (const type of [SerializeType.JSON, SerializeType.ROCKETMQ]) {
      const got = decodeFrame(encodeFrame(send, type).subarray(4))
      expect(got).toEqual({ ...send, serializeType: type })
      expect(Object.keys(got.extFields)).toEqual(Object.keys(send.extFields))
      // The order decodeFrame always produced (a header's own fields, then remark, type, body).
      const order = ['code', 'language', 'version', 'opaque', 'flag', 'extFields', 'remark']
      expect(Object.keys(got)).toEqual([...order, 'serializeType', 'body'])
    }
  })

  it('stringifies non-string JSON ext values and drops null ones', () => {
    const header = '{"code":0,"opaque":7,"extFields":{"n":12,"b":true,"o":{"x":1},"z":null}}'
    const frame = Buffer.alloc(4 + header.length)
    frame.writeUInt32BE(header.length, 0)
    frame.write(header, 4)
    expect(decodeFrame(frame).extFields).toEqual({ n: '12', b: 'true', o: '{"x":1}' })
  })

  it('iterates frames one by one, lazily, from one decoder', () => {
    const d = new FrameDecoder()
    const it = d.push(
      Buffer.concat([encodeFrame({ ...send, opaque: 1 }), encodeFrame({ ...send, opaque: 2 })])
    )
    expect(it.next().value?.opaque).toBe(1)
    expect(d.bufferedBytes).toBeGreaterThan(0)
    expect(it.next().value?.opaque).toBe(2)
    expect(it.next().done).toBe(true)
  })
})
