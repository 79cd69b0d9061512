import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs'
import { request } from 'node:http'
import { connect } from 'node:net'

/** Time source; injected so timeouts test without waiting. */
export interface Clock {
  now(): number
  sleep(ms: number): Promise<void>
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms))
}

/** Network checks used for readiness and attached-node reachability. */
export interface NetProbe {
  /** True when a TCP connection to host:port is accepted within the timeout. */
  tcp(host: string, port: number, timeoutMs: number): Promise<boolean>
  /** HTTP status of a GET, or undefined when nothing answered in time. */
  httpGet(url: string, timeoutMs: number): Promise<{ status: number; body: string } | undefined>
}

export const realNetProbe: NetProbe = {
  tcp(host, port, timeoutMs) {
    return new Promise((resolve) => {
      const socket = connect({ host, port })
      const done = (ok: boolean): void => {
        socket.removeAllListeners()
        socket.destroy()
        resolve(ok)
      }
      socket.setTimeout(timeoutMs, () => done(false))
      socket.once('connect', () => done(true))
      socket.once('error', () => done(false))
    })
  },
  httpGet(url, timeoutMs) {
    return new Promise((resolve) => {
      const req = request(url, { method: 'GET', timeout: timeoutMs }, (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => {
          if (body.length < 65536) body += chunk
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
        res.on('error', () => resolve(undefined))
      })
      req.on('timeout', () => req.destroy())
      req.on('error', () => resolve(undefined))
      req.end()
    })
  }
}

/** Size of a file, 0 when it does not exist yet. */
export function fileSize(path: string): number {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}

/** Reads bytes `[offset, offset+max)` of a file; empty when the file is missing. */
export function readRangeBytes(path: string, offset: number, max = 4 * 1024 * 1024): Buffer {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch {
    return Buffer.alloc(0)
  }
  try {
    const size = fstatSync(fd).size
    const start = Math.max(0, Math.min(offset, size))
    const length = Math.min(max, size - start)
    if (length <= 0) return Buffer.alloc(0)
    const buf = Buffer.alloc(length)
    const n = readSync(fd, buf, 0, length, start)
    return buf.subarray(0, n)
  } finally {
    closeSync(fd)
  }
}

/** Reads `[offset, offset+max)` of a file as UTF-8; empty when the file is missing. */
export function readRange(path: string, offset: number, max?: number): string {
  return readRangeBytes(path, offset, max).toString('utf8')
}

/** The last `bytes` of a file, starting at a line boundary when the cut falls mid-line. */
export function tailFile(path: string, bytes: number): string {
  const size = fileSize(path)
  const start = Math.max(0, size - bytes)
  const text = readRange(path, start, bytes)
  if (start === 0) return text
  const nl = text.indexOf('\n')
  return nl >= 0 && nl < text.length - 1 ? text.slice(nl + 1) : text
}

/** The last `n` non-empty lines of a text. */
export function lastLines(text: string, n: number): string[] {
  return text
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '')
    .slice(-n)
}

/** Incremental scanner: remembers where it stopped so polling a growing log stays cheap. */
export class LogWatcher {
  private offset: number
  private carry = ''

  constructor(
    readonly path: string,
    startOffset: number
  ) {
    this.offset = startOffset
  }

  /** The first line appended since the last call (or the start offset) matching `pattern`. */
  find(pattern: RegExp): string | undefined {
    const lines = this.next()
    return lines.find((l) => pattern.test(l))
  }

  /** For each pattern, whether a line appended since the last call matches it (one read for all). */
  findEach(patterns: readonly RegExp[]): boolean[] {
    const lines = this.next()
    return patterns.map((p) => lines.some((l) => p.test(l)))
  }

  /** Complete lines appended since the last call, then the unfinished last one. */
  private next(): string[] {
    const bytes = readRangeBytes(this.path, this.offset)
    if (bytes.length === 0) return []
    this.offset += bytes.length
    const text = this.carry + bytes.toString('utf8')
    const lines = text.split('\n')
    this.carry = lines.pop() ?? ''
    return [...lines, this.carry]
  }
}
