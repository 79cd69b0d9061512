import { createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import { encodeFrame, FrameDecoder, type DecodedCommand } from './codec'
import { RpcFlag } from './codes'

/**
 * A loopback server that speaks the frame codec, for unit tests of bodies and error paths that
 * real RocketMQ will not produce on demand (never a stand-in for a real name server or broker).
 */
export interface StubServer {
  address: string
  port: number
  received: DecodedCommand[]
  /** Client connections still open (a client that closed its pool has none left). */
  openConnections(): number
  close(): Promise<void>
}

/** What the stub does with one decoded request. */
export type StubBehaviour = (cmd: DecodedCommand, socket: Socket) => void

/** Starts a stub on 127.0.0.1 with an ephemeral port. */
export async function startStubServer(onRequest: StubBehaviour): Promise<StubServer> {
  const sockets: Socket[] = []
  const received: DecodedCommand[] = []
  const server: Server = createServer((socket) => {
    sockets.push(socket)
    socket.on('close', () => sockets.splice(sockets.indexOf(socket), 1))
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
    port,
    received,
    openConnections: () => sockets.length,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of [...sockets]) s.destroy()
        server.close(() => resolve())
      })
  }
}

/** Answers a request with a response frame (code, ext fields, body). */
export function stubReply(
  socket: Socket,
  req: DecodedCommand,
  code = 0,
  extra: { extFields?: Record<string, string>; body?: Buffer | string; remark?: string } = {}
): void {
  socket.write(
    encodeFrame({
      code,
      language: 'JAVA',
      version: 479,
      opaque: req.opaque,
      flag: RpcFlag.RESPONSE,
      extFields: extra.extFields ?? {},
      ...(extra.remark !== undefined ? { remark: extra.remark } : {}),
      ...(extra.body !== undefined
        ? { body: typeof extra.body === 'string' ? Buffer.from(extra.body) : extra.body }
        : {})
    })
  )
}
