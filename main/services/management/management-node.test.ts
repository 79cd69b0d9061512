import { createServer as createH2Server } from 'node:http2'
import {
  createServer as createTcpServer,
  type AddressInfo,
  type Server,
  type Socket
} from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { ConnectFailedError } from '../remoting/errors'
import {
  ManagementNode,
  type NameServersResponse,
  type ProbeClient,
  type ProxyStatus
} from './management-node'
import { h2SettingsProbe, ProbeTimeoutError, type ProxyProbe } from './proxy-probe'

/** A probe client whose answers the test controls per address. */
class FakeProbeClient implements ProbeClient {
  down = new Set<string>()
  hang = new Set<string>()
  /** Addresses whose connect times out (a SYN nobody answers in time). */
  synTimeout = new Set<string>()
  calls: string[] = []
  closed: string[] = []

  async getBrokerClusterInfo(address: string): Promise<unknown> {
    this.calls.push(address)
    if (this.hang.has(address)) return new Promise(() => {})
    if (this.down.has(address)) throw new ConnectFailedError(address, 'refused')
    if (this.synTimeout.has(address)) {
      throw new ConnectFailedError(address, 'no connection within 100 ms', undefined, true)
    }
    return { brokerAddrTable: {}, clusterAddrTable: {} }
  }
  closeConnection(address: string): void {
    this.closed.push(address)
  }
  close(): void {}
}

const nameServers = [
  { id: 'ns-r2', room: 'room2', address: '127.0.0.1:2001' },
  { id: 'ns-r1', room: 'room1', address: '127.0.0.1:1001' }
]

/** A proxy probe whose answers the test controls per address. */
function fakeProxyProbe(): ProxyProbe & { down: Set<string>; calls: string[] } {
  const down = new Set<string>()
  const calls: string[] = []
  const probe = async (address: string): Promise<void> => {
    calls.push(address)
    if (down.has(address)) throw new Error(`connect-failed: ECONNREFUSED ${address}`)
  }
  return Object.assign(probe, { down, calls })
}

const proxies = [
  { id: 'proxy-2', room: 'room2', address: '127.0.0.1:3001', remotingAddress: '127.0.0.1:3002' },
  { id: 'proxy-1', room: 'room1', address: '127.0.0.1:4001', remotingAddress: '127.0.0.1:4002' },
  { id: 'proxy-plain', room: 'room1', address: '127.0.0.1:5001', zoneMode: false }
]

const nodes: ManagementNode[] = []
const servers: Server[] = []
afterEach(async () => {
  while (nodes.length) await nodes.pop()?.stop()
  while (servers.length) await new Promise((r) => servers.pop()?.close(r))
})

function listen<S extends Server>(server: S): Promise<string> {
  servers.push(server)
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`127.0.0.1:${(server.address() as AddressInfo).port}`)
    )
  )
}

async function startNode(fake: FakeProbeClient, extra = {}): Promise<ManagementNode> {
  const node = new ManagementNode({
    id: 'mgmt-room1',
    room: 'room1',
    port: 0,
    probeIntervalMs: 600_000, // rounds are driven by probeNow() in these tests
    probeTimeoutMs: 100,
    nameServers,
    clientFactory: () => fake,
    ...extra
  })
  nodes.push(node)
  await node.start()
  return node
}

