import { describe, expect, it } from 'vitest'
import { encodeFrame, FrameDecoder } from './protocol'

/** The encoder before the single-allocation one: JSON bytes, then a 4-byte length in front. */
function legacyFrame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message), 'utf8')
  const head = Buffer.allocUnsafe(4)
  head.writeUInt32BE(body.length, 0)
  return Buffer.concat([head, body])
}

describe('worker frame encoding', () => {
  it('writes the same bytes as header + JSON, multi-byte text included', () => {
    for (const m of [
      {},
      { t: 'log', level: 'info', message: 'é → 房间 🚀' },
      { t: 'rows', rows: [] }
    ]) {
      expect(encodeFrame(m).equals(legacyFrame(m))).toBe(true)
      expect(new FrameDecoder().push(encodeFrame(m))).toEqual([m])
    }
  })
})
