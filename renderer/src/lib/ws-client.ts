/** Connection state of the browser shell's WebSocket, shown in the status bar. */
export type ConnectionState = 'connecting' | 'open' | 'reconnecting' | 'unauthorized'

/** The subset of the DOM WebSocket the client uses, so tests can pass a fake. */
export interface SocketLike {
  readyState: number
  send(data: string): void
  close(code?: number, reason?: string): void
  onopen: ((ev: unknown) => void) | null
  onclose: ((ev: { code: number; reason?: string }) => void) | null
  onmessage: ((ev: { data: unknown }) => void) | null
  onerror: ((ev: unknown) => void) | null
}

export interface WsClientOptions {
  createSocket: (url: string) => SocketLike
  setTimer?: (fn: () => void, ms: number) => unknown
  clearTimer?: (handle: unknown) => void
  /** Requests fail after this long without an answer; the engine may be busy starting JVMs. */
  requestTimeoutMs?: number
  random?: () => number
}

/** An error the engine sent back, keeping its name (e.g. ContractError) for the UI. */
export class EngineError extends Error {
  constructor(name: string, message: string) {
    super(message)
    this.name = name
  }
}

interface Pending {
  resolve: (value: unknown) => void
  reject: (err: Error) => void
  timer: unknown
  frame: string
}

const OPEN = 1
/** Close codes the server uses for a bad or missing token: reconnecting would not help. */
const AUTH_CLOSE_CODES = new Set([1008, 4401, 4403])

/** Backoff before reconnect attempt n (0-based): 250 ms doubling to 5 s, with jitter. */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(5000, 250 * 2 ** attempt)
  return Math.round(base * (0.75 + random() * 0.5))
}

/**
 * Request/response and events over the browser shell's WebSocket protocol.
 *
 * Requests made while disconnected wait for the next connection; in-flight ones fail when the
 * connection drops, because the engine may or may not have run them.
 */
export class WsClient {
  private socket: SocketLike | null = null
  private nextId = 1
  private attempt = 0
  private reconnectTimer: unknown = null
  private readonly pending = new Map<number, Pending>()
  private readonly queue: number[] = []
  private readonly listeners = new Map<string, Set<(payload: unknown) => void>>()
  private readonly stateListeners = new Set<(s: ConnectionState) => void>()
  private closed = false
  state: ConnectionState = 'connecting'

  constructor(
    private readonly url: string,
    private readonly opts: WsClientOptions
  ) {}

  connect(): void {
    this.closed = false
    this.open()
  }

  close(): void {
    this.closed = true
    if (this.reconnectTimer !== null) this.clear(this.reconnectTimer)
    this.socket?.close(1000, 'closed by client')
    this.socket = null
  }

  request(channel: string, payload: unknown): Promise<unknown> {
    const id = this.nextId++
    const frame = JSON.stringify({ t: 'req', id, channel, payload: payload ?? {} })
    return new Promise((resolve, reject) => {
      const timer = this.timer(() => {
        this.pending.delete(id)
        const i = this.queue.indexOf(id)
        if (i >= 0) this.queue.splice(i, 1)
        reject(new EngineError('TimeoutError', `no answer from the engine to "${channel}"`))
      }, this.opts.requestTimeoutMs ?? 120_000)
      this.pending.set(id, { resolve, reject, timer, frame })
      if (this.socket?.readyState === OPEN) this.socket.send(frame)
      else this.queue.push(id)
    })
  }

  on(channel: string, listener: (payload: unknown) => void): () => void {
    let set = this.listeners.get(channel)
    if (!set) this.listeners.set(channel, (set = new Set()))
    set.add(listener)
    return () => set.delete(listener)
  }

  onState(listener: (s: ConnectionState) => void): () => void {
    this.stateListeners.add(listener)
    return () => this.stateListeners.delete(listener)
  }

  private timer(fn: () => void, ms: number): unknown {
    return (this.opts.setTimer ?? ((f, t) => setTimeout(f, t)))(fn, ms)
  }

  private clear(handle: unknown): void {
    ;(this.opts.clearTimer ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>)))(handle)
  }

  private setState(s: ConnectionState): void {
    if (this.state === s) return
    this.state = s
    for (const l of this.stateListeners) l(s)
  }

  private open(): void {
    this.reconnectTimer = null
    const socket = this.opts.createSocket(this.url)
    this.socket = socket
    socket.onopen = () => {
      this.attempt = 0
      this.setState('open')
      for (const id of this.queue.splice(0)) {
        const p = this.pending.get(id)
        if (p) socket.send(p.frame)
      }
    }
    socket.onmessage = (ev) => this.receive(ev.data)
    socket.onerror = () => {}
    socket.onclose = (ev) => {
      if (this.socket !== socket) return
      this.socket = null
      for (const [id, p] of this.pending) {
        if (this.queue.includes(id)) continue
        this.clear(p.timer)
        this.pending.delete(id)
        p.reject(new EngineError('ConnectionError', 'connection to the engine was lost'))
      }
      if (this.closed) return
      if (AUTH_CLOSE_CODES.has(ev.code)) {
        this.setState('unauthorized')
        return
      }
      this.setState('reconnecting')
      this.reconnectTimer = this.timer(
        () => this.open(),
        backoffDelay(this.attempt++, this.opts.random)
      )
    }
  }

  private receive(data: unknown): void {
    if (typeof data !== 'string') return
    let msg: unknown
    try {
      msg = JSON.parse(data)
    } catch {
      return
    }
    if (typeof msg !== 'object' || msg === null) return
    const m = msg as Record<string, unknown>
    if (m.t === 'res' && typeof m.id === 'number') {
      const p = this.pending.get(m.id)
      if (!p) return
      this.pending.delete(m.id)
      this.clear(p.timer)
      if (m.ok === true) p.resolve(m.result)
      else {
        const e = (m.error ?? {}) as { name?: unknown; message?: unknown }
        p.reject(
          new EngineError(
            typeof e.name === 'string' ? e.name : 'EngineError',
            typeof e.message === 'string' ? e.message : 'the engine reported an error'
          )
        )
      }
    } else if (m.t === 'evt' && typeof m.channel === 'string') {
      const set = this.listeners.get(m.channel)
      if (!set) return
      for (const l of [...set]) {
        try {
          l(m.payload)
        } catch (err) {
          console.error(`listener for "${m.channel}" failed`, err)
        }
      }
    }
  }
}
