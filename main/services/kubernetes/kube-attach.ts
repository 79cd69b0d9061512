import { PassThrough, Writable } from 'node:stream'
import { WebSocket } from 'ws'
import type { WorkerChannel } from '../workers/worker-channel'
import type { KubeEndpoint } from './kube-http'
import {
  CHANNEL_PROTOCOL,
  openPodSocket,
  podStreamUrl,
  readRefusal,
  STDERR,
  STDIN,
  STDOUT
} from './kube-socket'

/** How long ending stdin waits for the worker to end the stream itself. */
const STDIN_CLOSE_GRACE_MS = 2000

export interface AttachTarget {
  namespace: string
  pod: string
  container: string
  /** What ends the worker when the engine kills it: deleting its pod (the stream alone cannot). */
  kill?: () => void
  /** The container's exit code once the stream has ended (attach itself never says). */
  exitCode?: ContainerExit
}

type ExitListener = (code: number | null, signal: NodeJS.Signals | null) => void

function openAttach(endpoint: KubeEndpoint, target: AttachTarget): Promise<WebSocket> {
  const query = new URLSearchParams({
    container: target.container,
    stdin: 'true',
    stdout: 'true',
    stderr: 'true'
  })
  return openPodSocket(endpoint, podStreamUrl(endpoint.server, target, 'attach', query), [
    CHANNEL_PROTOCOL
  ])
}

/** Frames stdin writes as channel 0; ending it closes the stream after a grace period. */
function stdinOf(socket: Promise<WebSocket>, where: string): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      void socket.then((ws) => {
        const frame = Buffer.concat([Buffer.from([STDIN]), chunk])
        if (ws.readyState === WebSocket.OPEN) return ws.send(frame, done)
        if (ws.readyState !== WebSocket.CONNECTING)
          return done(new Error(`the attach stream to ${where} is closed`))
        const opened = () => (ws.off('close', closed), ws.send(frame, done))
        const closed = () => (
          ws.off('open', opened),
          done(new Error(`the attach stream to ${where} never opened`))
        )
        ws.once('open', opened)
        ws.once('close', closed)
      }, done)
    },
    // v4 has no stdin-close frame: closing the stream is the end of input (a `stdinOnce`
    // container sees EOF). A worker told to shut down exits by itself first; give it the time to
    // end the stream before it is closed under it.
    final(done) {
      void socket.then(
        (ws) => {
          if (ws.readyState === WebSocket.CLOSED) return done()
          const timer = setTimeout(() => ws.close(), STDIN_CLOSE_GRACE_MS)
          ws.once('close', () => clearTimeout(timer))
          done()
        },
        () => done()
      )
    }
  })
}

/**
 * A room worker in a pod, reached over the API server's attach stream: a path through the API
 * server and kubelet, not the pod network, so a NetworkChaos between rooms cannot cut it.
 */
export function attachWorker(endpoint: KubeEndpoint, target: AttachTarget): WorkerChannel {
  const where = `pod ${target.pod} in ${target.namespace}`
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  const exitListeners: ExitListener[] = []
  const errorListeners: ((e: Error) => void)[] = []
  let opened = false
  let ended = false
  let killed = false
  const end = async (): Promise<void> => {
    if (ended) return
    ended = true
    stdout.end()
    stderr.end()
    // A killed worker's pod is deleted: report it as the kill it is.
    const code = killed ? null : ((await target.exitCode?.read().catch(() => null)) ?? null)
    for (const l of exitListeners) l(code, killed ? 'SIGKILL' : null)
  }
  const fail = (message: string) => {
    if (killed) return
    for (const l of errorListeners) l(new Error(`${endpoint.server}: ${message}`))
  }
  const socket = openAttach(endpoint, target)
  void socket.then(
    (ws) => {
      ws.on('open', () => {
        opened = true
        void target.exitCode?.arm().catch(() => undefined)
      })
      ws.on('message', (data: Buffer) => {
        if (data[0] === STDOUT) stdout.write(data.subarray(1))
        else if (data[0] === STDERR) stderr.write(data.subarray(1))
      })
      let refused = false
      ws.on('unexpected-response', (_req, res) =>
        readRefusal(res, 'attach', where, (message) => {
          refused = true
          fail(message)
          // Closes the request and moves the socket to CLOSED, so a queued stdin write fails.
          ws.terminate()
        })
      )
      ws.on('error', (e) => {
        if (!opened && !refused) fail(`cannot attach to ${where}: ${e.message}`)
        void end()
      })
      ws.on('close', () => void end())
    },
    (e: Error) => {
      fail(`cannot attach to ${where}: ${e.message}`)
      void end()
    }
  )
  return {
    stdin: stdinOf(socket, where),
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

/** A container's exit, read from its pod's status around one attach. */
export interface ContainerExit {
  /** Called when the stream opens: remembers the container's restart count. */
  arm(): Promise<void>
  /** After the stream ended: the exit code of this run of the container, or null. */
  read(): Promise<number | null>
}

interface ContainerStatus {
  name: string
  restartCount?: number
  state?: { terminated?: { exitCode?: number } }
  lastState?: { terminated?: { exitCode?: number } }
}

/**
 * A container's exit code from its pod's status: `state.terminated` while it has not been
 * restarted, else `lastState.terminated` only if the restart count moved since the attach (an
 * older `lastState` is an earlier run's). Retried a few times, as the kubelet reports a
 * container's end a moment after its stream closed.
 */
export function exitCodeFromPodStatus(
  get: () => Promise<{ status?: Record<string, unknown> } | null>,
  container: string,
  retry = { attempts: 10, delayMs: 300 }
): ContainerExit {
  let restartsAtAttach: number | undefined
  const status = async (): Promise<ContainerStatus | undefined> => {
    const pod = await get()
    const statuses = (pod?.status?.containerStatuses ?? []) as ContainerStatus[]
    return statuses.find((s) => s.name === container)
  }
  return {
    arm: async () => {
      restartsAtAttach = (await status())?.restartCount ?? 0
    },
    read: async () => {
      for (let i = 0; i < retry.attempts; i++) {
        const c = await status()
        const restarted = (c?.restartCount ?? 0) > (restartsAtAttach ?? 0)
        const code =
          c?.state?.terminated?.exitCode ??
          (restarted ? c?.lastState?.terminated?.exitCode : undefined)
        if (code !== undefined) return code
        await new Promise((r) => setTimeout(r, retry.delayMs))
      }
      return null
    }
  }
}
