import { describe, expect, it } from 'vitest'
import {
  decodeFrame,
  encodeFrame,
  FrameDecoder,
  FRAME_MAX_LENGTH,
  SerializeType,
  type DecodedCommand,
  type RemotingCommand,
  type SerializeTypeValue
} from './codec'
import { FrameError, RemotingError } from './errors'

/** Deterministic PRNG so a failing fuzz case can be replayed from its seed. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const sample: RemotingCommand = {
  code: 105,
  language: 'JAVA',
  version: 479,
  opaque: 42,
  flag: 0,
  remark: 'héllo ✓',
  extFields: { topic: 'T-1', acceptStandardJsonOnly: 'true', ключ: 'значение' },
  body: Buffer.from([0, 1, 2, 3, 255])
}

function feedAll(decoder: FrameDecoder, chunks: Buffer[]): DecodedCommand[] {
  const out: DecodedCommand[] = []
  for (const c of chunks) for (const f of decoder.push(c)) out.push(f)
  return out
}

function strip(cmd: DecodedCommand): RemotingCommand {
  const { serializeType: _s, ...rest } = cmd
  void _s
  return rest
}

describe('codec round trips', () => {
  for (const type of [SerializeType.JSON, SerializeType.ROCKETMQ] as SerializeTypeValue[]) {
    it(`encodes and decodes a full command with serialize type ${type}`, () => {
      const frame = encodeFrame(sample, type)
      expect(frame.readInt32BE(0)).toBe(frame.length - 4)
      expect(frame.readUInt8(4)).toBe(type)
      const [cmd, ...rest] = feedAll(new FrameDecoder(), [frame])
      expect(rest).toEqual([])
      expect(cmd?.serializeType).toBe(type)
      expect(strip(cmd as DecodedCommand)).toEqual(sample)
    })

    it(`handles no body, no remark, no ext fields (type ${type})`, () => {
      const bare: RemotingCommand = {
        code: 0,
        language: 'GO',
        version: 317,
        opaque: -5,
        flag: 1,
        extFields: {}
      }
      const cmd = decodeFrame(encodeFrame(bare, type).subarray(4))
      expect(strip(cmd)).toEqual(bare)
      expect(cmd.body).toBeUndefined()
    })
  }

  it('decodes a JSON header as the Java server writes it', () => {
    const header = Buffer.from(
      '{"code":17,"extFields":{"a":"1"},"flag":1,"language":"JAVA","opaque":9,' +
        '"remark":"No topic route info in name server for the topic: X","serializeTypeCurrentRPC":"JSON","version":479}'
    )
    const frame = Buffer.alloc(4 + header.length)
    frame.writeUInt32BE(header.length, 0)
    header.copy(frame, 4)
    const cmd = decodeFrame(frame)
    expect(cmd).toMatchObject({ code: 17, flag: 1, opaque: 9, extFields: { a: '1' } })
    expect(cmd.remark).toMatch(/No topic route/)
  })

  it('reassembles frames split at every byte and several frames per chunk', () => {
    const frames = [
      encodeFrame({ ...sample, opaque: 1 }, SerializeType.JSON),
      encodeFrame({ ...sample, opaque: 2 }, SerializeType.ROCKETMQ),
      encodeFrame({ ...sample, opaque: 3, body: Buffer.alloc(70_000, 7) })
    ]
    const stream = Buffer.concat(frames)
    const oneByOne = feedAll(
      new FrameDecoder(),
      [...stream].map((b) => Buffer.from([b]))
    )
    expect(oneByOne.map((c) => c.opaque)).toEqual([1, 2, 3])
    const whole = feedAll(new FrameDecoder(), [stream])
    expect(whole.map((c) => c.opaque)).toEqual([1, 2, 3])
    expect(whole[2]?.body?.length).toBe(70_000)
  })

  it('keeps undrained frames for the next push', () => {
    const d = new FrameDecoder()
    d.push(encodeFrame({ ...sample, opaque: 1 })) // iterator ignored on purpose
    const got = [...d.push(encodeFrame({ ...sample, opaque: 2 }))]
    expect(got.map((c) => c.opaque)).toEqual([1, 2])
  })

  it('refuses to encode frames above the limit', () => {
    expect(() => encodeFrame({ ...sample, body: Buffer.alloc(FRAME_MAX_LENGTH) })).toThrow(
      FrameError
    )
  })
})

describe('codec errors', () => {
  const lengthOnly = (n: number): Buffer => {
    const b = Buffer.alloc(4)
    b.writeInt32BE(n)
    return b
  }
  const withMark = (length: number, mark: number, rest = Buffer.alloc(0)): Buffer => {
    const b = Buffer.alloc(8)
    b.writeInt32BE(length, 0)
    b.writeUInt32BE(mark >>> 0, 4)
    return Buffer.concat([b, rest])
  }
  const codeOf = (chunks: Buffer[]): string | undefined => {
    try {
      feedAll(new FrameDecoder(), chunks)
      return undefined
    } catch (e) {
      expect(e).toBeInstanceOf(FrameError)
      return (e as FrameError).code
    }
  }

  it('rejects an oversized length as soon as the 4-byte prefix arrives', () => {
    expect(codeOf([lengthOnly(FRAME_MAX_LENGTH + 1)])).toBe('frame-too-large')
    expect(codeOf([lengthOnly(-1)])).toBe('frame-too-large')
  })

  it('rejects lengths below the header mark', () => {
    expect(codeOf([lengthOnly(3)])).toBe('short-frame')
    expect(() => decodeFrame(Buffer.alloc(2))).toThrow(FrameError)
  })

  it('rejects bad header lengths and serialize types before the body arrives', () => {
    expect(codeOf([withMark(100, 0)])).toBe('bad-header-length')
    expect(codeOf([withMark(100, 200)])).toBe('bad-header-length')
    expect(codeOf([withMark(100, (2 << 24) | 10)])).toBe('bad-serialize-type')
  })

  it('rejects headers that are not JSON objects with integer code and opaque', () => {
    const frame = (json: string): Buffer => {
      const h = Buffer.from(json)
      return withMark(4 + h.length, h.length, h)
    }
    expect(codeOf([frame('{nope')])).toBe('bad-header-json')
    expect(codeOf([frame('[1,2]')])).toBe('bad-header-json')
    expect(codeOf([frame('{"code":"x","opaque":1}')])).toBe('bad-header-json')
    expect(codeOf([frame('{"code":1,"opaque":1,"extFields":[1]}')])).toBe('bad-header-json')
    expect(codeOf([frame('{"code":1,"opaque":1}')])).toBeUndefined()
  })

  it('rejects truncated binary headers', () => {
    const good = encodeFrame(sample, SerializeType.ROCKETMQ)
    const headerLength = good.readUInt32BE(4) & 0xffffff
    const header = Buffer.from(good.subarray(8, 8 + headerLength))
    header.writeInt32BE(10_000, 13) // remark length beyond the header
    expect(codeOf([withMark(4 + header.length, (1 << 24) | header.length, header)])).toBe(
      'bad-binary-header'
    )
    expect(codeOf([withMark(4 + 5, (1 << 24) | 5, Buffer.alloc(5))])).toBe('bad-binary-header')
  })

  it('stays poisoned after an error', () => {
    const d = new FrameDecoder()
    expect(() => [...d.push(lengthOnly(-7))]).toThrow(FrameError)
    expect(() => [...d.push(encodeFrame(sample))]).toThrow(FrameError)
    expect(d.error?.code).toBe('frame-too-large')
    expect(d.bufferedBytes).toBe(0)
  })
})

describe('codec fuzz', () => {
  const allowed = new Set([
    'frame-too-large',
    'bad-header-length',
    'bad-header-json',
    'bad-binary-header',
    'bad-serialize-type',
    'short-frame'
  ])

  const outcomes: Record<string, number> = {}
  const tally = (key: string, n = 1): void => {
    outcomes[key] = (outcomes[key] ?? 0) + n
  }

  /** Feeds bytes in random chunks; asserts only frames or typed errors come out. */
  function run(rand: () => number, bytes: Buffer, maxFrameLength?: number): void {
    const d = new FrameDecoder(maxFrameLength ? { maxFrameLength } : {})
    let i = 0
    try {
      while (i < bytes.length) {
        const n = 1 + Math.floor(rand() * Math.min(64, bytes.length - i))
        for (const cmd of d.push(bytes.subarray(i, i + n))) {
          expect(Number.isInteger(cmd.code)).toBe(true)
          expect(Number.isInteger(cmd.opaque)).toBe(true)
          expect(typeof cmd.language).toBe('string')
          for (const v of Object.values(cmd.extFields)) expect(typeof v).toBe('string')
          tally('frame')
        }
        i += n
      }
      // Not an error: the decoder may legitimately be waiting for more bytes.
      expect(d.bufferedBytes).toBeLessThanOrEqual(bytes.length)
      tally('waiting-or-done')
    } catch (e) {
      if (!(e instanceof FrameError)) throw e
      expect(e).toBeInstanceOf(RemotingError)
      expect(allowed.has(e.code)).toBe(true)
      tally(e.code)
    }
  }

  function randomBytes(rand: () => number, n: number): Buffer {
    const b = Buffer.alloc(n)
    for (let i = 0; i < n; i++) b[i] = Math.floor(rand() * 256)
    return b
  }

  function randomCommand(rand: () => number): RemotingCommand {
    const ext: Record<string, string> = {}
    const n = Math.floor(rand() * 5)
    for (let i = 0; i < n; i++) ext[`k${i}${'x'.repeat(Math.floor(rand() * 4))}`] = `v${rand()}`
    const cmd: RemotingCommand = {
      code: Math.floor(rand() * 400),
      language: 'JAVA',
      version: 479,
      opaque: Math.floor(rand() * 0x7fffffff),
      flag: Math.floor(rand() * 4),
      extFields: ext
    }
    if (rand() < 0.5) cmd.remark = `r${rand()}`
    if (rand() < 0.7) cmd.body = randomBytes(rand, Math.floor(rand() * 300))
    return cmd
  }

  function mutate(rand: () => number, frame: Buffer): Buffer {
    const b = Buffer.from(frame)
    switch (Math.floor(rand() * 8)) {
      case 0: // truncate
        return b.subarray(0, Math.floor(rand() * b.length))
      case 1: // flip bytes anywhere
        for (let k = 0; k < 1 + rand() * 6; k++)
          b[Math.floor(rand() * b.length)] ^= 1 + Math.floor(rand() * 255)
        return b
      case 2: // random total length, including huge and negative
        b.writeInt32BE((Math.floor(rand() * 0xffffffff) | 0) >> Math.floor(rand() * 31), 0)
        return b
      case 3: // random header-length mark
        b.writeUInt32BE(Math.floor(rand() * 0xffffffff) >>> 0, 4)
        return b
      case 4: // header length just off by a few bytes
        b.writeUInt32BE(
          ((b.readUInt32BE(4) & 0xff000000) |
            ((b.readUInt32BE(4) + Math.floor(rand() * 9) - 4) & 0xffffff)) >>>
            0,
          4
        )
        return b
      case 5: // garbage inside the header
        for (let k = 8; k < Math.min(b.length, 8 + 30); k++)
          if (rand() < 0.3) b[k] = Math.floor(rand() * 256)
        return b
      case 6: // garbage appended after a valid frame
        return Buffer.concat([b, randomBytes(rand, Math.floor(rand() * 40))])
      default: // valid frame, followed by a second mutated copy
        return Buffer.concat([b, mutate(rand, frame)])
    }
  }

  it('survives 5000 random byte streams', () => {
    for (let seed = 1; seed <= 5000; seed++) {
      const rand = mulberry32(seed)
      run(rand, randomBytes(rand, Math.floor(rand() * 200)))
    }
  })

  it('survives 5000 random streams that start with a plausible length prefix', () => {
    for (let seed = 1; seed <= 5000; seed++) {
      const rand = mulberry32(seed * 7919)
      const body = randomBytes(rand, 4 + Math.floor(rand() * 200))
      const prefix = Buffer.alloc(4)
      prefix.writeInt32BE(body.length)
      run(rand, Buffer.concat([prefix, body]))
    }
  })

  // A behaviour check over many inputs, not a timing one: give a loaded machine the time it needs.
  it('survives 10000 mutated valid frames (JSON and binary headers)', { timeout: 60_000 }, () => {
    for (let seed = 1; seed <= 10_000; seed++) {
      const rand = mulberry32(seed * 104729)
      const type: SerializeTypeValue = rand() < 0.5 ? SerializeType.JSON : SerializeType.ROCKETMQ
      run(
        rand,
        mutate(rand, encodeFrame(randomCommand(rand), type)),
        rand() < 0.2 ? 256 : undefined
      )
    }
  })

  it('exercised every error path and still decoded frames', () => {
    for (const code of allowed) expect(outcomes[code] ?? 0, code).toBeGreaterThan(0)
    expect(outcomes.frame ?? 0).toBeGreaterThan(1000)
  })

  it('decodeFrame only throws FrameError on 5000 random frames', () => {
    for (let seed = 1; seed <= 5000; seed++) {
      const rand = mulberry32(seed * 31)
      const b = randomBytes(rand, Math.floor(rand() * 120))
      if (b.length >= 4 && rand() < 0.7) {
        b.writeUInt32BE(((rand() < 0.5 ? 0 : 1 << 24) | Math.floor(rand() * b.length)) >>> 0, 0)
      }
      try {
        decodeFrame(b)
      } catch (e) {
        expect(e).toBeInstanceOf(FrameError)
      }
    }
  })
})
