import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, statSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join, normalize, sep } from 'node:path'
import type { RawData } from 'ws'
import { WebSocket, WebSocketServer } from 'ws'
import { createDispatcher } from '../../common/contract/dispatch'
import type { Engine } from '../services/engine/engine'
import { checkAccess } from './access'

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.ico': 'image/x-icon'
}

/** Same policy as the Electron window; the WebSocket is the only connection the page may open. */
export function contentSecurityPolicy(port: number): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    `connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}`,
    "font-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'"
  ].join('; ')
}

export interface ServeOptions {
  engine: Engine
  rendererDir: string
  port?: number
  token?: string
}

export interface RunningServer {
  url: string
  port: number
  token: string
  close(): Promise<void>
}

interface Envelope {
  t: 'req'
  id: number
  channel: string
  payload: unknown
}

function parseEnvelope(data: RawData): Envelope | null {
  try {
    const msg = JSON.parse(data.toString()) as Partial<Envelope>
    if (msg.t !== 'req' || typeof msg.id !== 'number' || typeof msg.channel !== 'string')
      return null
    return msg as Envelope
  } catch {
    return null
  }
}

/** Starts the browser shell: the built renderer over HTTP and the contract over a WebSocket, on 127.0.0.1 only. */
export async function startBrowserShell(opts: ServeOptions): Promise<RunningServer> {
  const token = opts.token ?? randomBytes(24).toString('base64url')
  if (!existsSync(join(opts.rendererDir, 'index.html'))) {
    throw new Error(
      `the renderer is not built (${join(opts.rendererDir, 'index.html')} is missing): run \`npm run build\``
    )
  }
  const dispatch = createDispatcher(opts.engine.handlers)
  let port = 0

  const serveFile = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const rel = url.pathname === '/' ? 'index.html' : decodeURIComponent(url.pathname.slice(1))
    const file = normalize(join(opts.rendererDir, rel))
    if (
      !file.startsWith(normalize(opts.rendererDir) + sep) ||
      !existsSync(file) ||
      !statSync(file).isFile()
    ) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
      return
    }
    const headers: Record<string, string> = {
      'content-type': MIME[extname(file)] ?? 'application/octet-stream',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cross-origin-opener-policy': 'same-origin',
      'cache-control': rel === 'index.html' ? 'no-store' : 'max-age=3600'
    }
    if (rel === 'index.html') {
      headers['content-security-policy'] = contentSecurityPolicy(port)
      headers['x-frame-options'] = 'DENY'
      headers['set-cookie'] =
        `drstudio_token=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`
    }
    res.writeHead(200, headers).end(readFileSync(file))
  }

  const server = createServer((req, res) => {
    const decision = checkAccess(
      {
        url: req.url ?? '/',
        host: req.headers.host,
        origin: req.headers.origin,
        cookie: req.headers.cookie
      },
      token,
      port
    )
    if (!decision.ok) {
      res
        .writeHead(decision.status, { 'content-type': 'text/plain; charset=utf-8' })
        .end(decision.reason + '\n')
      return
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET' }).end()
      return
    }
    serveFile(req, res)
  })

  const wss = new WebSocketServer({ noServer: true, maxPayload: 32 * 1024 * 1024 })
  server.on('upgrade', (req, socket, head) => {
    const decision = checkAccess(
      {
        url: req.url ?? '/',
        host: req.headers.host,
        origin: req.headers.origin,
        cookie: req.headers.cookie
      },
      token,
      port
    )
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname
    if (!decision.ok || path !== '/ws') {
      const status = decision.ok ? 404 : decision.status
      const reason = decision.ok ? 'not found' : decision.reason
      socket.end(
        `HTTP/1.1 ${status} ${status === 404 ? 'Not Found' : 'Refused'}\r\ncontent-type: text/plain\r\n\r\n${reason}\n`
      )
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req))
  })

  wss.on('connection', (ws: WebSocket) => {
    ws.on('message', async (data) => {
      const msg = parseEnvelope(data)
      if (!msg) {
        ws.send(
          JSON.stringify({
            t: 'error',
            error: { name: 'ProtocolError', message: 'malformed request envelope' }
          })
        )
        return
      }
      try {
        const result = await dispatch(msg.channel, msg.payload)
        ws.send(JSON.stringify({ t: 'res', id: msg.id, ok: true, result }))
      } catch (err) {
        const e = err as Error
        ws.send(
          JSON.stringify({
            t: 'res',
            id: msg.id,
            ok: false,
            error: { name: e.name, message: e.message }
          })
        )
      }
    })
  })

  const unsubscribe = opts.engine.events.onAny((channel, payload) => {
    const frame = JSON.stringify({ t: 'evt', channel, payload })
    for (const client of wss.clients) if (client.readyState === WebSocket.OPEN) client.send(frame)
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'EADDRINUSE'
          ? new Error(
              `port ${opts.port} on 127.0.0.1 is already in use: pass --port 0 or another port`
            )
          : err
      )
    )
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve())
  })
  port = (server.address() as AddressInfo).port
  return {
    port,
    token,
    url: `http://127.0.0.1:${port}/?token=${token}`,
    close: async () => {
      unsubscribe()
      for (const c of wss.clients) c.terminate()
      wss.close()
      await new Promise<void>((r) => server.close(() => r()))
    }
  }
}
