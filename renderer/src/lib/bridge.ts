import type { z } from 'zod'
import type {
  EventChannel,
  EventPayload,
  RequestChannel,
  RequestInput,
  RequestOutput,
  ShellRequestChannel,
  shellRequests
} from '../../../common/contract'
import type { DrStudioBridge } from '../../../preload/bridge-types'
import type { ConnectionState, SocketLike } from './ws-client'
import { WsClient } from './ws-client'

/** What the Electron preload exposes on `window.drstudio`. */
export type PreloadBridge = DrStudioBridge

declare global {
  interface Window {
    drstudio?: PreloadBridge
  }
}

export type TransportKind = 'electron' | 'browser' | 'offline'

/** The untyped transport underneath the typed `invoke`/`on`; the bench swaps in a fake one. */
export interface RawBridge {
  readonly transport: TransportKind
  readonly connection: ConnectionState
  invoke(channel: string, payload: unknown): Promise<unknown>
  on(channel: string, listener: (payload: unknown) => void): () => void
  onConnection(listener: (s: ConnectionState) => void): () => void
}

const TOKEN_KEY = 'drstudio.token'

/**
 * Reads the browser shell's access token from `?token=`, keeps it for reloads and removes it
 * from the visible URL (so it is not bookmarked, shared or shown in screenshots).
 */
export function takeToken(
  loc: Pick<Location, 'search' | 'pathname' | 'hash'>,
  storage: Pick<Storage, 'getItem' | 'setItem'> | null,
  hist: Pick<History, 'replaceState' | 'state'> | null
): string | null {
  const params = new URLSearchParams(loc.search)
  const fromUrl = params.get('token')
  if (fromUrl) {
    try {
      storage?.setItem(TOKEN_KEY, fromUrl)
    } catch {
      // Storage can be disabled; the token then only lives for this page.
    }
    params.delete('token')
    const q = params.toString()
    hist?.replaceState(hist.state, '', `${loc.pathname}${q ? `?${q}` : ''}${loc.hash}`)
    return fromUrl
  }
  try {
    return storage?.getItem(TOKEN_KEY) ?? null
  } catch {
    return null
  }
}

/** The WebSocket address of the engine that served this page. */
export function wsUrl(loc: Pick<Location, 'protocol' | 'host'>, token: string | null): string {
  const scheme = loc.protocol === 'https:' ? 'wss' : 'ws'
  return `${scheme}://${loc.host}/ws${token ? `?token=${encodeURIComponent(token)}` : ''}`
}

/** Electron prefixes main-process errors with "Error invoking remote method"; users need the cause. */
export function cleanError(err: unknown): Error {
  if (!(err instanceof Error)) return new Error(String(err))
  const m = /^Error invoking remote method '[^']+': (?:(\w*Error): )?(.*)$/s.exec(err.message)
  if (!m) return err
  const e = new Error(m[2])
  e.name = m[1] ?? 'Error'
  return e
}

function electronBridge(api: PreloadBridge): RawBridge {
  return {
    transport: 'electron',
    connection: 'open',
    invoke: (channel, payload) =>
      api.invoke(channel, payload).catch((e: unknown) => {
        throw cleanError(e)
      }),
    on: (channel, listener) => api.on(channel, listener),
    onConnection: () => () => {}
  }
}

function browserBridge(): RawBridge {
  const token = takeToken(window.location, window.sessionStorage, window.history)
  const client = new WsClient(wsUrl(window.location, token), {
    createSocket: (url) => new WebSocket(url) as unknown as SocketLike
  })
  client.connect()
  return {
    transport: 'browser',
    get connection() {
      return client.state
    },
    invoke: (channel, payload) => client.request(channel, payload),
    on: (channel, listener) => client.on(channel, listener),
    onConnection: (listener) => client.onState(listener)
  }
}

let current: RawBridge | null = null

/** Picks the transport once: the Electron preload when present, otherwise the browser shell. */
export function initBridge(custom?: RawBridge): RawBridge {
  if (custom) current = custom
  current ??= window.drstudio ? electronBridge(window.drstudio) : browserBridge()
  return current
}

function raw(): RawBridge {
  return current ?? initBridge()
}

/** Typed request to the engine; rejects with the engine's error (name and message kept). */
export function invoke<C extends RequestChannel>(
  channel: C,
  input: RequestInput<C>
): Promise<RequestOutput<C>> {
  return raw().invoke(channel, input) as Promise<RequestOutput<C>>
}

/**
 * Typed request to the Electron main process itself (not the engine); only the Electron transport
 * has one, and only the Electron main process sends the events these answer.
 */
export function invokeShell<C extends ShellRequestChannel>(
  channel: C,
  input: z.input<(typeof shellRequests)[C]['input']>
): Promise<z.output<(typeof shellRequests)[C]['output']>> {
  if (raw().transport !== 'electron') {
    return Promise.reject(new Error(`"${channel}" exists only in the Electron shell`))
  }
  return raw().invoke(channel, input) as Promise<z.output<(typeof shellRequests)[C]['output']>>
}

/** Typed engine event subscription; returns the unsubscribe function. */
export function on<C extends EventChannel>(
  channel: C,
  listener: (payload: EventPayload<C>) => void
): () => void {
  return raw().on(channel, listener as (payload: unknown) => void)
}

/**
 * Subscribes to a channel the contract does not list yet (e.g. live client choices); the payload
 * is untyped, so the store action receiving it must check its shape.
 */
export function onUntyped(channel: string, listener: (payload: unknown) => void): () => void {
  return raw().on(channel, listener)
}

export function onConnection(listener: (s: ConnectionState) => void): () => void {
  return raw().onConnection(listener)
}

/** The transport in use, for the status bar. */
export const bridge = {
  get transport(): TransportKind {
    return raw().transport
  },
  get connection(): ConnectionState {
    return raw().connection
  }
}
