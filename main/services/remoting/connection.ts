import { EventEmitter } from 'node:events'
import { connect as netConnect, type Socket } from 'node:net'
import {
  encodeFrame,
  FrameDecoder,
  FRAME_MAX_LENGTH,
  isOneway,
  isResponse,
  type DecodedCommand,
  type RemotingCommand
} from './codec'
import { DEFAULT_LANGUAGE, DEFAULT_VERSION, RequestCode, ResponseCode, RpcFlag } from './codes'
import {
  ConnectFailedError,
  ConnectionClosedError,
  RemotingError,
  RemotingTimeoutError
} from './errors'

/** What callers hand to a connection: the connection fills in language, version, opaque and flag. */
export interface RemotingRequest {
  code: number
  extFields?: Record<string, string>
  body?: Buffer
  remark?: string
}

/** Tunables of one connection; defaults follow the Java client (3 s connect, 3 s per request). */
export interface RemotingConnectionOptions {
  connectTimeoutMs?: number
  requestTimeoutMs?: number
  language?: string
  version?: number
  maxFrameLength?: number
  /**
   * Where to open the TCP connection for an address, when it is not the address itself: a
   * Kubernetes run reaches the cluster's addresses through loopback tunnels (PodTunnel). Errors and
   * events still name the address the connection was made for.
   */
  route?: (host: string, port: number) => Promise<{ host: string; port: number }>
}

/** Events a connection emits; listeners are optional, errors never go to an 'error' event. */
export interface RemotingConnectionEvents {
  /** The broker says a group's membership changed (NOTIFY_CONSUMER_IDS_CHANGED, code 40). */
  'consumer-ids-changed': [{ address: string; consumerGroup: string | undefined }]
  /** Any request the server initiated, after it was handled. */
  'server-request': [DecodedCommand]
  /** The TCP connection ended; `error` says why when it was not a clean local close. */
  close: [{ address: string; error?: RemotingError }]
}

interface Pending {
  code: number
  socketId: number
  timer: NodeJS.Timeout
  resolve: (cmd: DecodedCommand) => void
  reject: (e: RemotingError) => void
}

/** Splits `host:port`, `[v6]:port` or `v6:port`; throws a typed error for anything else. */
export function parseAddress(address: string): { host: string; port: number } {
  const i = address.lastIndexOf(':')
  const port = Number(address.slice(i + 1))
  let host = address.slice(0, i)
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1)
  if (i <= 0 || !host || !Number.isInteger(port) || port <= 0 || port > 65535) {
    throw new RemotingError(
      'bad-request',
      `${JSON.stringify(address)} is not a host:port address`,
      {
        address
      }
    )
  }
  return { host, port }
}

let nextOpaque = 1

/** Process-wide request ids, so opaques stay unique even across reconnects and connections. */
function allocateOpaque(): number {
  const o = nextOpaque
  nextOpaque = nextOpaque >= 0x7fffffff ? 1 : nextOpaque + 1
  return o
}

/**
 * One TCP connection to a namesrv, broker or proxy. Requests are matched to responses by opaque;
 * the socket is (re)opened lazily on the next use after it closes. Every failure is a RemotingError.
 */
export class RemotingConnection extends EventEmitter<RemotingConnectionEvents> {
  readonly address: string
  private readonly host: string
  private readonly port: number
  private readonly connectTimeoutMs: number
  private readonly requestTimeoutMs: number
  private readonly language: string
  private readonly version: number
  private readonly maxFrameLength: number
  private readonly route: RemotingConnectionOptions['route']
  private socket: Socket | undefined
  private socketId = 0
  private connecting: Promise<Socket> | undefined
  private abortConnect: ((e: RemotingError) => void) | undefined
  private readonly pending = new Map<number, Pending>()
  private closedByUser = false

  constructor(address: string, options: RemotingConnectionOptions = {}) {
    super()
    const { host, port } = parseAddress(address)
    this.address = address
    this.host = host
    this.port = port
    this.connectTimeoutMs = options.connectTimeoutMs ?? 3000
    this.requestTimeoutMs = options.requestTimeoutMs ?? 3000
    this.language = options.language ?? DEFAULT_LANGUAGE
    this.version = options.version ?? DEFAULT_VERSION
    this.maxFrameLength = options.maxFrameLength ?? FRAME_MAX_LENGTH
    this.route = options.route
  }

