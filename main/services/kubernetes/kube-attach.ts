import { PassThrough, Writable } from 'node:stream'
import { WebSocket } from 'ws'
import type { WorkerChannel } from '../workers/worker-channel'
import type { KubeEndpoint } from './kube-http'

/** The channel-numbered framing of `v4.channel.k8s.io`: each message's first byte says the stream. */
export const ATTACH_PROTOCOL = 'v4.channel.k8s.io'
export const STDIN = 0
export const STDOUT = 1
export const STDERR = 2
/** A metav1.Status as JSON: Success, or Failure with the exit code among its causes. */
export const STATUS = 3
/** How long ending stdin waits for the worker to end the stream itself. */
const STDIN_CLOSE_GRACE_MS = 2000

/** The exit code a channel-3 Status carries: 0 on Success, its ExitCode cause, else null. */
export function exitCodeOf(status: string): number | null {
  try {
    const s = JSON.parse(status) as {
      status?: string
      details?: { causes?: { reason?: string; message?: string }[] }
    }
    if (s.status === 'Success') return 0
    const cause = s.details?.causes?.find((c) => c.reason === 'ExitCode')
    return cause?.message !== undefined && /^\d+$/.test(cause.message)
      ? Number(cause.message)
      : null
  } catch {
    return null
  }
}

export interface AttachTarget {
  namespace: string
  pod: string
  container: string
  /** What ends the worker when the engine kills it: deleting its pod (the stream alone cannot). */
  kill?: () => void
}

/**
 * A room worker in a pod, reached over the API server's attach stream: a path through the API
 * server and kubelet, not the pod network, so a NetworkChaos between rooms cannot cut it.
 */
export function attachWorker(endpoint: KubeEndpoint, target: AttachTarget): WorkerChannel {
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  const exitListeners: ((code: number | null, signal: NodeJS.Signals | null) => void)[] = []
  const errorListeners: ((e: Error) => void)[] = []
  let status: string | undefined
  let opened = false
  let ended = false
  let killed = false
  const url = new URL(
    `/api/v1/namespaces/${encodeURIComponent(target.namespace)}/pods/${encodeURIComponent(target.pod)}/attach?container=${encodeURIComponent(target.container)}&stdin=true&stdout=true&stderr=true`,
    endpoint.server
  )
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:'
  const socket = (async () => {
    const token = typeof endpoint.token === 'function' ? await endpoint.token() : endpoint.token
    return new WebSocket(url, [ATTACH_PROTOCOL], {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      ...(endpoint.ca ? { ca: endpoint.ca } : {}),
      ...(endpoint.cert ? { cert: endpoint.cert } : {}),
      ...(endpoint.key ? { key: endpoint.key } : {}),
      rejectUnauthorized: !endpoint.insecureSkipTlsVerify
    })
  })()
  const end = (code: number | null) => {
    if (ended) return
    ended = true
    stdout.end()
    stderr.end()
    // A killed worker's pod is deleted: report it as the kill it is.
    for (const l of exitListeners) l(code, killed ? 'SIGKILL' : null)
  }
  const fail = (e: Error) => {
    for (const l of errorListeners) l(e)
  }
  void socket.then(
    (ws) => {
      ws.on('open', () => (opened = true))
      ws.on('message', (data: Buffer) => {
        const channel = data[0]
        const body = data.subarray(1)
        if (channel === STDOUT) stdout.write(body)
        else if (channel === STDERR) stderr.write(body)
        else if (channel === STATUS) status = (status ?? '') + body.toString('utf8')
      })
      ws.on('unexpected-response', (_req, res) => {
        fail(
          new Error(
            `${endpoint.server}: cannot attach to pod ${target.pod} in ${target.namespace}: HTTP ${res.statusCode}`
          )
        )
        end(null)
      })
      ws.on('error', (e) => {
        if (!opened && !killed)
          fail(new Error(`${endpoint.server}: cannot attach to pod ${target.pod}: ${e.message}`))
        end(null)
      })
      ws.on('close', () => end(status === undefined ? null : exitCodeOf(status)))
    },
    (e: Error) => {
      fail(e)
      end(null)
    }
  )
  const stdin = new Writable({
    write(chunk: Buffer, _enc, done) {
      void socket.then((ws) => {
        const frame = Buffer.concat([Buffer.from([STDIN]), chunk])
        if (ws.readyState === WebSocket.OPEN) ws.send(frame, done)
        else if (ws.readyState === WebSocket.CONNECTING) ws.once('open', () => ws.send(frame, done))
        else done(new Error(`attach stream to ${target.pod} is closed`))
      }, done)
    },
    // v4 has no stdin-close frame: closing the stream is the end of input (a `stdinOnce`
    // container sees EOF). A worker told to shut down exits by itself first; give it the time to
    // send its exit Status before the stream is closed under it.
    final(done) {
      void socket.then(
        (ws) => {
          const timer = setTimeout(() => ws.close(), STDIN_CLOSE_GRACE_MS)
          ws.once('close', () => clearTimeout(timer))
          done()
        },
        () => done()
      )
    }
  })
  return {
    stdin,
    stdout,
    stderr,
    pid: undefined,
    kill: () => {
      killed = true
      target.kill?.()
      void socket.then(
        (ws) => ws.terminate(),
        () => undefined
      )
    },
    onExit: (l) => void exitListeners.push(l),
    onStartError: (l) => void errorListeners.push(l)
  }
}
