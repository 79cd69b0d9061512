import { createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { RemotingRpc } from './remoting-rpc'
import { encodeFrame, FrameDecoder, type DecodedCommand } from './codec'
import { RequestCode, ResponseCode, RpcFlag } from './codes'
import { RemotingConnection } from './connection'
import { ConnectionClosedError, FrameError, RemoteError, RemotingError } from './errors'

/**
 * A loopback stub that speaks the frame codec, used only for error paths real RocketMQ will not
 * produce on demand. `onRequest` decides what each received request does to the socket.
 */
interface Stub {
  address: string
  server: Server
  sockets: Socket[]
  received: DecodedCommand[]
  close(): Promise<void>
}

type Behaviour = (cmd: DecodedCommand, socket: Socket) => void

async function startStub(onRequest: Behaviour): Promise<Stub> {
  const sockets: Socket[] = []
  const received: DecodedCommand[] = []
  const server = createServer((socket) => {
    sockets.push(socket)
    socket.on('error', () => {})
    const decoder = new FrameDecoder()
    socket.on('data', (chunk) => {
      for (const cmd of decoder.push(chunk)) {
        received.push(cmd)
        onRequest(cmd, socket)
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    address: `127.0.0.1:${port}`,
    server,
    sockets,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      })
  }
}

function reply(
  socket: Socket,
  req: DecodedCommand,
  code = 0,
  extra: Partial<DecodedCommand> = {}
): void {
  socket.write(
    encodeFrame({
      code,
      language: 'JAVA',
      version: 479,
      opaque: req.opaque,
      flag: RpcFlag.RESPONSE,
      extFields: {},
      ...extra
    })
  )
}

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.()
})

async function stub(onRequest: Behaviour): Promise<Stub> {
  const s = await startStub(onRequest)
  cleanups.push(() => s.close())
  return s
}

function connection(address: string, options = {}): RemotingConnection {
  const c = new RemotingConnection(address, options)
  cleanups.push(() => c.close())
  return c
}

function socketOf(c: RemotingConnection): Socket {
  return (c as unknown as { socket: Socket }).socket
}

describe('RemotingConnection', () => {
  it('matches responses by opaque, even out of order', async () => {
    const held: Array<[DecodedCommand, Socket]> = []
    const s = await stub((cmd, socket) => {
      held.push([cmd, socket])
      if (held.length === 2) {
        for (const [c, sock] of held.reverse()) reply(sock, c, 0, { remark: `r${c.code}` })
      }
    })
    const c = connection(s.address)
    const [a, b] = await Promise.all([c.request({ code: 1 }), c.request({ code: 2 })])
    expect(a.remark).toBe('r1')
    expect(b.remark).toBe('r2')
    expect(s.received[0]?.language).toBe('JAVA')
    expect(s.received[0]?.version).toBe(479)
  })

  it('times out without leaving pending entries or socket listeners behind', async () => {
    const s = await stub(() => {})
    const c = connection(s.address)
    await expect(c.request({ code: 1 }, 50)).rejects.toMatchObject({ code: 'timeout' })
    const socket = socketOf(c)
    const before = ['data', 'close', 'error', 'end'].map((e) => socket.listenerCount(e))
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, () => c.request({ code: 1 }, 20))
    )
    for (const r of results) {
      expect(r.status).toBe('rejected')
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(RemotingError)
      expect((r as PromiseRejectedResult).reason.code).toBe('timeout')
    }
    expect(c.pendingCount).toBe(0)
    expect(['data', 'close', 'error', 'end'].map((e) => socket.listenerCount(e))).toEqual(before)
    expect(c.listenerCount('close')).toBe(0)
  })

  it('ignores a late response after a timeout and keeps working', async () => {
    let first = true
    const s = await stub((cmd, socket) => {
      if (first) {
        first = false
        setTimeout(() => reply(socket, cmd, 0), 80)
      } else reply(socket, cmd, 0, { remark: 'second' })
    })
    const c = connection(s.address)
    await expect(c.request({ code: 1 }, 30)).rejects.toMatchObject({ code: 'timeout' })
    await new Promise((r) => setTimeout(r, 100))
    await expect(c.request({ code: 1 })).resolves.toMatchObject({ remark: 'second' })
  })

  it('reads an answer that arrived while this process stalled before it calls the request timed out', async () => {
    const s = await stub((cmd, socket) => {
      reply(socket, cmd, 0, { remark: 'answered in time' })
      // The answer is in the socket; now this process stalls past the request's timeout.
      const until = Date.now() + 120
      while (Date.now() < until) {
        /* a GC pause or a busy host */
      }
    })
    const c = connection(s.address)
    await expect(c.request({ code: 1 }, 40)).resolves.toMatchObject({ remark: 'answered in time' })
    expect(c.pendingCount).toBe(0)
  })

  it('fails pending requests when the peer ends the connection (FIN), with one close event', async () => {
    const s = await stub((_cmd, socket) => socket.end())
    const c = connection(s.address)
    const closes: unknown[] = []
    c.on('close', (e) => closes.push(e))
    await expect(c.request({ code: 1 }, 5000)).rejects.toMatchObject({ code: 'connection-closed' })
    expect(closes).toHaveLength(1)
    expect(c.isOpen).toBe(false)
  })

  it('fails a request with connection-closed when the server closes mid-request, then reconnects', async () => {
    let n = 0
    const s = await stub((cmd, socket) => {
      if (n++ === 0) socket.destroy()
      else reply(socket, cmd)
    })
    const c = connection(s.address)
    const closes: unknown[] = []
    c.on('close', (e) => closes.push(e))
    const err = await c.request({ code: 1 }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ConnectionClosedError)
    expect((err as RemotingError).code).toBe('connection-closed')
    expect(c.pendingCount).toBe(0)
    expect(closes).toHaveLength(1)
    await expect(c.request({ code: 1 })).resolves.toMatchObject({ code: 0 })
    expect(s.sockets).toHaveLength(2)
  })

  it('drops the connection on a malformed frame and fails pending requests with a typed error', async () => {
    const s = await stub((_cmd, socket) => {
      const garbage = Buffer.from('\x00\x00\x00\x0c\x00\x00\x00\x08{notjson', 'latin1')
      socket.write(garbage)
    })
    const c = connection(s.address)
    const closes: Array<{ error?: RemotingError }> = []
    c.on('close', (e) => closes.push(e))
    const err = (await c.request({ code: 1 }).catch((e: unknown) => e)) as RemotingError
    expect(err.code).toBe('connection-closed')
    expect(err.cause).toBeInstanceOf(FrameError)
    expect((err.cause as FrameError).code).toBe('bad-header-json')
    expect(closes[0]?.error?.code).toBe('connection-closed')
    expect(c.isOpen).toBe(false)
  })

  it('drops the connection on an oversized frame length from the server', async () => {
    const s = await stub((_cmd, socket) => socket.write(Buffer.from([0x7f, 0xff, 0xff, 0xff])))
    const c = connection(s.address)
    const err = (await c.request({ code: 1 }).catch((e: unknown) => e)) as RemotingError
    expect((err.cause as FrameError).code).toBe('frame-too-large')
  })

  it('answers unsupported server requests with code 3 and the same opaque', async () => {
    let clientSocket: Socket | undefined
    const s = await stub((cmd, socket) => {
      clientSocket = socket
      reply(socket, cmd)
    })
    const c = connection(s.address)
    await c.request({ code: 1 })
    const seen: DecodedCommand[] = []
    c.on('server-request', (cmd) => seen.push(cmd))
    const before = s.received.length
    clientSocket?.write(
      encodeFrame({
        code: RequestCode.CHECK_TRANSACTION_STATE,
        language: 'JAVA',
        version: 479,
        opaque: 777,
        flag: 0,
        extFields: {}
      })
    )
    await expect.poll(() => s.received.length).toBe(before + 1)
    const answer = s.received[before]
    expect(answer).toMatchObject({
      code: ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
      opaque: 777,
      flag: RpcFlag.RESPONSE
    })
    expect(seen.map((x) => x.code)).toEqual([RequestCode.CHECK_TRANSACTION_STATE])
  })

  it('emits consumer-ids-changed for a oneway NOTIFY_CONSUMER_IDS_CHANGED and does not answer it', async () => {
    let clientSocket: Socket | undefined
    const s = await stub((cmd, socket) => {
      clientSocket = socket
      reply(socket, cmd)
    })
    const client = new RemotingRpc()
    cleanups.push(() => client.close())
    await client.invoke(s.address, { code: 1 })
    const events: unknown[] = []
    client.on('consumer-ids-changed', (e) => events.push(e))
    const before = s.received.length
    clientSocket?.write(
      encodeFrame({
        code: RequestCode.NOTIFY_CONSUMER_IDS_CHANGED,
        language: 'JAVA',
        version: 479,
        opaque: 5,
        flag: RpcFlag.ONEWAY,
        extFields: { consumerGroup: 'CG' }
      })
    )
    await expect.poll(() => events.length).toBe(1)
    expect(events[0]).toEqual({ address: s.address, consumerGroup: 'CG' })
    await client.invoke(s.address, { code: 1 })
    expect(s.received.slice(before).map((x) => x.code)).toEqual([1])
  })

  it('reports connect-failed for a closed port', async () => {
    const s = await startStub(() => {})
    const address = s.address
    await s.close()
    const c = connection(address)
    await expect(c.request({ code: 1 })).rejects.toMatchObject({ code: 'connect-failed' })
    await expect(c.oneway({ code: 1 })).rejects.toMatchObject({ code: 'connect-failed' })
  })

  it('fails pending requests on close() and refuses use afterwards', async () => {
    const s = await stub(() => {})
    const c = connection(s.address)
    const pending = c.request({ code: 1 }, 5000).catch((e: unknown) => e)
    await expect.poll(() => s.received.length).toBe(1)
    c.close()
    expect(await pending).toMatchObject({ code: 'connection-closed' })
    await expect(c.request({ code: 1 })).rejects.toMatchObject({ code: 'connection-closed' })
  })

  it('rejects (never throws) frames above the limit and bad addresses', async () => {
    const s = await stub(() => {})
    const c = connection(s.address, { maxFrameLength: 1024 })
    await expect(c.request({ code: 1, body: Buffer.alloc(2048) })).rejects.toMatchObject({
      code: 'frame-too-large'
    })
    expect(() => new RemotingConnection('nope')).toThrow(RemotingError)
  })
})

