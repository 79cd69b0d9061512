import { afterEach, describe, expect, it } from 'vitest'
import { ConnectFailedError } from '../remoting/errors'
import { ManagementNode, type ProbeClient } from './management-node'

/** A probe client whose answers the test controls per address. */
class FakeProbeClient implements ProbeClient {
  down = new Set<string>()
  hang = new Set<string>()
  calls: string[] = []
  closed: string[] = []

  async getBrokerClusterInfo(address: string): Promise<unknown> {
    this.calls.push(address)
    if (this.hang.has(address)) return new Promise(() => {})
    if (this.down.has(address)) throw new ConnectFailedError(address, 'refused')
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

const nodes: ManagementNode[] = []
afterEach(async () => {
  while (nodes.length) await nodes.pop()?.stop()
})

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
