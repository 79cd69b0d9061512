import { LANGUAGE_CODES, RpcFlag } from './codes'
import { FrameError } from './errors'
import { quoteNumericKeys } from './fastjson'

export { FrameError, RemotingError } from './errors'
export type { RemotingErrorCode } from './errors'

/** RocketMQ's default -Dcom.rocketmq.remoting.frameMaxLength; a peer sending more is broken or hostile. */
export const FRAME_MAX_LENGTH = 16 * 1024 * 1024

/** Header encodings: servers answer in their own default, so we must read both. */
export const SerializeType = { JSON: 0, ROCKETMQ: 1 } as const
export type SerializeTypeValue = (typeof SerializeType)[keyof typeof SerializeType]

/** One remoting command, request or response (RemotingCommand.java without the Java-only fields). */
export interface RemotingCommand {
  code: number
  language: string
  version: number
  opaque: number
  flag: number
  remark?: string
  /** RocketMQ's "custom header": every value travels as a string. */
  extFields: Record<string, string>
  body?: Buffer
}

/** A command as read off the wire, with the header encoding the peer used. */
export interface DecodedCommand extends RemotingCommand {
  serializeType: SerializeTypeValue
}

/** The iterator result once no complete frame is buffered; shared, it carries no frame. */
const DONE: IteratorResult<DecodedCommand> = Object.freeze({ done: true, value: undefined })

/** The fixed part of the ROCKETMQ binary header: code, language, version, opaque, flag, remarkLen, extLen. */
const BINARY_FIXED = 2 + 1 + 2 + 4 + 4 + 4 + 4

/** Response frames carry flag bit 0. */
export function isResponse(cmd: Pick<RemotingCommand, 'flag'>): boolean {
  return (cmd.flag & RpcFlag.RESPONSE) === RpcFlag.RESPONSE
}

/** Oneway requests must never be answered. */
export function isOneway(cmd: Pick<RemotingCommand, 'flag'>): boolean {
  return (cmd.flag & RpcFlag.ONEWAY) === RpcFlag.ONEWAY
}

/** Serializes a command to one frame (length prefix included); JSON unless told otherwise. */
export function encodeFrame(
  cmd: RemotingCommand,
  serializeType: SerializeTypeValue = SerializeType.JSON,
  maxFrameLength = FRAME_MAX_LENGTH
): Buffer {
  // The JSON header is written straight into the frame: no intermediate header Buffer per send.
  const json = serializeType === SerializeType.JSON ? jsonHeaderText(cmd) : undefined
  const binary = json === undefined ? encodeBinaryHeader(cmd) : undefined
  const headerLength = json !== undefined ? Buffer.byteLength(json, 'utf8') : binary!.length
  if (headerLength > 0xffffff) {
    throw new FrameError('frame-too-large', `header of ${headerLength} bytes exceeds 16 MiB - 1`)
  }
  const bodyLength = cmd.body?.length ?? 0
  const length = 4 + headerLength + bodyLength
  if (length > maxFrameLength) {
    throw new FrameError(
      'frame-too-large',
      `frame of ${length} bytes exceeds the ${maxFrameLength}-byte limit`
    )
  }
  const out = Buffer.allocUnsafe(4 + length)
  out.writeInt32BE(length, 0)
  out.writeUInt32BE(((serializeType << 24) | headerLength) >>> 0, 4)
  if (json !== undefined) out.write(json, 8, 'utf8')
  else binary!.copy(out, 8)
  if (cmd.body && bodyLength > 0) cmd.body.copy(out, 8 + headerLength)
  return out
}

function jsonHeaderText(cmd: RemotingCommand): string {
  const header: Record<string, unknown> = {
    code: cmd.code,
    language: cmd.language,
    version: cmd.version,
    opaque: cmd.opaque,
    flag: cmd.flag
  }
  if (cmd.remark !== undefined) header.remark = cmd.remark
  header.extFields = cmd.extFields
  header.serializeTypeCurrentRPC = 'JSON'
  return JSON.stringify(header)
}

function encodeBinaryHeader(cmd: RemotingCommand): Buffer {
  const remark = cmd.remark ? Buffer.from(cmd.remark, 'utf8') : undefined
  const entries: Array<[Buffer, Buffer]> = Object.entries(cmd.extFields).map(([k, v]) => [
    Buffer.from(k, 'utf8'),
    Buffer.from(v, 'utf8')
  ])
  const extLength = entries.reduce((n, [k, v]) => n + 2 + k.length + 4 + v.length, 0)
  const out = Buffer.alloc(BINARY_FIXED + (remark?.length ?? 0) + extLength)
  let languageCode = LANGUAGE_CODES.indexOf(cmd.language)
  if (languageCode < 0) languageCode = LANGUAGE_CODES.indexOf('OTHER')
  let p = 0
  p = out.writeInt16BE(toInt16(cmd.code), p)
  p = out.writeUInt8(languageCode, p)
  p = out.writeInt16BE(toInt16(cmd.version), p)
  p = out.writeInt32BE(cmd.opaque | 0, p)
  p = out.writeInt32BE(cmd.flag | 0, p)
  p = out.writeInt32BE(remark?.length ?? 0, p)
  if (remark) p += remark.copy(out, p)
  p = out.writeInt32BE(extLength, p)
  for (const [k, v] of entries) {
    if (k.length > 0x7fff) throw new FrameError('bad-binary-header', 'ext field key too long')
    p = out.writeInt16BE(k.length, p)
    p += k.copy(out, p)
    p = out.writeInt32BE(v.length, p)
    p += v.copy(out, p)
  }
  return out
}