describe('RemotingRpc error mapping', () => {
  it('turns a non-success code into RemoteError with code and remark', async () => {
    const s = await stub((cmd, socket) => reply(socket, cmd, 17, { remark: 'No topic route info' }))
    const client = new RemotingRpc()
    cleanups.push(() => client.close())
    const err = await client.getRouteInfoByTopic(s.address, 'T').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(RemoteError)
    expect(err).toMatchObject({
      code: 'remote-error',
      responseCode: 17,
      remark: 'No topic route info'
    })
    expect(s.received[0]?.extFields).toEqual({ topic: 'T', acceptStandardJsonOnly: 'true' })
  })

  it('treats "no consumer for this group" as an empty list', async () => {
    const s = await stub((cmd, socket) =>
      reply(socket, cmd, 1, {
        remark: `no consumer for this group, ${cmd.extFields.consumerGroup}`
      })
    )
    const client = new RemotingRpc()
    cleanups.push(() => client.close())
    await expect(
      client.getConsumerListByGroup(s.address, 'G', { brokerName: 'b' })
    ).resolves.toEqual([])
    expect(s.received[0]?.extFields).toEqual({ consumerGroup: 'G', bname: 'b' })
  })

  it('reports a corrupt body as bad-response', async () => {
    const s = await stub((cmd, socket) =>
      reply(socket, cmd, 0, { body: Buffer.from('{"brokerAddrTable":7}') })
    )
    const client = new RemotingRpc()
    cleanups.push(() => client.close())
    await expect(client.getBrokerClusterInfo(s.address)).rejects.toMatchObject({
      code: 'bad-response'
    })
  })
})
