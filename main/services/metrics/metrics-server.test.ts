import { request } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serveMetrics } from './metrics-endpoint'
import { MetricsServer, parseMetricsAddress } from './metrics-server'
import { RunMetrics } from './run-metrics'

/** A raw GET, so the Host header can be set to anything. */
function get(
  url: string,
  headers: Record<string, string>
): Promise<{ status: number; type: string; body: string }> {
  return new Promise((done, fail) => {
    const req = request(url, { headers }, (res) => {
      let body = ''
      res.on('data', (c: Buffer) => (body += c.toString()))
      res.on('end', () =>
        done({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body })
      )
    })
    req.on('error', fail)
    req.end()
  })
}

let server: MetricsServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

describe('parseMetricsAddress', () => {
  it('takes a loopback address and port, and names the fix for anything else', () => {
    expect(parseMetricsAddress('127.0.0.1:9464')).toEqual({ host: '127.0.0.1', port: 9464 })
    expect(parseMetricsAddress('localhost:0')).toEqual({ host: '127.0.0.1', port: 0 })
    expect(() => parseMetricsAddress('0.0.0.0:9464')).toThrow(
      /--metrics 0.0.0.0:9464: give a loopback address and port, e.g. --metrics 127.0.0.1:9464/
    )
    expect(() => parseMetricsAddress('9464')).toThrow(/loopback/)
    expect(() => parseMetricsAddress('127.0.0.1:70000')).toThrow(/0-65535/)
  })
})

describe('MetricsServer', () => {
  it('serves /metrics to a loopback Host with the bearer token', async () => {
    server = await MetricsServer.start({ host: '127.0.0.1', port: 0 }, new RunMetrics(), 'secret')
    const auth = { authorization: 'Bearer secret' }
    const ok = await get(server.url, auth)
    expect(ok).toMatchObject({
      status: 200,
      type: expect.stringMatching(/^text\/plain; version=0\.0\.4/)
    })
    expect(ok.body).toContain('# TYPE drstudio_sends_total counter')
    // The text format whatever the scraper prefers, its counter names intact after any scrape.
    const again = await get(server.url, { ...auth, accept: 'application/openmetrics-text' })
    expect(again.type).toMatch(/^text\/plain; version=0\.0\.4/)
    expect(again.body).toContain('# TYPE drstudio_sends_total counter')
    expect((await get(server.url, {})).status).toBe(401)
    expect((await get(server.url, { authorization: 'Bearer wrong' })).status).toBe(401)
    // A page that rebinds its own name to 127.0.0.1 sends its own Host.
    expect((await get(server.url, { ...auth, host: 'evil.example:80' })).status).toBe(421)
    expect((await get(server.url.replace('/metrics', '/'), auth)).status).toBe(404)
  })

  it('says which port is in use', async () => {
    server = await MetricsServer.start({ host: '127.0.0.1', port: 0 }, new RunMetrics())
    const port = Number(new URL(server.url).port)
    await expect(
      MetricsServer.start({ host: '127.0.0.1', port }, new RunMetrics())
    ).rejects.toThrow(
      `--metrics 127.0.0.1:${port}: the port is in use; pick another (or 0 for any free port)`
    )
  })
})

describe('serveMetrics', () => {
  it('writes the per-launch token owner-only where it says, and removes it when closed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'drstudio-metrics-'))
    let said = ''
    const endpoint = await serveMetrics('127.0.0.1:0', dir, { write: (t: string) => (said += t) })
    try {
      expect(said).toBe(`metrics: ${endpoint.url} (bearer token in ${endpoint.tokenFile})\n`)
      expect(statSync(endpoint.tokenFile).mode & 0o777).toBe(0o600)
      const token = readFileSync(endpoint.tokenFile, 'utf8')
      expect((await get(endpoint.url, { authorization: `Bearer ${token}` })).status).toBe(200)
    } finally {
      await endpoint.close()
    }
    expect(existsSync(endpoint.tokenFile)).toBe(false)
    await expect(serveMetrics('0.0.0.0:1', dir, { write: () => true })).rejects.toThrow(/loopback/)
    rmSync(dir, { recursive: true, force: true })
  })
})