function toInt16(n: number): number {
  return ((n & 0xffff) << 16) >> 16
}

/**
 * Decodes one frame whose 4-byte length prefix was already stripped (what Netty hands RocketMQ).
 * Throws only FrameError.
 */
export function decodeFrame(frame: Buffer): DecodedCommand {
  if (frame.length < 4) {
    throw new FrameError('short-frame', `frame of ${frame.length} bytes has no header length`)
  }
  const mark = frame.readUInt32BE(0)
  const serializeType = mark >>> 24
  const headerLength = mark & 0xffffff
  if (serializeType !== SerializeType.JSON && serializeType !== SerializeType.ROCKETMQ) {
    throw new FrameError('bad-serialize-type', `unknown serialize type ${serializeType}`)
  }
  if (headerLength === 0 || headerLength > frame.length - 4) {
    throw new FrameError(
      'bad-header-length',
      `header length ${headerLength} does not fit a frame of ${frame.length} bytes`
    )
  }
  const header = frame.subarray(4, 4 + headerLength)
  // The header decoders build the DecodedCommand itself: no spread copy per frame.
  const decoded =
    serializeType === SerializeType.JSON ? decodeJsonHeader(header) : decodeBinaryHeader(header)
  decoded.serializeType = serializeType
  if (frame.length > 4 + headerLength) decoded.body = frame.subarray(4 + headerLength)
  return decoded
}

/** Filled in by decodeFrame once the header is read. */
type PartialDecoded = Omit<DecodedCommand, 'serializeType'> & { serializeType?: SerializeTypeValue }

function decodeJsonHeader(header: Buffer): DecodedCommand {
  const text = header.toString('utf8')
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch {
    try {
      raw = JSON.parse(quoteNumericKeys(text))
    } catch (e) {
      throw new FrameError('bad-header-json', `header is not JSON: ${preview(text)}`, { cause: e })
    }
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new FrameError('bad-header-json', `header is not a JSON object: ${preview(text)}`)
  }
  const h = raw as Record<string, unknown>
  const code = h.code
  const opaque = h.opaque
  if (!Number.isInteger(code) || !Number.isInteger(opaque)) {
    throw new FrameError('bad-header-json', `header lacks integer code/opaque: ${preview(text)}`)
  }
  const flag = h.flag === undefined || h.flag === null ? 0 : h.flag
  const version = h.version === undefined || h.version === null ? 0 : h.version
  if (!Number.isInteger(flag) || !Number.isInteger(version)) {
    throw new FrameError('bad-header-json', `header has non-integer flag/version: ${preview(text)}`)
  }
  const extFields: Record<string, string> = {}
  if (h.extFields !== undefined && h.extFields !== null) {
    if (typeof h.extFields !== 'object' || Array.isArray(h.extFields)) {
      throw new FrameError('bad-header-json', `extFields is not an object: ${preview(text)}`)
    }
    const ext = h.extFields as Record<string, unknown>
    // for-in, not Object.entries: no pair array per ext field of every response.
    for (const k in ext) {
      const v = ext[k]
      if (v === null || v === undefined) continue
      extFields[k] =
        typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v)
    }
  }
  const cmd: PartialDecoded = {
    code: code as number,
    language: typeof h.language === 'string' ? h.language : 'OTHER',
    version: version as number,
    opaque: opaque as number,
    flag: flag as number,
    extFields
  }
  if (typeof h.remark === 'string') cmd.remark = h.remark
  return cmd as DecodedCommand
}

function decodeBinaryHeader(header: Buffer): DecodedCommand {
  const fail = (why: string): never => {
    throw new FrameError('bad-binary-header', `binary header of ${header.length} bytes: ${why}`)
  }
  if (header.length < BINARY_FIXED) fail('shorter than the 21-byte fixed part')
  let p = 0
  const code = header.readInt16BE(p)
  p += 2
  const languageCode = header.readUInt8(p)
  p += 1
  const version = header.readInt16BE(p)
  p += 2
  const opaque = header.readInt32BE(p)
  p += 4
  const flag = header.readInt32BE(p)
  p += 4
  const remarkLength = header.readInt32BE(p)
  p += 4
  if (remarkLength < 0 || remarkLength > header.length - p - 4)
    fail(`remark length ${remarkLength}`)
  const remark = remarkLength > 0 ? header.toString('utf8', p, p + remarkLength) : undefined
  p += remarkLength
  const extLength = header.readInt32BE(p)
  p += 4
  if (extLength < 0 || extLength > header.length - p) fail(`ext length ${extLength}`)
  const end = p + extLength
  const extFields: Record<string, string> = {}
  while (p < end) {
    if (end - p < 2) fail('truncated ext key length')
    const keyLength = header.readInt16BE(p)
    p += 2
    if (keyLength < 0 || keyLength > end - p - 4) fail(`ext key length ${keyLength}`)
    const key = header.toString('utf8', p, p + keyLength)
    p += keyLength
    const valueLength = header.readInt32BE(p)
    p += 4
    if (valueLength < 0 || valueLength > end - p) fail(`ext value length ${valueLength}`)
    extFields[key] = header.toString('utf8', p, p + valueLength)
    p += valueLength
  }
  const cmd: PartialDecoded = {
    code,
    language: LANGUAGE_CODES[languageCode] ?? 'OTHER',
    version,
    opaque,
    flag,
    extFields
  }
  if (remark !== undefined) cmd.remark = remark
  return cmd as DecodedCommand
}