  /** Requests still waiting for a response (exposed for leak checks). */
  get pendingCount(): number {
    return this.pending.size
  }

  /** True while a socket is open (it may still be half-dead, e.g. a SIGSTOPped peer). */
  get isOpen(): boolean {
    return this.socket !== undefined
  }

  /** True once close() was called; such a connection refuses further use. */
  get isClosed(): boolean {
    return this.closedByUser
  }

  /** Sends a request and resolves with the response, whatever its code; rejects only on transport failure. */
  request(
    req: RemotingRequest,
    timeoutMs: number = this.requestTimeoutMs
  ): Promise<DecodedCommand> {
    return new Promise<DecodedCommand>((resolve, reject) => {
      const opaque = allocateOpaque()
      let frame: Buffer
      try {
        frame = this.frameFor(req, opaque, 0)
      } catch (e) {
        reject(e)
        return
      }
      let settled = false
      // Timers run before the loop reads sockets. After a stall of this process (GC, a busy host)
      // the answer may already be in the socket: read it first (setImmediate runs after the poll
      // phase), so a stall of ours is not taken for a broker's silence.
      const timer = setTimeout(() => {
        setImmediate(() => {
          if (settled) return
          settled = true
          this.pending.delete(opaque)
          reject(new RemotingTimeoutError(this.address, req.code, timeoutMs))
        })
      }, timeoutMs)
      const fail = (e: RemotingError): void => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        this.pending.delete(opaque)
        reject(e)
      }
      this.ensureSocket().then(
        (socket) => {
          if (settled) return
          this.pending.set(opaque, {
            code: req.code,
            socketId: this.socketId,
            timer,
            resolve: (cmd) => {
              settled = true
              clearTimeout(timer)
              resolve(cmd)
            },
            reject: fail
          })
          socket.write(frame)
        },
        (e: RemotingError) => fail(e)
      )
    })
  }

  /** Fire-and-forget request (flag bit 1); resolves once the bytes are handed to the kernel. */
  oneway(req: RemotingRequest): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let frame: Buffer
      try {
        frame = this.frameFor(req, allocateOpaque(), RpcFlag.ONEWAY)
      } catch (e) {
        reject(e)
        return
      }
      this.ensureSocket().then((socket) => {
        socket.write(frame, (err) => {
          if (err) reject(new ConnectionClosedError(this.address, err.message, err))
          else resolve()
        })
      }, reject)
    })
  }

  /** Closes the socket for good; pending requests fail with connection-closed. */
  close(): void {
    if (this.closedByUser) return
    this.closedByUser = true
    this.abortConnect?.(new ConnectionClosedError(this.address, 'closed by the client'))
    const socket = this.socket
    if (socket) {
      this.detach(socket, this.socketId, undefined)
      socket.destroy()
    }
  }

  private frameFor(req: RemotingRequest, opaque: number, flag: number): Buffer {
    const cmd: RemotingCommand = {
      code: req.code,
      language: this.language,
      version: this.version,
      opaque,
      flag,
      extFields: req.extFields ?? {}
    }
    if (req.remark !== undefined) cmd.remark = req.remark
    if (req.body !== undefined) cmd.body = req.body
    return encodeFrame(cmd, 0, this.maxFrameLength)
  }

  private ensureSocket(): Promise<Socket> {
    if (this.closedByUser) {
      return Promise.reject(new ConnectionClosedError(this.address, 'closed by the client'))
    }
    if (this.socket) return Promise.resolve(this.socket)
    if (this.connecting) return this.connecting
    const route = this.route
    // Without a route the socket opens now, in this tick, as it always did.
    this.connecting = route
      ? route(this.host, this.port).then(
          (to) => this.open(to),
          (e: Error) => {
            this.connecting = undefined
            throw new ConnectFailedError(this.address, e.message, e)
          }
        )
      : this.open({ host: this.host, port: this.port })
    return this.connecting
  }

  private open(to: { host: string; port: number }): Promise<Socket> {
    return new Promise<Socket>((resolve, reject) => {
      if (this.closedByUser) {
        this.connecting = undefined
        reject(new ConnectionClosedError(this.address, 'closed by the client'))
        return
      }
      const socket = netConnect(to)
      const cleanup = (): void => {
        clearTimeout(timer)
        socket.off('connect', onConnect)
        socket.off('error', onError)
        this.connecting = undefined
        this.abortConnect = undefined
      }
      const abort = (e: RemotingError): void => {
        cleanup()
        socket.on('error', () => {}) // a late error from the abandoned socket must not crash us
        socket.destroy()
        reject(e)
      }
      const onConnect = (): void => {
        cleanup()
        this.attach(socket)
        resolve(socket)
      }
      const onError = (err: Error): void =>
        abort(new ConnectFailedError(this.address, err.message, err))
      const timer = setTimeout(
        () =>
          abort(
            new ConnectFailedError(
              this.address,
              `no connection within ${this.connectTimeoutMs} ms`,
              undefined,
              true
            )
          ),
        this.connectTimeoutMs
      )
      this.abortConnect = abort
      socket.once('connect', onConnect)
      socket.once('error', onError)
    })
  }

  private attach(socket: Socket): void {
    const id = ++this.socketId
    this.socket = socket
    socket.setNoDelay(true)
    socket.setKeepAlive(true, 10_000)
    const decoder = new FrameDecoder({ maxFrameLength: this.maxFrameLength })
    let lastError: Error | undefined
    socket.on('data', (chunk: Buffer) => {
      const frames = decoder.push(chunk)
      for (;;) {
        let next: IteratorResult<DecodedCommand>
        try {
          next = frames.next()
        } catch (e) {
          const err =
            e instanceof RemotingError
              ? e
              : new RemotingError('bad-response', 'undecodable frame', { cause: e })
          const reason = `malformed frame from server (${err.code}): ${err.message}`
          this.detach(socket, id, new ConnectionClosedError(this.address, reason, err))
          socket.destroy()
          return
        }
        if (next.done) return
        // Listener exceptions propagate like any EventEmitter's; they are not frame errors.
        this.dispatch(next.value, socket)
      }
    })
    socket.on('error', (err) => {
      lastError = err
    })
    // The peer's FIN (a killed broker's kernel closes its sockets): fail what is pending now rather
    // than after the close that follows.
    socket.on('end', () => {
      this.detach(socket, id, new ConnectionClosedError(this.address, 'closed by the peer'))
      socket.destroy()
    })
    socket.on('close', () => {
      const reason = lastError ? lastError.message : 'closed by the peer'
      this.detach(socket, id, new ConnectionClosedError(this.address, reason, lastError))
    })
  }

  /** Forgets a socket and fails the requests written to it; `error` undefined = our own close(). */
  private detach(socket: Socket, id: number, error: ConnectionClosedError | undefined): void {
    if (this.socket !== socket) return
    this.socket = undefined
    const failure = error ?? new ConnectionClosedError(this.address, 'closed by the client')
    for (const [opaque, p] of this.pending) {
      if (p.socketId !== id) continue
      this.pending.delete(opaque)
      p.reject(failure)
    }
    this.emit('close', error ? { address: this.address, error } : { address: this.address })
  }

  private dispatch(cmd: DecodedCommand, socket: Socket): void {
    if (isResponse(cmd)) {
      const p = this.pending.get(cmd.opaque)
      if (!p) return // late response to a timed-out request
      this.pending.delete(cmd.opaque)
      p.resolve(cmd)
      return
    }
    if (cmd.code === RequestCode.NOTIFY_CONSUMER_IDS_CHANGED) {
      this.emit('consumer-ids-changed', {
        address: this.address,
        consumerGroup: cmd.extFields.consumerGroup
      })
    } else if (!isOneway(cmd)) {
      const reply: RemotingCommand = {
        code: ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
        language: this.language,
        version: this.version,
        opaque: cmd.opaque,
        flag: RpcFlag.RESPONSE,
        remark: `request code ${cmd.code} is not supported by this client`,
        extFields: {}
      }
      socket.write(encodeFrame(reply))
    }
    this.emit('server-request', cmd)
  }
}
