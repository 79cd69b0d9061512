import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { Engine } from '../services/engine/engine'
import { findAppPaths } from '../services/app-paths'
import { openDatabase, Recorder } from '../services/ledger'
import type { RunningServer } from './server'
import { startBrowserShell } from './server'

let dir: string
let server: RunningServer
let engine: Engine

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'drstudio-serve-'))
  const rendererDir = join(dir, 'renderer')
  mkdirSync(rendererDir)
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>t</title>')
  const paths = findAppPaths()
  engine = new Engine({
    shell: 'browser',
    version: '0.0.0-test',
    dataDir: dir,
    resourcesDir: paths.resourcesDir,
    recorder: new Recorder(openDatabase(join(dir, 'db.sqlite')))
  })
  server = await startBrowserShell({ engine, rendererDir, port: 0 })
})

afterAll(async () => {
  await server.close()
  await engine.dispose()
  rmSync(dir, { recursive: true, force: true })
})

function connect(url: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers })
    ws.once('open', () => resolve(ws))
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)))
    ws.once('error', reject)
  })
}

function call(
  ws: WebSocket,
  channel: string,
  payload: unknown
): Promise<{ ok: boolean; result?: unknown; error?: { message: string } }> {
  const id = Math.floor(Math.random() * 1e9)
  return new Promise((resolve) => {
    ws.on('message', (data) => {
      const msg = JSON.parse(data.toString())
      if (msg.t === 'res' && msg.id === id) resolve(msg)
    })
    ws.send(JSON.stringify({ t: 'req', id, channel, payload }))
  })
}

describe('browser shell', () => {
  it('binds loopback only and prints a tokened URL', () => {
    expect(server.url).toMatch(
      new RegExp(`^http://127\\.0\\.0\\.1:${server.port}/\\?token=[A-Za-z0-9_-]{20,}$`)
    )
  })

  it('serves the page with the token and a strict CSP, refuses it without', async () => {
    const ok = await fetch(server.url)
    expect(ok.status).toBe(200)
    expect(ok.headers.get('content-security-policy')).toContain("script-src 'self'")
    expect((await fetch(`http://127.0.0.1:${server.port}/`)).status).toBe(401)
    expect((await fetch(`http://127.0.0.1:${server.port}/?token=wrong`)).status).toBe(401)
  })

  it('refuses WebSocket connections without token, with a wrong token or a foreign origin', async () => {
    const ws = `ws://127.0.0.1:${server.port}/ws`
    await expect(connect(ws)).rejects.toThrow(/HTTP 401/)
    await expect(connect(`${ws}?token=wrong`)).rejects.toThrow(/HTTP 401/)
    await expect(
      connect(`${ws}?token=${server.token}`, { Origin: 'http://evil.example' })
    ).rejects.toThrow(/HTTP 403/)
  })

  it('carries the contract: requests answered, bad payloads refused with a clear error', async () => {
    const ws = await connect(`ws://127.0.0.1:${server.port}/ws?token=${server.token}`, {
      Origin: `http://127.0.0.1:${server.port}`
    })
    const info = await call(ws, 'app:info', {})
    expect(info).toMatchObject({ ok: true, result: { shell: 'browser', version: '0.0.0-test' } })
    const topo = await call(ws, 'topology:default', {})
    expect(topo).toMatchObject({ ok: true, result: { name: 'two-rooms', problems: [] } })
    const bad = await call(ws, 'topology:open', { path: 7 })
    expect(bad.ok).toBe(false)
    expect(bad.error?.message).toMatch(/invalid payload for "topology:open"/)
    const unknown = await call(ws, 'shell:exec', {})
    expect(unknown.error?.message).toMatch(/unknown request channel/)
    ws.close()
  })
})
