import type { IncomingMessage } from 'node:http'
import { WebSocket } from 'ws'
import type { KubeEndpoint } from './kube-http'

/** The channel-numbered framing of `v4.channel.k8s.io`: each message's first byte says the stream. */
export const CHANNEL_PROTOCOL = 'v4.channel.k8s.io'
export const STDIN = 0
export const STDOUT = 1
export const STDERR = 2
/** A metav1.Status as JSON. A kubelet's attach ends with Success whatever the process did. */
export const STATUS = 3

/** The pod subresources DR Studio opens as streams, and the permission each needs. */
export type PodStream = 'attach' | 'exec' | 'portforward'

/** `ws(s)://…/pods/P/<stream>?<query>`. */
export function podStreamUrl(
  server: string,
  target: { namespace: string; pod: string },
  stream: PodStream,
  query: URLSearchParams
): URL {
  const url = new URL(
    `/api/v1/namespaces/${encodeURIComponent(target.namespace)}/pods/${encodeURIComponent(target.pod)}/${stream}?${query.toString()}`,
    server
  )
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:'
  return url
}

/** Opens a pod stream with the context's credentials (the token asked for afresh each time). */
export async function openPodSocket(
  endpoint: KubeEndpoint,
  url: URL,
  protocols: string[]
): Promise<WebSocket> {
  const token = typeof endpoint.token === 'function' ? await endpoint.token() : endpoint.token
  return new WebSocket(url, protocols, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
    ...(endpoint.ca ? { ca: endpoint.ca } : {}),
    ...(endpoint.cert ? { cert: endpoint.cert } : {}),
    ...(endpoint.key ? { key: endpoint.key } : {}),
    rejectUnauthorized: !endpoint.insecureSkipTlsVerify
  })
}

/**
 * The API server's refusal of a stream, from its Status body, with the permission a 403 usually
 * means: `cannot <stream> pod P in N: HTTP 403: <message> (… needs the create verb on pods/<stream>)`.
 */
export function readRefusal(
  res: IncomingMessage,
  stream: PodStream,
  where: string,
  done: (message: string) => void
): void {
  const chunks: Buffer[] = []
  const verb = stream === 'portforward' ? 'forward a port of' : `${stream} to`
  const head = `cannot ${verb} ${where}: HTTP ${res.statusCode}`
  res.on('data', (c: Buffer) => chunks.push(c))
  res.on('end', () => {
    let message = ''
    try {
      message =
        (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { message?: string }).message ?? ''
    } catch {
      message = Buffer.concat(chunks).toString('utf8').slice(0, 200).trim()
    }
    const hint = res.statusCode === 403 ? ` (this needs the create verb on pods/${stream})` : ''
    done(`${head}${message ? `: ${message}` : ''}${hint}`)
  })
  res.on('error', () => done(head))
}
