import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { WireRow } from '../worker-wire/protocol'
import { encodeFrame, FrameDecoder } from '../worker-wire/protocol'
import { WorkerConnection } from './worker-connection'

// A stand-in worker for the transport only (no RocketMQ): answers hello, echoes rows, and misbehaves
// on request. Written as plain JS so the test needs no build step.
const WORKER = `
const frame = (o) => { const b = Buffer.from(JSON.stringify(o)); const h = Buffer.alloc(4); h.writeUInt32BE(b.length); process.stdout.write(Buffer.concat([h, b])) }
let buf = Buffer.alloc(0)
process.stdin.on('end', () => process.exit(3))
process.stdin.on('data', (c) => {
  buf = Buffer.concat([buf, c])
  while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
    const m = JSON.parse(buf.subarray(4, 4 + buf.readUInt32BE(0)).toString()); buf = buf.subarray(4 + buf.readUInt32BE(0))
    if (m.op === 'hello') frame({ t: 'res', id: m.id, ok: true, result: { protocol: 1, runtime: 'node', pid: process.pid, lanes: ['remoting'] } })
    else if (m.op === 'client.create') { frame({ t: 'rows', rows: [{ k: 'e', kind: 'client-started', clientId: m.args.spec.id, room: 'room1', atMs: 1, data: {} }] }); frame({ t: 'res', id: m.id, ok: true, result: {} }) }
    else if (m.op === 'client.stop') { process.stderr.write('stopping\\n'); frame({ t: 'res', id: m.id, ok: false, error: { message: 'no such client', code: 'unknown-client' } }) }
    else if (m.op === 'client.state') process.stdout.write('oops, a print\\n')
    else if (m.op === 'warmup') process.exit(7)
    else if (m.op === 'shutdown') { frame({ t: 'res', id: m.id, ok: true, result: {} }); process.exit(0) }
  }
})
`

describe('frame codec', () => {
  it('splits frames across and within chunks', () => {
    const d = new FrameDecoder()
    const bytes = Buffer.concat([encodeFrame({ a: 1 }), encodeFrame({ b: 'é' })])
    expect(d.push(bytes.subarray(0, 3))).toEqual([])
    expect(d.push(bytes.subarray(3, 12))).toEqual([{ a: 1 }])
    expect(d.push(bytes.subarray(12))).toEqual([{ b: 'é' }])
    expect(d.pending).toBe(0)
  })

  it('refuses an oversized header and a non-JSON body, naming the cause', () => {
    expect(() => new FrameDecoder().push(Buffer.from('oops, a print\n'))).toThrow(
      /printing to stdout/
    )
    const bad = Buffer.concat([Buffer.from([0, 0, 0, 3]), Buffer.from('{x}')])
    expect(() => new FrameDecoder().push(bad)).toThrow(/not JSON/)
  })
})

describe('WorkerConnection', () => {
  const dir = mkdtempSync(join(tmpdir(), 'drs-worker-'))
  const script = join(dir, 'worker.cjs')
  writeFileSync(script, WORKER)
  let conn: WorkerConnection | undefined
  afterEach(() => conn?.kill())

  const open = (name: string): WorkerConnection =>
    (conn = new WorkerConnection({
      name,
      command: { argv: [process.execPath, script] },
      logFile: join(dir, `${name}.log`),
      requestTimeoutMs: 5000
    }))

  it('matches responses to requests and forwards rows', async () => {
    const w = open('w1')
    const rows: WireRow[] = []
    w.on('rows', (r) => rows.push(...r))
    expect((await w.request('hello', { protocol: 1, workerId: 'w1', room: 'room1' })).runtime).toBe(
      'node'
    )
    await w.request('client.create', {
      spec: { id: 'producer-1' } as never
    })
    expect(rows).toEqual([expect.objectContaining({ k: 'e', clientId: 'producer-1' })])
    await expect(w.request('client.stop', { id: 'x', mode: 'crash' })).rejects.toMatchObject({
      code: 'unknown-client',
      message: expect.stringContaining('no such client')
    })
    const exit = await w.shutdown()
    expect(exit).toEqual({ code: 0, signal: null, expected: true })
    expect(readFileSync(join(dir, 'w1.log'), 'utf8')).toContain('stopping')
  })

  it('fails pending requests with the exit status and the log file when the worker dies', async () => {
    const w = open('w2')
    await expect(
      w.request('warmup', { ids: [], timeoutMs: 1, fastMs: 1, streak: 1, tag: 'x' })
    ).rejects.toThrow(/w2 exited with code 7; see .*w2\.log/)
    expect((await w.exited).expected).toBe(false)
    await expect(w.request('client.state', {})).rejects.toMatchObject({ code: 'worker-exited' })
  })

  it('kills a worker that pollutes stdout and says so', async () => {
    const w = open('w3')
    const errors: Error[] = []
    w.on('protocol-error', (e) => errors.push(e))
    await expect(w.request('client.state', {})).rejects.toThrow(/killed by SIGKILL/)
    expect(errors[0]?.message).toMatch(/w3 broke the worker protocol: .*printing to stdout/)
  })

  it('exits the worker when the engine end closes (stdin EOF)', async () => {
    const w = open('w4')
    await w.request('hello', { protocol: 1, workerId: 'w4', room: null })
    ;(w as unknown as { child: { stdin: NodeJS.WritableStream } }).child.stdin.end()
    expect((await w.exited).code).toBe(3)
  })
})
