import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Topology } from '../../common/topology/schema'
import { topologySchema } from '../../common/topology/schema'
import type { NameServersResponse, ProxyStatus } from '../../main/services/management'
import { RemotingRpc } from '../../main/services/remoting'
import { linuxProcFs, Sandbox } from '../../main/services/sandbox'

const REPO = resolve(import.meta.dirname, '../..')
const PROXIES = ['proxy-1', 'proxy-2', 'proxy-plain'] as const

function topology(): Topology {
  const file = join(REPO, 'resources/topologies/two-rooms-proxies.json')
  return topologySchema.parse(JSON.parse(readFileSync(file, 'utf8')))
}

/** Pids whose command line mentions `path`. */
function pgrep(path: string): number[] {
  const r = spawnSync('pgrep', ['-f', path], { encoding: 'utf8' })
  return r.stdout
    .split(/\s+/)
    .filter(Boolean)
    .map(Number)
    .filter((pid) => pid !== process.pid)
}

function tcpOpen(address: string): Promise<boolean> {
  const [host, port] = address.split(':')
  return new Promise((done) => {
    const s = connect({ host: host!, port: Number(port) })
    s.setTimeout(1000, () => (s.destroy(), done(false)))
    s.once('connect', () => (s.destroy(), done(true)))
    s.once('error', () => done(false))
  })
}

/** The JVM's real environment (what ProxyStartup's DynamicalExtFieldRPCHook reads). */
function environ(pid: number): Record<string, string> {
  const raw = readFileSync(`/proc/${pid}/environ`, 'utf8')
  return Object.fromEntries(
    raw
      .split('\0')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])
  )
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Math.round(Number(m[1]) / 1024) : NaN
}