function preview(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text)
}

/**
 * Turns a TCP byte stream into commands. Chunks are appended eagerly; frames are yielded lazily.
 * After the first malformed frame the decoder is poisoned: the stream cannot be resynchronized.
 *
 * The decoder is its own iterator (push returns `this`) rather than a generator per chunk: one
 * generator object per socket read, plus its result objects, was garbage on every response.
 */
export class FrameDecoder implements IterableIterator<DecodedCommand> {
  private chunks: Buffer[] = []
  private buffered = 0
  private expected: number | undefined
  private failure: FrameError | undefined
  private readonly maxFrameLength: number

  constructor(options: { maxFrameLength?: number } = {}) {
    this.maxFrameLength = options.maxFrameLength ?? FRAME_MAX_LENGTH
  }

  /** Bytes received but not yet yielded as frames. */
  get bufferedBytes(): number {
    return this.buffered
  }

  /** The error that poisoned this decoder, if any. */
  get error(): FrameError | undefined {
    return this.failure
  }

  /** Appends a chunk and iterates the complete frames now available; throws FrameError on garbage. */
  push(chunk: Uint8Array): IterableIterator<DecodedCommand> {
    if (!this.failure && chunk.length > 0) {
      this.chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk))
      this.buffered += chunk.length
    }
    return this
  }

  [Symbol.iterator](): IterableIterator<DecodedCommand> {
    return this
  }

  /** The next complete frame, decoded only now; done while more bytes are needed. */
  next(): IteratorResult<DecodedCommand> {
    const cmd = this.nextFrame()
    return cmd === undefined ? DONE : { done: false, value: cmd }
  }

  private nextFrame(): DecodedCommand | undefined {
    for (;;) {
      if (this.failure) throw this.failure
      if (this.expected === undefined) {
        if (this.buffered < 4) return undefined
        const length = this.peek(4).readInt32BE(0)
        const error =
          this.checkLength(length) ??
          (this.buffered >= 8 ? checkMark(length, this.peek(8).readUInt32BE(4)) : undefined)
        if (error) {
          this.fail(error)
          continue
        }
        if (this.buffered < 8) return undefined
        this.take(4)
        this.expected = length
      }
      if (this.buffered < this.expected) return undefined
      const frame = this.take(this.expected)
      this.expected = undefined
      try {
        return decodeFrame(frame)
      } catch (e) {
        this.fail(
          e instanceof FrameError
            ? e
            : new FrameError('bad-header-json', 'undecodable frame', { cause: e })
        )
      }
    }
  }

  private checkLength(length: number): FrameError | undefined {
    if (length < 0 || length > this.maxFrameLength) {
      return new FrameError(
        'frame-too-large',
        `frame length ${length >>> 0} exceeds the ${this.maxFrameLength}-byte limit`
      )
    }
    if (length < 4) return new FrameError('short-frame', `frame length ${length} is below 4`)
    return undefined
  }

  private fail(error: FrameError): void {
    this.failure = error
    this.chunks = []
    this.buffered = 0
    this.expected = undefined
  }

  private peek(n: number): Buffer {
    const first = this.chunks[0]
    if (first && first.length >= n) return first
    this.chunks = [Buffer.concat(this.chunks)]
    return this.chunks[0] as Buffer
  }

  private take(n: number): Buffer {
    let first = this.peek(n)
    const out = first.length === n ? first : first.subarray(0, n)
    if (first.length === n) this.chunks.shift()
    else this.chunks[0] = first = first.subarray(n)
    this.buffered -= n
    return out
  }
}

/** Rejects garbage as soon as the header mark is visible instead of waiting for `length` bytes. */
function checkMark(length: number, mark: number): FrameError | undefined {
  const serializeType = mark >>> 24
  const headerLength = mark & 0xffffff
  if (serializeType > 1) {
    return new FrameError('bad-serialize-type', `unknown serialize type ${serializeType}`)
  }
  if (headerLength === 0 || headerLength > length - 4) {
    return new FrameError(
      'bad-header-length',
      `header length ${headerLength} does not fit a frame of ${length} bytes`
    )
  }
  return undefined
}
