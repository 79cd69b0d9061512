import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { RunMetrics } from './run-metrics'

/** Where the metrics endpoint listens: loopback only. */
export interface MetricsAddress {
  host: '127.0.0.1'
  port: number
}

/**
 * Reads `--metrics 127.0.0.1:PORT` (or `localhost:PORT`; port 0 takes a free one). Throws naming
 * the value and the fix: the endpoint never listens beyond this machine.
 */
export function parseMetricsAddress(text: string): MetricsAddress {
  const m = /^(127\.0\.0\.1|localhost):(\d{1,5})$/.exec(text.trim())
  if (!m) {
    throw new Error(
      `--metrics ${text}: give a loopback address and port, e.g. --metrics 127.0.0.1:9464 (the endpoint listens on this machine only)`
    )
  }
  const port = Number(m[2])
  if (port > 65535) throw new Error(`--metrics ${text}: the port must be 0-65535`)
  return { host: '127.0.0.1', port }
}

/**
 * The metrics endpoint: `GET /metrics` answers the Prometheus text format. Bound to 127.0.0.1; every request must carry the per-launch bearer
 * token and a loopback Host header (a web page cannot read it, nor reach it by DNS rebinding).
 */
export class MetricsServer {
  private constructor(
    private readonly server: Server,
    readonly url: string,
    readonly token: string
  ) {}

  static async start(
    address: MetricsAddress,
    metrics: RunMetrics,
    token = randomBytes(24).toString('base64url')
  ): Promise<MetricsServer> {
    const server = createServer((req, res) => {
      void answer(req, res, metrics, token, port()).catch((e: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' })
        res.end(`${(e as Error).message}\n`)
      })
    })
    const port = (): number => (server.address() as AddressInfo).port
    await new Promise<void>((resolveListen, reject) => {
      server.once('error', (e: NodeJS.ErrnoException) =>
        reject(
          new Error(
            e.code === 'EADDRINUSE'
              ? `--metrics ${address.host}:${address.port}: the port is in use; pick another (or 0 for any free port)`
              : `--metrics ${address.host}:${address.port}: ${e.message}`
          )
        )
      )
      server.listen(address.port, address.host, () => resolveListen())
    })
    server.unref()
    return new MetricsServer(server, `http://${address.host}:${port()}/metrics`, token)
  }

  /** Stops listening and drops open scrapes; idempotent. */
  close(): Promise<void> {
    return new Promise((done) => {
      this.server.close(() => done())
      this.server.closeAllConnections()
    })
  }
}

async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  metrics: RunMetrics,
  token: string,
  port: number
): Promise<void> {
  const host = req.headers.host ?? ''
  if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
    res.writeHead(421, { 'content-type': 'text/plain' }).end('loopback Host only\n')
    return
  }
  if (!sameSecret(req.headers.authorization ?? '', `Bearer ${token}`)) {
    res
      .writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' })
      .end('missing or wrong bearer token: see the token file DR Studio printed at start\n')
    return
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD' }).end()
    return
  }
  if ((req.url ?? '').split('?')[0] !== '/metrics') {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('try /metrics\n')
    return
  }
  const body = await metrics.registry.metrics()
  res.writeHead(200, { 'content-type': metrics.registry.contentType })
  res.end(req.method === 'HEAD' ? undefined : body)
}

/** Compares a presented secret with the expected one in constant time. */
function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}