describe('cluster-mode proxies on real RocketMQ 5.3.3 (two-rooms-proxies)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'drstudio-it-proxy-'))
  const root = join(dataDir, 'sandbox')
  const client = new RemotingRpc({ connectTimeoutMs: 3000, requestTimeoutMs: 5000 })
  const sb = new Sandbox({ dataDir, repoRoot: REPO })
  const t = topology()
  const probeIntervalMs = t.settings.probeIntervalMs
  const bootMs: Record<string, number> = {}
  let runDir = ''
  let mgmtUrl = ''
  /** proxy id → host:remotingPort, from the management node's own config. */
  const remoting: Record<string, string> = {}

  const proxiesOf = async (): Promise<ProxyStatus[]> => {
    const res = await fetch(`${mgmtUrl}/v1/nameservers`, { signal: AbortSignal.timeout(3000) })
    return ((await res.json()) as NameServersResponse).proxies
  }
  const proxy = async (id: string): Promise<ProxyStatus> =>
    (await proxiesOf()).find((p) => p.id === id)!

  /** Broker names a route lists (through a proxy they are the brokers it will send to). */
  const brokerNames = async (address: string): Promise<string[]> => {
    const route = await client.getRouteInfoByTopic(address, 'orders', { timeoutMs: 5000 })
    return route.brokerDatas.map((b) => b.brokerName).sort()
  }

  beforeAll(async () => {
    const started: Record<string, number> = {}
    sb.on('progress', (e) => {
      if (/^starting proxy/.test(e.message)) started[e.nodeId] = e.at
      if (/^proxy ready/.test(e.message)) bootMs[e.nodeId] = e.at - started[e.nodeId]!
    })
    const t0 = Date.now()
    const status = await sb.start(t)
    console.log(
      `two-rooms-proxies booted in ${Date.now() - t0} ms; proxies: ${JSON.stringify(bootMs)}`
    )
    runDir = status.runDir!
    mgmtUrl = `http://${sb.node('mgmt-1').address}`
    const mgmtConfig = JSON.parse(readFileSync(join(runDir, 'mgmt-1', 'management.json'), 'utf8'))
    for (const p of mgmtConfig.proxies) remoting[p.id] = p.remotingAddress
  })

  afterAll(async () => {
    client.close()
    await sb.stop()
    expect(pgrep(root)).toEqual([])
    if (!process.env.KEEP_RUN_DIR) rmSync(dataDir, { recursive: true, force: true })
  })

  it('boots every proxy: boot line, gRPC and remoting ports open, zone env only when pinned', async () => {
    for (const id of PROXIES) {
      const n = sb.node(id)
      expect(n.state).toBe('up')
      expect(sb.readLog(id, 16384).text).toMatch(/rocketmq-proxy startup successfully/)
      expect(sb.commandLine(id)).toContain('-Dtls.server.mode=disabled')
      expect(await tcpOpen(n.address!)).toBe(true)
      expect(await tcpOpen(remoting[id]!)).toBe(true)
      expect(linuxProcFs.cmdline(n.pid!)).toContain(runDir)
      console.log(`${id}: boot ${bootMs[id]} ms, RSS ${rssMiB(n.pid!)} MiB`)
    }
    expect(environ(sb.node('proxy-1').pid!)).toMatchObject({
      ROCKETMQ_ZONE: 'room1',
      ROCKETMQ_ZONE_MODE: 'true'
    })
    expect(environ(sb.node('proxy-2').pid!)).toMatchObject({
      ROCKETMQ_ZONE: 'room2',
      ROCKETMQ_ZONE_MODE: 'true'
    })
    const plain = environ(sb.node('proxy-plain').pid!)
    expect(plain.ROCKETMQ_ZONE).toBeUndefined()
    expect(plain.ROCKETMQ_ZONE_MODE).toBeUndefined()
  })

  it('the management node lists the three proxies, own room first, available', async () => {
    await expect
      .poll(async () => (await proxiesOf()).filter((p) => p.available).length, {
        timeout: 10_000,
        interval: 200
      })
      .toBe(3)
    const list = await proxiesOf()
    expect(list.map((p) => [p.id, p.room, p.zoneMode])).toEqual([
      ['proxy-1', 'room1', true],
      ['proxy-plain', 'room1', false],
      ['proxy-2', 'room2', true]
    ])
    for (const p of list) {
      expect(p).toMatchObject({
        address: sb.node(p.id).address,
        remotingAddress: remoting[p.id],
        available: true,
        lastError: null
      })
      expect(typeof p.latencyMs).toBe('number')
      expect(typeof p.lastProbeAt).toBe('number')
    }
    // Room 2's management node knows the same proxies, its own room first.
    const res = await fetch(`http://${sb.node('mgmt-2').address}/v1/nameservers`)
    const body = (await res.json()) as NameServersResponse
    expect(body.proxies.map((p) => p.id)).toEqual(['proxy-2', 'proxy-1', 'proxy-plain'])
  })

  it('zone pinning: proxy-1 routes only to room1 brokers, proxy-2 to room2, proxy-plain to all', async () => {
    // The name servers themselves list both brokers for the topic.
    expect(await brokerNames(sb.node('ns-1').address!)).toEqual(['broker-a', 'broker-b'])
    const seen = {
      'proxy-1': await brokerNames(remoting['proxy-1']!),
      'proxy-2': await brokerNames(remoting['proxy-2']!),
      'proxy-plain': await brokerNames(remoting['proxy-plain']!)
    }
    console.log(`routes of "orders" through each proxy: ${JSON.stringify(seen)}`)
    expect(seen).toEqual({
      'proxy-1': ['broker-a'],
      'proxy-2': ['broker-b'],
      'proxy-plain': ['broker-a', 'broker-b']
    })
  })

  it('kill: the management node reports proxy-1 unavailable within 2 probe periods; start: available again', async () => {
    const killedAt = Date.now()
    const killed = await sb.killNode('proxy-1')
    expect(killed.state).toBe('killed')
    await expect
      .poll(async () => (await proxy('proxy-1')).available, {
        timeout: 4 * probeIntervalMs,
        interval: 100
      })
      .toBe(false)
    const down = await proxy('proxy-1')
    console.log(
      `killed proxy-1 reported unavailable ${down.lastProbeAt! - killedAt} ms after the kill ` +
        `(seen by the test after ${Date.now() - killedAt} ms): ${down.lastError}`
    )
    expect(down.lastProbeAt! - killedAt).toBeLessThanOrEqual(2 * probeIntervalMs)
    expect(down.lastError).toMatch(/connect-failed|ECONNREFUSED/)
    expect((await proxy('proxy-2')).available).toBe(true)

    const t0 = Date.now()
    const started = await sb.startNode('proxy-1')
    console.log(`proxy-1 restarted in ${Date.now() - t0} ms`)
    expect(started.state).toBe('up')
    await expect
      .poll(async () => (await proxy('proxy-1')).available, {
        timeout: 4 * probeIntervalMs,
        interval: 100
      })
      .toBe(true)
    expect(await brokerNames(remoting['proxy-1']!)).toEqual(['broker-a'])
  })

  it('pause freezes proxy-1 (management reports it unavailable); resume brings it back', async () => {
    const pid = sb.node('proxy-1').pid!
    expect((await sb.pauseNode('proxy-1')).state).toBe('paused')
    expect(linuxProcFs.state(pid)).toBe('T')
    const pausedAt = Date.now()
    await expect
      .poll(async () => (await proxy('proxy-1')).available, {
        timeout: 4 * probeIntervalMs,
        interval: 100
      })
      .toBe(false)
    const down = await proxy('proxy-1')
    console.log(
      `paused proxy-1 reported unavailable ${down.lastProbeAt! - pausedAt} ms after SIGSTOP: ${down.lastError}`
    )
    expect(down.lastError).toMatch(/SETTINGS|no answer/)

    expect((await sb.resumeNode('proxy-1')).state).toBe('up')
    expect(linuxProcFs.state(pid)).not.toBe('T')
    await expect
      .poll(async () => (await proxy('proxy-1')).available, {
        timeout: 4 * probeIntervalMs,
        interval: 100
      })
      .toBe(true)
  })

  it('stops every process of the run', async () => {
    const t0 = Date.now()
    const off = sb.on('progress', (e) => {
      if (/SIGKILL/.test(e.message)) console.log(`${e.nodeId}: ${e.message}`)
    })
    await sb.stop()
    off()
    console.log(`graceful stop of the run took ${Date.now() - t0} ms`)
    expect(sb.status().nodes.every((n) => n.state === 'stopped')).toBe(true)
    expect(pgrep(runDir)).toEqual([])
  })
})
