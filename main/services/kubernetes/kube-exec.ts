import type { KubeEndpoint } from './kube-http'
import {
  CHANNEL_PROTOCOL,
  openPodSocket,
  podStreamUrl,
  readRefusal,
  STATUS,
  STDERR,
  STDOUT
} from './kube-socket'

export interface ExecTarget {
  namespace: string
  pod: string
  container: string
}

/** What a command run in a container printed, and how it ended. */
export interface ExecResult {
  /** 0 on Success; the container runtime's exit code otherwise. */
  code: number
  stdout: string
  stderr: string
}

interface ExecStatus {
  status?: string
  message?: string
  details?: { causes?: { reason?: string; message?: string }[] }
}

/** The exit code a kubelet's final Status carries: `ExitCode` in its causes, else 1 on Failure. */
export function exitCodeOfStatus(status: ExecStatus): number {
  if (status.status === 'Success') return 0
  const cause = status.details?.causes?.find((c) => c.reason === 'ExitCode')
  const code = Number(cause?.message)
  return Number.isInteger(code) ? code : 1
}

/**
 * Runs a command in a pod's container over the API server's exec stream (no stdin, no TTY), the
 * path `kubectl exec` takes: through the API server and kubelet, so a NetworkChaos cannot cut it.
 * Rejects when the stream is refused, cut before its Status, or takes longer than `timeoutMs`.
 */
export async function execInPod(
  endpoint: KubeEndpoint,
  target: ExecTarget,
  command: readonly string[],
  timeoutMs = 10_000
): Promise<ExecResult> {
  const where = `pod ${target.pod} in ${target.namespace}`
  const query = new URLSearchParams({ container: target.container, stdout: 'true', stderr: 'true' })
  for (const part of command) query.append('command', part)
  const ws = await openPodSocket(endpoint, podStreamUrl(endpoint.server, target, 'exec', query), [
    CHANNEL_PROTOCOL
  ])
  const what = `\`${command.join(' ')}\` in ${where}`
  return new Promise<ExecResult>((resolve, reject) => {
    const out: Buffer[] = []
    const err: Buffer[] = []
    let status: ExecStatus | undefined
    let settled = false
    const settle = (fn: () => void) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      fn()
    }
    const timer = setTimeout(() => {
      ws.terminate()
      settle(() => reject(new Error(`${what}: no answer within ${timeoutMs} ms`)))
    }, timeoutMs)
    ws.on('message', (data: Buffer) => {
      if (data[0] === STDOUT) out.push(data.subarray(1))
      else if (data[0] === STDERR) err.push(data.subarray(1))
      else if (data[0] === STATUS) {
        try {
          status = JSON.parse(data.subarray(1).toString('utf8')) as ExecStatus
        } catch {
          status = { status: 'Failure', message: 'unreadable status' }
        }
      }
    })
    ws.on('unexpected-response', (_req, res) =>
      readRefusal(res, 'exec', where, (message) => {
        ws.terminate()
        settle(() => reject(new Error(`${endpoint.server}: ${message}`)))
      })
    )
    ws.on('error', (e) =>
      settle(() => reject(new Error(`${endpoint.server}: cannot exec ${what}: ${e.message}`)))
    )
    ws.on('close', () =>
      settle(() => {
        if (!status) {
          reject(new Error(`${what}: the stream ended before the command's status`))
          return
        }
        resolve({
          code: exitCodeOfStatus(status),
          stdout: Buffer.concat(out).toString('utf8'),
          stderr: Buffer.concat(err).toString('utf8') || (status.message ?? '')
        })
      })
    )
  })
}
