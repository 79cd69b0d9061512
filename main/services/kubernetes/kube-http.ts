import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { KubeApi, KubeObject, KubeRef } from './kube-api'
import { describeRef, FIELD_MANAGER, KubeApiError, refOf, resourcePath } from './kube-api'

/** How to reach one API server, as a kubeconfig context resolves to. */
export interface KubeEndpoint {
  /** e.g. https://10.0.0.1:6443 */
  server: string
  ca?: Buffer
  cert?: Buffer
  key?: Buffer
  /** Bearer token; a function when it comes from an exec plugin and may be renewed. */
  token?: string | (() => Promise<string>)
  insecureSkipTlsVerify?: boolean
}

interface Answer {
  status: number
  body: string
}

/** The Kubernetes API over HTTP(S), the calls `KubeApi` names and nothing else. */
export class KubeHttp implements KubeApi {
  constructor(
    private readonly endpoint: KubeEndpoint,
    private readonly timeoutMs = 15_000
  ) {}

  async create(object: KubeObject): Promise<KubeObject> {
    const ref = refOf(object)
    const { name: _name, ...collection } = ref
    const answer = await this.call(
      'POST',
      `${resourcePath(collection)}?fieldManager=${FIELD_MANAGER}`,
      { contentType: 'application/json', body: JSON.stringify(object) }
    )
    return this.parse(answer, `create ${describeRef(ref)}`) as KubeObject
  }

  async get(ref: KubeRef): Promise<KubeObject | null> {
    const answer = await this.call('GET', resourcePath(ref))
    if (answer.status === 404) return null
    return this.parse(answer, `read ${describeRef(ref)}`) as KubeObject
  }

  async list(
    kind: Pick<KubeRef, 'apiVersion' | 'kind'>,
    namespace: string | null,
    labelSelector: string
  ): Promise<KubeObject[]> {
    const path = `${resourcePath({ ...kind, namespace })}?labelSelector=${encodeURIComponent(labelSelector)}`
    const answer = await this.call('GET', path)
    const list = this.parse(answer, `list ${kind.kind} (${labelSelector})`) as {
      items?: Omit<KubeObject, 'apiVersion' | 'kind'>[]
    }
    // List items carry no apiVersion/kind of their own.
    return (list.items ?? []).map((item) => ({
      ...item,
      apiVersion: kind.apiVersion,
      kind: kind.kind
    }))
  }

  async remove(ref: KubeRef, options: { gracePeriodSeconds?: number } = {}): Promise<void> {
    const answer = await this.call('DELETE', resourcePath(ref), {
      contentType: 'application/json',
      body: JSON.stringify({
        kind: 'DeleteOptions',
        apiVersion: 'v1',
        propagationPolicy: 'Background',
        ...options
      })
    })
    if (answer.status === 404) return
    this.parse(answer, `delete ${describeRef(ref)}`)
  }

  async scale(ref: KubeRef, replicas: number): Promise<void> {
    const answer = await this.call(
      'PATCH',
      `${resourcePath(ref)}/scale?fieldManager=${FIELD_MANAGER}`,
      {
        contentType: 'application/merge-patch+json',
        body: JSON.stringify({ spec: { replicas } })
      }
    )
    this.parse(answer, `scale ${describeRef(ref)} to ${replicas}`)
  }

  private parse(answer: Answer, what: string): unknown {
    let body: unknown
    try {
      body = JSON.parse(answer.body)
    } catch {
      body = undefined
    }
    if (answer.status >= 200 && answer.status < 300 && body !== undefined) return body
    const message =
      (body as { message?: string } | undefined)?.message ?? answer.body.slice(0, 200).trim()
    throw new KubeApiError(
      answer.status,
      `${this.endpoint.server}: could not ${what}: HTTP ${answer.status}${message ? `: ${message}` : ''}`
    )
  }

  private async call(
    method: string,
    path: string,
    payload?: { contentType: string; body: string }
  ): Promise<Answer> {
    const url = new URL(path, this.endpoint.server)
    const token =
      typeof this.endpoint.token === 'function' ? await this.endpoint.token() : this.endpoint.token
    const headers: Record<string, string> = { accept: 'application/json' }
    if (token) headers.authorization = `Bearer ${token}`
    if (payload) {
      headers['content-type'] = payload.contentType
      headers['content-length'] = String(Buffer.byteLength(payload.body))
    }
    const tls = url.protocol === 'https:'
    const send = tls ? httpsRequest : httpRequest
    return new Promise<Answer>((resolve, reject) => {
      const req = send(
        url,
        {
          method,
          headers,
          agent: false,
          timeout: this.timeoutMs,
          ...(tls
            ? {
                ...(this.endpoint.ca ? { ca: this.endpoint.ca } : {}),
                ...(this.endpoint.cert ? { cert: this.endpoint.cert } : {}),
                ...(this.endpoint.key ? { key: this.endpoint.key } : {}),
                rejectUnauthorized: !this.endpoint.insecureSkipTlsVerify
              }
            : {})
        },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') })
          )
          res.on('error', reject)
        }
      )
      req.on('timeout', () =>
        req.destroy(
          new Error(
            `${url.origin}: ${method} ${url.pathname} had no answer in ${this.timeoutMs} ms`
          )
        )
      )
      req.on('error', (e) =>
        reject(new Error(`${url.origin}: cannot reach the Kubernetes API server (${e.message})`))
      )
      if (payload) req.write(payload.body)
      req.end()
    })
  }
}
