import { Agent, request } from 'node:http'
import type { RemotingRpc, RemotingRpcOptions } from '../../remoting/remoting-rpc'
import type { LedgerPort } from '../../ledger/types'
import type { ProxyStatus } from '../../management/management-node'
import type { NameServerCandidate } from './choose-name-server'

/** Wall-clock milliseconds with sub-millisecond precision, so short RTOs are not rounded to 0/1. */
export interface Clock {
  now(): number
}

export const systemClock: Clock = { now: () => performance.timeOrigin + performance.now() }

/** The part of RemotingRpc the room-aware clients use; tests substitute fakes. */
export type RemotingPort = Pick<
  RemotingRpc,
  | 'getRouteInfoByTopic'
  | 'sendMessageV2'
  | 'pullMessage'
  | 'queryConsumerOffset'
  | 'updateConsumerOffset'
  | 'getMaxOffset'
  | 'heartbeat'
  | 'unregisterClient'
  | 'getConsumerListByGroup'
  | 'lockBatchMq'
  | 'unlockBatchMq'
  | 'endTransaction'
  | 'close'
  | 'on'
  | 'off'
>

/** A connection pool: a client core's (producers, route lookups) or one consumer's own. */
export type RemotingFactory = (options: RemotingRpcOptions) => RemotingPort

/** A room's management node, as clients are configured with it. */
export interface ManagementNodeRef {
  id: string
  room: string
  /** Base URL, e.g. http://127.0.0.1:18080. */
  url: string
}

/** `GET /v1/nameservers` of a management node. */
export interface ManagementAnswer {
  room: string
  nameServers: NameServerCandidate[]
  /** Every room's proxies as the node last probed them (absent from older nodes: []). */
  proxies?: ProxyStatus[]
  /** Controller-mode replicas of every room: where a group's master is, by its address. */
  brokers?: { id: string; room: string; address: string }[]
}

export interface ManagementPort {
  fetchNameServers(node: ManagementNodeRef, timeoutMs: number): Promise<ManagementAnswer>
}

/** Everything a producer or consumer needs from outside. */
export interface ClientDeps {
  remoting: RemotingFactory
  management: ManagementPort
  ledger: LedgerPort
  clock?: Clock
  random?: () => number
}

/** Plain HTTP, a new connection per call: for clients outside a worker (no session to keep). */
export const httpManagement: ManagementPort = {
  fetchNameServers: (node, timeoutMs) => fetchNameServers(node, timeoutMs, false)
}

/**
 * A worker's management session: one kept-alive connection per management node, so the directory's
 * refresh every second is one request rather than a TCP handshake and a request. A killed node's
 * socket is closed by its kernel, so the next call still fails at once; a request on a kept socket
 * the server closed meanwhile (ECONNRESET on a reused socket) is retried once on a new one.
 */
export function httpManagementSession(): ManagementPort & { close(): void } {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  return {
    fetchNameServers: (node, timeoutMs) =>
      fetchNameServers(node, timeoutMs, agent).catch((e: Error & { reusedSocket?: boolean }) => {
        if (!e.reusedSocket) throw e
        return fetchNameServers(node, timeoutMs, agent)
      }),
    close: () => agent.destroy()
  }
}

function fetchNameServers(
  node: ManagementNodeRef,
  timeoutMs: number,
  agent: Agent | false
): Promise<ManagementAnswer> {
  return new Promise((resolve, reject) => {
    const url = new URL('/v1/nameservers', node.url)
    const req = request(url, { method: 'GET', agent, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        if (res.statusCode !== 200) {
          reject(new Error(`${url.href} answered HTTP ${res.statusCode}`))
          return
        }
        try {
          const body = JSON.parse(
            Buffer.concat(chunks).toString('utf8')
          ) as Partial<ManagementAnswer>
          if (!Array.isArray(body.nameServers)) throw new Error('no nameServers array')
          resolve({
            room: String(body.room ?? node.room),
            nameServers: body.nameServers,
            proxies: Array.isArray(body.proxies) ? body.proxies : [],
            brokers: Array.isArray(body.brokers) ? body.brokers : []
          })
        } catch (e) {
          reject(new Error(`${url.href} returned an unreadable body: ${(e as Error).message}`))
        }
      })
      res.on('error', reject)
    })
    req.on('timeout', () =>
      req.destroy(new Error(`${url.href} did not answer within ${timeoutMs} ms`))
    )
    req.on('error', (e: Error & { code?: string; reusedSocket?: boolean }) => {
      // Only a reset of a kept socket is worth a second try (the server closed it while idle).
      if (req.reusedSocket && e.code === 'ECONNRESET') e.reusedSocket = true
      reject(e)
    })
    req.end()
  })
}

/** Resolves after `ms`, or at once when the signal aborts; for retry back-off, never for readiness. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve()
    const t = setTimeout(done, ms)
    function done(): void {
      clearTimeout(t)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done, { once: true })
  })
}
