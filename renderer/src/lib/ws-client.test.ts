import { describe, expect, it } from 'vitest'
import type { SocketLike } from './ws-client'
import { EngineError, WsClient, backoffDelay } from './ws-client'

class FakeSocket implements SocketLike {
  readyState = 0
  sent: string[] = []
  onopen: ((ev: unknown) => void) | null = null
  onclose: ((ev: { code: number }) => void) | null = null
  onmessage: ((ev: { data: unknown }) => void) | null = null
  onerror: ((ev: unknown) => void) | null = null
  constructor(readonly url: string) {}
  send(data: string) {
    this.sent.push(data)
  }
  close() {}
  open() {
    this.readyState = 1
    this.onopen?.({})
  }
  drop(code = 1006) {
    this.readyState = 3
    this.onclose?.({ code })
  }
  receive(msg: unknown) {
    this.onmessage?.({ data: JSON.stringify(msg) })
  }
}

function setup() {
  const sockets: FakeSocket[] = []
  const timers: { fn: () => void; ms: number; cleared: boolean }[] = []
  const client = new WsClient('ws://127.0.0.1:1/ws?token=t', {
    createSocket: (url) => {
      const s = new FakeSocket(url)
      sockets.push(s)
      return s
    },
    setTimer: (fn, ms) => {
      const t = { fn, ms, cleared: false }
      timers.push(t)
      return t
    },
    clearTimer: (h) => {
      ;(h as { cleared: boolean }).cleared = true
    },
    random: () => 0.5
  })
  const states: string[] = []
  client.onState((s) => states.push(s))
  client.connect()
  return { client, sockets, timers, states }
}

describe('WsClient', () => {
  it('queues requests until open, then sends the envelope and resolves with the result', async () => {
    const { client, sockets } = setup()
    const p = client.request('topology:default', {})
    expect(sockets[0]!.sent).toEqual([])
    sockets[0]!.open()
    const frame = JSON.parse(sockets[0]!.sent[0]!)
    expect(frame).toEqual({ t: 'req', id: 1, channel: 'topology:default', payload: {} })
    sockets[0]!.receive({ t: 'res', id: 1, ok: true, result: { name: 'x' } })
    await expect(p).resolves.toEqual({ name: 'x' })
  })

  it('rejects with the engine error name and message', async () => {
    const { client, sockets } = setup()
    sockets[0]!.open()
    const p = client.request('topology:open', { path: '/nope' })
    sockets[0]!.receive({
      t: 'res',
      id: 1,
      ok: false,
      error: { name: 'ContractError', message: 'bad path' }
    })
    await expect(p).rejects.toMatchObject({ name: 'ContractError', message: 'bad path' })
    await expect(p).rejects.toBeInstanceOf(EngineError)
  })

  it('dispatches events to listeners of their channel and ignores junk frames', () => {
    const { client, sockets } = setup()
    sockets[0]!.open()
    const got: unknown[] = []
    const off = client.on('sandbox:status', (p) => got.push(p))
    sockets[0]!.onmessage?.({ data: 'not json' })
    sockets[0]!.receive({ t: 'evt', channel: 'sandbox:status', payload: { running: true } })
    sockets[0]!.receive({ t: 'evt', channel: 'other', payload: 1 })
    off()
    sockets[0]!.receive({ t: 'evt', channel: 'sandbox:status', payload: { running: false } })
    expect(got).toEqual([{ running: true }])
  })

  it('fails in-flight requests on disconnect, reconnects with backoff and resends queued ones', async () => {
    const { client, sockets, timers, states } = setup()
    sockets[0]!.open()
    const inflight = client.request('sandbox:start', {})
    sockets[0]!.drop()
    await expect(inflight).rejects.toMatchObject({ name: 'ConnectionError' })
    expect(states).toEqual(['open', 'reconnecting'])
    const queued = client.request('sandbox:status', {})
    const reconnect = timers.find((t) => t.ms === backoffDelay(0, () => 0.5))!
    reconnect.fn()
    expect(sockets).toHaveLength(2)
    sockets[1]!.open()
    expect(JSON.parse(sockets[1]!.sent[0]!).channel).toBe('sandbox:status')
    sockets[1]!.receive({ t: 'res', id: 2, ok: true, result: 'ok' })
    await expect(queued).resolves.toBe('ok')
    expect(states).toEqual(['open', 'reconnecting', 'open'])
  })

  it('stops reconnecting when the server refuses the token', () => {
    const { sockets, timers, states } = setup()
    sockets[0]!.drop(1008)
    expect(states).toEqual(['unauthorized'])
    expect(timers.filter((t) => t.ms < 60_000)).toHaveLength(0)
  })

  it('times out requests that never get an answer', async () => {
    const { client, timers } = setup()
    const p = client.request('app:info', {})
    timers.find((t) => t.ms === 120_000)!.fn()
    await expect(p).rejects.toMatchObject({ name: 'TimeoutError' })
  })
})

describe('backoffDelay', () => {
  it('doubles from 250 ms up to 5 s with ±25% jitter', () => {
    expect(backoffDelay(0, () => 0.5)).toBe(250)
    expect(backoffDelay(1, () => 0.5)).toBe(500)
    expect(backoffDelay(10, () => 0.5)).toBe(5000)
    expect(backoffDelay(0, () => 0)).toBe(188)
    expect(backoffDelay(0, () => 1)).toBe(313)
  })
})
