import { connect, createServer, type Server, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { parseAddress } from '../remoting/connection'
import type { KubeEndpoint } from './kube-http'
import type { WebSocket } from 'ws'
import { CHANNEL_PROTOCOL, openPodSocket, podStreamUrl, readRefusal } from './kube-socket'

/** Port-forward framing (one port per stream): channel 0 carries data, channel 1 the kubelet's error text. */
const DATA = 0
const ERROR = 1

export interface ForwardTarget {
  namespace: string
  pod: string
  port: number
}

/**
 * Pipes one local TCP connection to a pod's port over the API server's `pods/portforward` stream
 * (`v4.channel.k8s.io`, the kubelet's WebSocket port-forward): one stream per connection, as the
 * WebSocket variant has no multiplexing. Each channel opens with the port as two bytes,
 * little-endian, which are not data. A kubelet's error (nothing listening, pod gone) ends the
 * connection, so the local side sees a close rather than a refusal.
 */
export function pipeToPod(
  endpoint: KubeEndpoint,
  target: ForwardTarget,
  local: Socket,
  onError: (message: string) => void,
  track: (ws: WebSocket) => void = () => undefined
): void {
  const where = `pod ${target.pod} in ${target.namespace}`
  const query = new URLSearchParams({ ports: String(target.port) })
  const url = podStreamUrl(endpoint.server, target, 'portforward', query)
  local.pause()
  void openPodSocket(endpoint, url, [CHANNEL_PROTOCOL]).then(
    (ws) => {
      track(ws)
      // The local side may have gone while the credentials were fetched.
      if (local.destroyed) {
        ws.terminate()
        return
      }
      let reported = false
      const report = (message: string) => {
        if (reported) return
        reported = true
        onError(message)
      }
      const headerLeft = [2, 2]
      let errorText = ''
      ws.on('open', () => {
        local.on('data', (chunk: Buffer) => ws.send(Buffer.concat([Buffer.from([DATA]), chunk])))
        local.on('end', () => ws.close())
        local.resume()
      })
      ws.on('message', (data: Buffer) => {
        const channel = data[0]!
        if (channel !== DATA && channel !== ERROR) return
        let body = data.subarray(1)
        const skip = Math.min(headerLeft[channel]!, body.length)
        headerLeft[channel]! -= skip
        body = body.subarray(skip)
        if (body.length === 0) return
        if (channel === DATA) local.write(body)
        else errorText += body.toString('utf8')
      })
      ws.on('unexpected-response', (_req, res) =>
        readRefusal(res, 'portforward', where, (message) => {
          report(`${endpoint.server}: ${message}`)
          ws.terminate()
          local.destroy()
        })
      )
      ws.on('error', (e) => {
        report(`${endpoint.server}: port ${target.port} of ${where}: ${e.message}`)
        local.destroy()
      })
      ws.on('close', () => {
        if (errorText) report(`port ${target.port} of ${where}: ${errorText.trim()}`)
        local.end()
      })
      local.on('error', () => ws.terminate())
      local.on('close', () => ws.terminate())
    },
    (e: Error) => {
      onError(`${endpoint.server}: port ${target.port} of ${where}: ${e.message}`)
      local.destroy()
    }
  )
}

/**
 * The engine's way into the cluster's network: an address as the cluster's clients know it
 * (`NODE.NS.svc:port`, a pod IP) becomes a loopback port of this process, whose connections are
 * forwarded through the API server to the pod behind that address. One listener per pod and port,
 * bound to 127.0.0.1 only, closed with `close()`.
 */
export class PodTunnel {
  private readonly listeners = new Map<string, Promise<{ server: Server; port: number }>>()
  private readonly sockets = new Set<Socket>()
  private readonly streams = new Set<WebSocket>()
  private closed = false

  constructor(
    private readonly endpoint: KubeEndpoint,
    private readonly namespace: string,
    /** Which pod serves a cluster address (null: not one of this run's pods). */
    private readonly podOf: (host: string, port: number) => Promise<string | null>,
    private readonly onError: (message: string) => void = () => undefined
  ) {}

  /** A loopback `host:port` that reaches the cluster's `host:port`. */
  async localAddress(host: string, port: number): Promise<string> {
    if (this.closed) throw new Error('the tunnel into the cluster is closed')
    const pod = await this.podOf(host, port)
    if (this.closed) throw new Error('the tunnel into the cluster is closed')
    if (!pod) {
      throw new Error(
        `${host}:${port} is not an address of this run's pods in namespace ${this.namespace}; DR Studio reaches only its own pods, through the API server`
      )
    }
    const key = `${pod}:${port}`
    let listening = this.listeners.get(key)
    if (!listening) {
      listening = this.listen({ namespace: this.namespace, pod, port })
      this.listeners.set(key, listening)
    }
    return `127.0.0.1:${(await listening).port}`
  }

  /** A connected socket to the cluster's `host:port` (through its loopback listener). */
  async dial(host: string, port: number): Promise<Socket> {
    return connect(parseAddress(await this.localAddress(host, port)))
  }

  async close(): Promise<void> {
    this.closed = true
    for (const s of this.sockets) s.destroy()
    for (const ws of this.streams) ws.terminate()
    const servers = await Promise.allSettled(this.listeners.values())
    await Promise.all(
      servers.map((s) =>
        s.status === 'fulfilled'
          ? new Promise<void>((r) => s.value.server.close(() => r()))
          : Promise.resolve()
      )
    )
    this.listeners.clear()
  }

  private listen(target: ForwardTarget): Promise<{ server: Server; port: number }> {
    const server = createServer((socket) => {
      this.sockets.add(socket)
      socket.on('close', () => this.sockets.delete(socket))
      pipeToPod(this.endpoint, target, socket, this.onError, (ws) => {
        this.streams.add(ws)
        ws.on('close', () => this.streams.delete(ws))
        if (this.closed) ws.terminate()
      })
    })
    return new Promise((resolve, reject) => {
      server.once('error', reject)
      server.listen(0, '127.0.0.1', () =>
        resolve({ server, port: (server.address() as AddressInfo).port })
      )
    })
  }
}