describe('ManagementNode', () => {
  it('serves nsaddr own-room first as text/plain, exactly ip:port;ip:port', async () => {
    const node = await startNode(new FakeProbeClient())
    const res = await fetch(`${node.url}/rocketmq/nsaddr`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/)
    expect(await res.text()).toBe('127.0.0.1:1001;127.0.0.1:2001')
    const unit = await fetch(`${node.url}/rocketmq/nsaddr-unitA?nofix=1`)
    expect(await unit.text()).toBe('127.0.0.1:1001;127.0.0.1:2001')
    expect(node.addressServerDomain).toBe(`127.0.0.1:${node.port}`)
  })

  it('drops a failing name server at the next probe and lists it again after it recovers', async () => {
    const fake = new FakeProbeClient()
    const node = await startNode(fake)
    const changes: string[] = []
    node.on('change', (ns) => changes.push(`${ns.id}:${ns.available}`))
    fake.down.add('127.0.0.1:2001')
    await node.probeNow()
    expect(node.nsaddr()).toBe('127.0.0.1:1001')
    expect(fake.closed).toEqual(['127.0.0.1:2001'])
    const body = (await (await fetch(`${node.url}/v1/nameservers`)).json()) as {
      room: string
      nameServers: Array<Record<string, unknown>>
      proxies: unknown[]
    }
    expect(body.room).toBe('room1')
    expect(body.proxies).toEqual([])
    expect(body.nameServers.map((n) => n.id)).toEqual(['ns-r1', 'ns-r2'])
    expect(body.nameServers[1]).toMatchObject({ available: false, room: 'room2' })
    expect(String(body.nameServers[1]?.lastError)).toMatch(/^connect-failed/)
    expect(body.nameServers[0]).toMatchObject({ available: true, lastError: null })
    expect(typeof body.nameServers[0]?.latencyMs).toBe('number')
    expect(typeof body.nameServers[0]?.lastProbeAt).toBe('number')
    fake.down.clear()
    await node.probeNow()
    expect(node.nsaddr()).toBe('127.0.0.1:1001;127.0.0.1:2001')
    expect(changes).toEqual(['ns-r2:false', 'ns-r2:true'])
  })

  it('treats a hanging probe as a failure (never stalls a round)', async () => {
    const fake = new FakeProbeClient()
    fake.hang.add('127.0.0.1:1001')
    const node = await startNode(fake)
    expect(node.nsaddr()).toBe('127.0.0.1:2001')
    expect(node.nameServers()[0]?.lastError).toMatch(/no answer within 100 ms/)
  })

  it('keeps a listed name server through one unanswered probe and drops it at the second', async () => {
    const fake = new FakeProbeClient()
    const node = await startNode(fake)
    const changes: string[] = []
    node.on('change', (ns) => changes.push(`${ns.id}:${ns.available}`))
    fake.hang.add('127.0.0.1:2001')
    await node.probeNow()
    // One slow answer on a busy host must not move every client of room 2 to room 1's name server.
    expect(node.nsaddr()).toBe('127.0.0.1:1001;127.0.0.1:2001')
    expect(node.nameServers()[1]?.available).toBe(true)
    expect(node.nameServers()[1]?.lastError).toMatch(/no answer within 100 ms/)
    expect(fake.closed).toEqual(['127.0.0.1:2001'])
    await node.probeNow()
    expect(node.nsaddr()).toBe('127.0.0.1:1001')
    expect(changes).toEqual(['ns-r2:false'])
    // A connect that times out is as ambiguous as an unanswered request.
    fake.hang.clear()
    await node.probeNow()
    fake.synTimeout.add('127.0.0.1:2001')
    await node.probeNow()
    expect(node.nsaddr()).toBe('127.0.0.1:1001;127.0.0.1:2001')
    await node.probeNow()
    expect(node.nsaddr()).toBe('127.0.0.1:1001')
    expect(changes).toEqual(['ns-r2:false', 'ns-r2:true', 'ns-r2:false'])
  })

  it('never drops on timeouts sooner than on refusals: failuresBeforeDown 3 alone needs 3 timeouts', async () => {
    const fake = new FakeProbeClient()
    const node = await startNode(fake, { failuresBeforeDown: 3 })
    fake.hang.add('127.0.0.1:2001')
    await node.probeNow()
    await node.probeNow()
    expect(node.nsaddr()).toBe('127.0.0.1:1001;127.0.0.1:2001')
    await node.probeNow()
    expect(node.nsaddr()).toBe('127.0.0.1:1001')
  })

  it('answers 503 with an empty body when none is available, and healthz stays 200', async () => {
    const fake = new FakeProbeClient()
    fake.down.add('127.0.0.1:1001').add('127.0.0.1:2001')
    const node = await startNode(fake)
    const res = await fetch(`${node.url}/rocketmq/nsaddr`)
    expect(res.status).toBe(503)
    expect(await res.text()).toBe('')
    const health = await fetch(`${node.url}/healthz`)
    expect(health.status).toBe(200)
    expect(await health.json()).toMatchObject({ status: 'ok', available: 0, total: 2 })
  })

  it('answers 404 and 405 for anything else', async () => {
    const node = await startNode(new FakeProbeClient())
    expect((await fetch(`${node.url}/nope`)).status).toBe(404)
    expect((await fetch(`${node.url}/rocketmq/nsaddr`, { method: 'POST' })).status).toBe(405)
  })

  it('lists no proxies when none are configured', async () => {
    const node = await startNode(new FakeProbeClient())
    expect(node.proxies()).toEqual([])
  })

  it('probes proxies every round and serves them in /v1/nameservers, own room first', async () => {
    const probe = fakeProxyProbe()
    const node = await startNode(new FakeProbeClient(), { proxies, proxyProbe: probe })
    const body = (await (await fetch(`${node.url}/v1/nameservers`)).json()) as NameServersResponse
    expect(body.proxies.map((p) => p.id)).toEqual(['proxy-1', 'proxy-plain', 'proxy-2'])
    const first: ProxyStatus = body.proxies[0]!
    expect(Object.keys(first).sort()).toEqual(
      [
        'id',
        'room',
        'address',
        'remotingAddress',
        'zoneMode',
        'available',
        'lastProbeAt',
        'latencyMs',
        'lastError'
      ].sort()
    )
    expect(first).toMatchObject({
      id: 'proxy-1',
      room: 'room1',
      address: '127.0.0.1:4001',
      remotingAddress: '127.0.0.1:4002',
      zoneMode: true,
      available: true,
      lastError: null
    })
    expect(typeof first.lastProbeAt).toBe('number')
    expect(typeof first.latencyMs).toBe('number')
    // No remoting address configured: the key is absent, not null.
    expect(body.proxies[1]).not.toHaveProperty('remotingAddress')
    expect(body.proxies[1]).toMatchObject({ zoneMode: false, available: true })
    expect(probe.calls.sort()).toEqual(['127.0.0.1:3001', '127.0.0.1:4001', '127.0.0.1:5001'])
  })

  it('drops a failing proxy at the next probe and lists it again, with proxy-change events', async () => {
    const probe = fakeProxyProbe()
    const node = await startNode(new FakeProbeClient(), { proxies, proxyProbe: probe })
    const changes: string[] = []
    node.on('proxy-change', (p) => changes.push(`${p.id}:${p.available}`))
    node.on('change', (ns) => changes.push(`ns ${ns.id}`))
    probe.down.add('127.0.0.1:4001')
    await node.probeNow()
    const down = node.proxies().find((p) => p.id === 'proxy-1')!
    expect(down).toMatchObject({
      available: false,
      lastError: 'connect-failed: ECONNREFUSED 127.0.0.1:4001'
    })
    expect(down.latencyMs).not.toBeNull() // the last good latency is kept
    // Proxies never leak into the address-server list.
    expect(node.nsaddr()).toBe('127.0.0.1:1001;127.0.0.1:2001')
    probe.down.clear()
    await node.probeNow()
    expect(node.proxies().every((p) => p.available)).toBe(true)
    expect(changes).toEqual(['proxy-1:false', 'proxy-1:true'])
  })

  it('applies failuresBeforeDown / successesBeforeUp to proxies too', async () => {
    const probe = fakeProxyProbe()
    const node = await startNode(new FakeProbeClient(), {
      proxies: [proxies[1]!],
      proxyProbe: probe,
      failuresBeforeDown: 2,
      successesBeforeUp: 2
    })
    // The first success does not list it yet.
    expect(node.proxies()[0]?.available).toBe(false)
    await node.probeNow()
    expect(node.proxies()[0]?.available).toBe(true)
    probe.down.add('127.0.0.1:4001')
    await node.probeNow()
    expect(node.proxies()[0]?.available).toBe(true)
    await node.probeNow()
    expect(node.proxies()[0]?.available).toBe(false)
  })

  it('keeps a listed proxy through one probe that times out and drops it at the second', async () => {
    let late = false
    const probe: ProxyProbe = async (address) => {
      if (late && address === '127.0.0.1:4001') {
        throw new ProbeTimeoutError(`timeout: no HTTP/2 SETTINGS from ${address} within 100 ms`)
      }
    }
    const node = await startNode(new FakeProbeClient(), {
      proxies: [proxies[1]!],
      proxyProbe: probe
    })
    expect(node.proxies()[0]?.available).toBe(true)
    late = true
    await node.probeNow()
    expect(node.proxies()[0]?.available).toBe(true)
    await node.probeNow()
    expect(node.proxies()[0]?.available).toBe(false)
  })

  it('treats a hanging proxy probe as a failure', async () => {
    const hang: ProxyProbe = () => new Promise(() => {})
    const node = await startNode(new FakeProbeClient(), { proxies, proxyProbe: hang })
    expect(node.proxies().map((p) => p.available)).toEqual([false, false, false])
    expect(node.proxies()[0]?.lastError).toMatch(/no answer within 100 ms/)
    expect(node.nsaddr()).toBe('127.0.0.1:1001;127.0.0.1:2001')
  })

  it('probes periodically on its own', async () => {
    const fake = new FakeProbeClient()
    await startNode(fake, { probeIntervalMs: 100, probeTimeoutMs: 50 })
    await expect.poll(() => fake.calls.length, { timeout: 2000 }).toBeGreaterThanOrEqual(8)
  })

  it('reports a port clash with the port and the fix', async () => {
    const first = await startNode(new FakeProbeClient())
    const clash = new ManagementNode({
      id: 'x',
      room: 'room1',
      port: first.port,
      nameServers,
      clientFactory: () => new FakeProbeClient()
    })
    await expect(clash.start()).rejects.toThrow(new RegExp(`127.0.0.1:${first.port}.*EADDRINUSE`))
  })
})

describe('h2SettingsProbe', () => {
  it('succeeds against an HTTP/2 (gRPC-style, plaintext) server', async () => {
    const address = await listen(createH2Server())
    await expect(h2SettingsProbe(address, 1000)).resolves.toBeUndefined()
  })

  it('fails on a refused port', async () => {
    const address = await listen(createTcpServer())
    await new Promise((r) => servers.pop()?.close(r))
    await expect(h2SettingsProbe(address, 1000)).rejects.toThrow(/connect-failed: ECONNREFUSED/)
  })

  it('fails when the port accepts TCP but never speaks HTTP/2 (a SIGSTOPped JVM)', async () => {
    const sockets: Socket[] = []
    const server = createTcpServer((s) => sockets.push(s))
    const address = await listen(server)
    const err = await h2SettingsProbe(address, 150).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ProbeTimeoutError)
    expect(String(err)).toMatch(/timeout: no HTTP\/2 SETTINGS .* within 150 ms/)
    for (const s of sockets) s.destroy()
  })
})
